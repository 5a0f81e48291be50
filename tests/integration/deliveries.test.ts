import net from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AlertMessage } from "../../lib/contracts/alerts.ts";
import { openDatabase, type Database } from "../../lib/server/db.ts";
import { deliverDueNotifications, MAX_ATTEMPTS, RETRY_BACKOFF_SECONDS } from "../../lib/server/deliver-notifications.ts";
import { newId } from "../../lib/server/ids.ts";
import { write } from "../../lib/server/sql.ts";
import { dialects } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { signatureIsValid, startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

const SECRET = "whsec-test-0123456789abcdef";
const T0 = new Date("2031-03-01T12:00:00.000Z");
const at = (base: Date, seconds: number) => new Date(base.getTime() + seconds * 1000);
const options = { alertFrom: "deadbolt@example.test", timeoutMs: 3000 };

describe.each(dialects)("notification delivery on %s", (dialect) => {
  let s: TestServer;
  let receiver: WebhookReceiver;
  let jobId: string;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    receiver = await startWebhookReceiver();
    expect((await s.api("POST", "/api/v1/jobs", { slug: "nightly-sync", name: "Nightly sync", schedule: { every: 3600 } })).status).toBe(201);
    jobId = (await s.db.prisma.job.findUniqueOrThrow({ where: { slug: "nightly-sync" } })).id;
  });
  afterAll(async () => {
    await receiver?.close();
    await s?.close();
  });
  beforeEach(async () => {
    // Each test sees only its own notifications: deliverDueNotifications takes every due row.
    await s.db.prisma.notification.deleteMany();
    receiver.requests.length = 0;
    receiver.failNext(0);
    receiver.hang(false);
  });

  async function channel(fields: { kind?: string; target?: string; format?: string; secret?: string | null } = {}) {
    return s.db.prisma.channel.create({
      data: { id: newId(), name: "ops hook", kind: fields.kind ?? "webhook", target: fields.target ?? receiver.url, secret: fields.secret === undefined ? SECRET : fields.secret, format: fields.format ?? "json", createdAt: T0 },
    });
  }

  async function incident() {
    return s.db.prisma.incident.create({ data: { id: newId(), jobId, kind: "missed", status: "open", summary: "no run for the 12:00 slot", evidence: "{}", openedAt: T0 } });
  }

  function message(incidentId: string): AlertMessage {
    return {
      event: "opened",
      title: "[Deadbolt] nightly-sync: missed run (slot 12:00 UTC)",
      text: "No run started for the 12:00 UTC slot within 5 minutes of grace.",
      incident: { id: incidentId, kind: "missed", status: "open", summary: "no run for the 12:00 slot", evidence: { slot: "2031-03-01T12:00:00.000Z" }, openedAt: T0.toISOString(), resolvedAt: null },
      job: { slug: "nightly-sync", name: "Nightly sync" },
      url: `${s.url}/jobs/nightly-sync`,
      at: T0.toISOString(),
    };
  }

  async function enqueue(channelId: string, dueAt = T0, payload?: string) {
    const inc = await incident();
    return s.db.prisma.notification.create({
      data: { id: newId(), incidentId: inc.id, channelId, event: "opened", status: "pending", payload: payload ?? JSON.stringify(message(inc.id)), attempts: 0, nextAttemptAt: dueAt, createdAt: dueAt },
    });
  }

  const notification = (id: string) => s.db.prisma.notification.findUniqueOrThrow({ where: { id }, include: { deliveries: { orderBy: { id: "asc" } } } });

  /** The retry must come after the backoff, measured from the attempt (which may take a few ms). */
  function expectRetryAfter(nextAttemptAt: Date | null, attemptAt: Date, seconds: number) {
    expect(nextAttemptAt).not.toBeNull();
    const delayMs = nextAttemptAt!.getTime() - attemptAt.getTime();
    expect(delayMs).toBeGreaterThanOrEqual(seconds * 1000);
    expect(delayMs).toBeLessThan(seconds * 1000 + 10_000);
  }

  it("retries a failing webhook with backoff and marks it sent on the third attempt", async () => {
    const ch = await channel();
    const n = await enqueue(ch.id);
    receiver.failNext(2, 500);

    expect(await deliverDueNotifications(s.db, options, T0)).toEqual({ sent: 0, failed: 0, retried: 1 });
    const afterFirst = await notification(n.id);
    expect(afterFirst).toMatchObject({ status: "pending", attempts: 1, sentAt: null });
    expectRetryAfter(afterFirst.nextAttemptAt, T0, RETRY_BACKOFF_SECONDS[0]);

    // Not due yet: a tick just before the retry time sends nothing.
    expect(await deliverDueNotifications(s.db, options, at(T0, RETRY_BACKOFF_SECONDS[0] - 1))).toEqual({ sent: 0, failed: 0, retried: 0 });
    expect(receiver.requests).toHaveLength(1);

    const second = afterFirst.nextAttemptAt!;
    expect(await deliverDueNotifications(s.db, options, second)).toEqual({ sent: 0, failed: 0, retried: 1 });
    const afterSecond = await notification(n.id);
    expect(afterSecond.attempts).toBe(2);
    expectRetryAfter(afterSecond.nextAttemptAt, second, RETRY_BACKOFF_SECONDS[1]);

    expect(await deliverDueNotifications(s.db, options, afterSecond.nextAttemptAt!)).toEqual({ sent: 1, failed: 0, retried: 0 });
    const done = await notification(n.id);
    expect(done).toMatchObject({ status: "sent", attempts: 3, nextAttemptAt: null });
    expect(done.sentAt).not.toBeNull();
    expect(done.deliveries.map((d) => [d.ok, d.responseStatus, d.error])).toEqual([
      [false, 500, "HTTP 500"],
      [false, 500, "HTTP 500"],
      [true, 200, null],
    ]);

    expect(receiver.requests.map((r) => r.answered)).toEqual([500, 500, 200]);
    // Every retry is the same notification, signed afresh.
    expect(new Set(receiver.requests.map((r) => r.headers["x-deadbolt-notification"]))).toEqual(new Set([n.id]));
    for (const request of receiver.requests) expect(signatureIsValid(request, SECRET)).toBe(true);
  });

  it("gives up after the last attempt and marks the notification failed", async () => {
    const ch = await channel();
    const n = await enqueue(ch.id);
    receiver.failNext(1000, 503);
    let now = T0;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const last = attempt === MAX_ATTEMPTS;
      expect(await deliverDueNotifications(s.db, options, now)).toEqual({ sent: 0, failed: last ? 1 : 0, retried: last ? 0 : 1 });
      const row = await notification(n.id);
      expect(row.attempts).toBe(attempt);
      if (!last) {
        expectRetryAfter(row.nextAttemptAt, now, RETRY_BACKOFF_SECONDS[attempt - 1]);
        now = row.nextAttemptAt!;
      }
    }
    const failed = await notification(n.id);
    expect(failed).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS, nextAttemptAt: null, sentAt: null });
    expect(failed.deliveries).toHaveLength(MAX_ATTEMPTS);
    expect(failed.deliveries.every((d) => !d.ok && d.responseStatus === 503)).toBe(true);
    // Given up means given up: a day later nothing is sent.
    expect(await deliverDueNotifications(s.db, options, at(now, 86_400))).toEqual({ sent: 0, failed: 0, retried: 0 });
    expect(receiver.requests).toHaveLength(MAX_ATTEMPTS);
  });

  it("does not send a notification before it is due", async () => {
    const ch = await channel();
    const n = await enqueue(ch.id, at(T0, 60));
    expect(await deliverDueNotifications(s.db, options, T0)).toEqual({ sent: 0, failed: 0, retried: 0 });
    expect(receiver.requests).toHaveLength(0);
    expect(await notification(n.id)).toMatchObject({ status: "pending", attempts: 0 });
    expect(await deliverDueNotifications(s.db, options, at(T0, 60))).toEqual({ sent: 1, failed: 0, retried: 0 });
    expect(receiver.requests).toHaveLength(1);
  });

  it("delivers each notification exactly once when two checkers run at the same time", async () => {
    const ch = await channel();
    const ids = new Set<string>();
    for (let i = 0; i < 6; i++) ids.add((await enqueue(ch.id)).id);
    // A second handle: its own connection(s), as a second checker process would have.
    const other: Database = openDatabase(s.db.url);
    try {
      const [a, b] = await Promise.all([deliverDueNotifications(s.db, options, T0), deliverDueNotifications(other, options, T0)]);
      expect(a.sent + b.sent).toBe(6);
      expect(a.retried + b.retried + a.failed + b.failed).toBe(0);
    } finally {
      await other.close();
    }
    const delivered = receiver.requests.map((r) => String(r.headers["x-deadbolt-notification"]));
    expect(delivered).toHaveLength(6);
    expect(new Set(delivered)).toEqual(ids);
    expect(await s.db.prisma.deliveryAttempt.count({ where: { notificationId: { in: [...ids] } } })).toBe(6);
  });

  it("gives up on a receiver that does not answer in time and calls it a timeout", async () => {
    const ch = await channel();
    const n = await enqueue(ch.id);
    receiver.hang(true);
    expect(await deliverDueNotifications(s.db, { ...options, timeoutMs: 300 }, T0)).toEqual({ sent: 0, failed: 0, retried: 1 });
    const row = await notification(n.id);
    expect(receiver.requests).toHaveLength(1);
    expect(row.deliveries).toHaveLength(1);
    expect(row.deliveries[0]).toMatchObject({ ok: false, error: "timeout", responseStatus: null });
    expect(row.deliveries[0].durationMs).toBeGreaterThanOrEqual(250);
    expect(row.deliveries[0].durationMs).toBeLessThan(10_000);
  });

  it("records an unreachable endpoint as a failed attempt with its cause", async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const ch = await channel({ target: `http://127.0.0.1:${port}/hook` });
    const n = await enqueue(ch.id);
    expect(await deliverDueNotifications(s.db, options, T0)).toEqual({ sent: 0, failed: 0, retried: 1 });
    const row = await notification(n.id);
    expect(row.deliveries[0].ok).toBe(false);
    expect(row.deliveries[0].error).toMatch(/ECONNREFUSED/);
  });

  it("posts {text} to a Slack-format channel, still signed", async () => {
    const ch = await channel({ format: "slack" });
    const n = await enqueue(ch.id);
    expect((await deliverDueNotifications(s.db, options, T0)).sent).toBe(1);
    const [request] = receiver.requests;
    const sent = JSON.parse((await notification(n.id)).payload) as AlertMessage;
    expect(JSON.parse(request.body)).toEqual({ text: `${sent.title}\n${sent.text}\n${sent.url}` });
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["x-deadbolt-event"]).toBe("opened");
    expect(signatureIsValid(request, SECRET)).toBe(true);
  });

  it("posts the AlertMessage itself to a JSON channel, with the documented headers", async () => {
    const ch = await channel();
    const n = await enqueue(ch.id);
    expect((await deliverDueNotifications(s.db, options, T0)).sent).toBe(1);
    const [request] = receiver.requests;
    expect(request.method).toBe("POST");
    expect(JSON.parse(request.body)).toEqual(JSON.parse((await notification(n.id)).payload));
    expect(request.headers["user-agent"]).toBe("Deadbolt");
    expect(Math.abs(Number(request.headers["x-deadbolt-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(signatureIsValid(request, SECRET)).toBe(true);
    expect(signatureIsValid(request, "some-other-secret-entirely")).toBe(false);
    expect(signatureIsValid({ ...request, body: request.body.replace("missed", "mised") }, SECRET)).toBe(false);
  });

  it("sends a notification written with raw SQL the way the checker writes its outbox", async () => {
    const ch = await channel();
    const inc = await incident();
    const id = newId();
    await write(s.db, (tx) =>
      tx.run(
        `INSERT INTO "Notification" ("id", "incidentId", "channelId", "event", "status", "payload", "attempts", "nextAttemptAt", "createdAt") VALUES (?, ?, ?, ?, 'pending', ?, 0, ?, ?)`,
        [id, inc.id, ch.id, "opened", JSON.stringify(message(inc.id)), T0, T0],
      ),
    );
    expect(await deliverDueNotifications(s.db, options, T0)).toEqual({ sent: 1, failed: 0, retried: 0 });
    expect(receiver.requests.map((r) => r.headers["x-deadbolt-notification"])).toEqual([id]);
    expect((await notification(id)).status).toBe("sent");
  });

  it("retries an email notification while SMTP_URL is not set", async () => {
    const ch = await channel({ kind: "email", target: "oncall@example.test", secret: null });
    const n = await enqueue(ch.id);
    expect(await deliverDueNotifications(s.db, options, T0)).toEqual({ sent: 0, failed: 0, retried: 1 });
    expect((await notification(n.id)).deliveries[0]).toMatchObject({ ok: false, error: "SMTP_URL is not set" });
  });

  it("fails a notification whose payload can never be sent at once, without retrying", async () => {
    const ch = await channel();
    const n = await enqueue(ch.id, T0, JSON.stringify({ title: "no event, no text" }));
    expect(await deliverDueNotifications(s.db, options, T0)).toEqual({ sent: 0, failed: 1, retried: 0 });
    expect(await notification(n.id)).toMatchObject({ status: "failed", attempts: 1, nextAttemptAt: null });
    expect(receiver.requests).toHaveLength(0);
  });
});
