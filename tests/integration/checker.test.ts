// Checker scenarios with the clock travelled, not slept: the server's database handle takes its time
// from `clock`, pings and claims go over real HTTP, and checkDue runs at the instants under test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkDue } from "../../lib/server/check-due.ts";
import { openDatabase } from "../../lib/server/db.ts";
import { newId } from "../../lib/server/ids.ts";
import { runCheckerTick } from "../../lib/server/run-checker-tick.ts";
import { dialects } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

describe.each(dialects)("checker rules on %s", (dialect) => {
  let s: TestServer;
  let now = new Date();
  const at = (iso: string) => (now = new Date(iso));
  const after = (seconds: number) => (now = new Date(now.getTime() + seconds * 1000));

  beforeAll(async () => {
    s = await startTestServer(dialect, { env: { DEADBOLT_TRUST_PROXY: "1" } });
    s.db.clock = () => now;
  });
  afterAll(async () => s?.close());

  async function createJob(body: Record<string, unknown>) {
    const res = await s.api("POST", "/api/v1/jobs", body);
    expect(res.status).toBe(201);
    return res.body as { slug: string; pingKey: string };
  }
  async function ping(key: string, path = "", host = "10.0.0.1") {
    const res = await fetch(`${s.url}/ping/${key}${path}`, { method: "POST", headers: { "x-forwarded-for": host } });
    expect(res.status).toBe(200);
  }
  const incidents = (slug: string) => s.db.prisma.incident.findMany({ where: { job: { slug } }, orderBy: { id: "asc" } });
  const open = async (slug: string) => (await incidents(slug)).filter((i) => i.status === "open").map((i) => i.kind);
  async function withChannel(slug: string) {
    const channel = await s.db.prisma.channel.create({ data: { id: newId(), name: `${slug} hook`, kind: "webhook", target: "http://127.0.0.1:9/never", secret: "s".repeat(20), createdAt: now } });
    const job = await s.db.prisma.job.findUniqueOrThrow({ where: { slug } });
    await s.db.prisma.jobChannel.create({ data: { jobId: job.id, channelId: channel.id } });
    return channel.id;
  }
  const notifications = (channelId: string) => s.db.prisma.notification.findMany({ where: { channelId }, orderBy: { id: "asc" } });

  it("raises missed once when a slot passes its grace, and resolves it when a run arrives", async () => {
    at("2026-06-01T10:00:30Z");
    const job = await createJob({ slug: "every-five", schedule: { cron: "*/5 * * * *" }, graceSeconds: 60 });
    const channelId = await withChannel("every-five");
    at("2026-06-01T10:05:59Z");
    await checkDue(s.db, now);
    expect(await open("every-five")).toEqual([]);
    at("2026-06-01T10:06:00Z");
    await checkDue(s.db, now);
    expect(await open("every-five")).toEqual(["missed"]);
    const [missed] = await incidents("every-five");
    expect(JSON.parse(missed.evidence)).toMatchObject({ slot: "2026-06-01T10:05:00.000Z", graceSeconds: 60 });
    // Later ticks, and the next missed slot, do not open or notify again.
    for (const t of ["2026-06-01T10:06:05Z", "2026-06-01T10:11:00Z", "2026-06-01T10:11:05Z"]) await checkDue(s.db, at(t));
    expect((await incidents("every-five")).length).toBe(1);
    expect((await notifications(channelId)).map((n) => n.event)).toEqual(["opened"]);
    // A run for the coming slot, 20 s early (clock skew), resolves it.
    at("2026-06-01T10:14:40Z");
    await ping(job.pingKey);
    expect(await open("every-five")).toEqual([]);
    expect((await notifications(channelId)).map((n) => n.event)).toEqual(["opened", "resolved"]);
  });

  it("does not raise missed for a ping 20 s early", async () => {
    at("2026-06-02T01:00:00Z");
    const job = await createJob({ slug: "nightly-early", schedule: { cron: "0 2 * * *" }, graceSeconds: 300 });
    at("2026-06-02T01:59:40Z");
    await ping(job.pingKey);
    for (const t of ["2026-06-02T02:05:01Z", "2026-06-02T02:30:00Z", "2026-06-03T02:04:59Z"]) await checkDue(s.db, at(t));
    expect(await open("nightly-early")).toEqual([]);
    await checkDue(s.db, at("2026-06-03T02:05:00Z"));
    expect(await open("nightly-early")).toEqual(["missed"]);
  });

  it("follows Europe/Berlin across the spring-forward gap", async () => {
    at("2026-03-27T12:00:00Z");
    const job = await createJob({ slug: "berlin-0230", schedule: { cron: "30 2 * * *", tz: "Europe/Berlin" }, graceSeconds: 600 });
    at("2026-03-28T01:30:05Z"); // 02:30 CET
    await ping(job.pingKey);
    // 02:30 does not exist on 2026-03-29; the schedule fires at 03:00 CEST = 01:00Z instead.
    await checkDue(s.db, at("2026-03-29T01:09:59Z"));
    expect(await open("berlin-0230")).toEqual([]);
    await checkDue(s.db, at("2026-03-29T01:10:00Z"));
    expect(await open("berlin-0230")).toEqual(["missed"]);
    expect(JSON.parse((await incidents("berlin-0230"))[0].evidence).slot).toBe("2026-03-29T01:00:00.000Z");
  });

  it("follows America/New_York across the fall-back overlap: one slot, not two", async () => {
    at("2026-10-30T12:00:00Z");
    const job = await createJob({ slug: "ny-0130", schedule: { cron: "30 1 * * *", tz: "America/New_York" }, graceSeconds: 600 });
    at("2026-11-01T05:30:10Z"); // 01:30 EDT, the first of two 01:30s
    await ping(job.pingKey);
    // 01:30 EST (06:30Z) is the same wall time again: no second slot, nothing missed.
    for (const t of ["2026-11-01T06:40:01Z", "2026-11-02T06:39:59Z"]) await checkDue(s.db, at(t));
    expect(await open("ny-0130")).toEqual([]);
    await checkDue(s.db, at("2026-11-02T06:40:00Z")); // 01:30 EST on Nov 2, plus grace
    expect(await open("ny-0130")).toEqual(["missed"]);
  });

  it("raises failed after failureThreshold failures in a row and resolves after recoveryThreshold good runs", async () => {
    at("2026-06-04T00:00:00Z");
    const job = await createJob({ slug: "flaky", schedule: { every: 60 }, failureThreshold: 2, recoveryThreshold: 2 });
    await ping(job.pingKey, "/fail");
    expect(await open("flaky")).toEqual([]);
    after(60);
    await ping(job.pingKey, "/3");
    expect(await open("flaky")).toEqual(["failed"]);
    after(60);
    await ping(job.pingKey);
    expect(await open("flaky")).toEqual(["failed"]);
    after(60);
    await ping(job.pingKey);
    expect(await open("flaky")).toEqual([]);
    const [failed] = await incidents("flaky");
    expect(JSON.parse(failed.evidence)).toMatchObject({ exitCode: 3, consecutiveFailures: 2 });
  });

  it("raises overrun when a run goes past maxRuntimeSeconds, and too_fast under minRuntimeSeconds", async () => {
    at("2026-06-05T00:00:00Z");
    const slow = await createJob({ slug: "slow", schedule: { every: 3600 }, maxRuntimeSeconds: 60 });
    await ping(slow.pingKey, "/start");
    await checkDue(s.db, at("2026-06-05T00:00:59Z"));
    expect(await open("slow")).toEqual([]);
    await checkDue(s.db, at("2026-06-05T00:01:01Z"));
    expect(await open("slow")).toEqual(["overrun"]);

    const quick = await createJob({ slug: "quick", schedule: { every: 3600 }, minRuntimeSeconds: 10 });
    await ping(quick.pingKey, "/start");
    after(2);
    await ping(quick.pingKey);
    expect(await open("quick")).toEqual(["too_fast"]);
  });

  it("marks a claimed run abandoned when its lease expires without a finish (seed 000's crash)", async () => {
    at("2026-06-06T00:00:00Z");
    await createJob({ slug: "crashy", schedule: { every: 3600 }, leaseTtlSeconds: 30 });
    const run = (await s.api("POST", "/api/v1/jobs/crashy/runs", { holder: "web-1" })).body;
    await checkDue(s.db, at("2026-06-06T00:00:29Z"));
    expect(await open("crashy")).toEqual([]);
    await checkDue(s.db, at("2026-06-06T00:00:31Z"));
    expect(await open("crashy")).toEqual(["abandoned"]);
    const stored = await s.db.prisma.run.findUniqueOrThrow({ where: { id: run.runId } });
    expect(stored.outcome).toBe("abandoned");
    expect(JSON.parse((await incidents("crashy"))[0].evidence)).toMatchObject({ host: "web-1", runId: run.runId });
  });

  it("raises lease_expired_mid_run when a live run learns on heartbeat that its lease expired", async () => {
    at("2026-06-07T00:00:00Z");
    await createJob({ slug: "slowbeat", schedule: { every: 3600 }, leaseTtlSeconds: 30 });
    const run = (await s.api("POST", "/api/v1/jobs/slowbeat/runs", { holder: "web-1" })).body;
    after(45);
    const beat = await s.api("POST", `/api/v1/runs/${run.runId}/heartbeat`);
    expect(beat.status).toBe(409);
    expect(await open("slowbeat")).toEqual(["lease_expired_mid_run"]);
  });

  it("raises zombie when a run reports after another holder took its lease", async () => {
    at("2026-06-08T00:00:00Z");
    await createJob({ slug: "zombie", schedule: { every: 60 }, leaseTtlSeconds: 30 });
    const a = (await s.api("POST", "/api/v1/jobs/zombie/runs", { holder: "web-1" })).body;
    after(90);
    const b = await s.api("POST", "/api/v1/jobs/zombie/runs", { holder: "web-2" });
    expect(b.status).toBe(201);
    const late = await s.api("POST", `/api/v1/runs/${a.runId}/finish`, { exitCode: 0 });
    expect(late.status).toBe(409);
    expect(await open("zombie")).toContain("zombie");
    const zombie = (await incidents("zombie")).find((i) => i.kind === "zombie")!;
    expect(JSON.parse(zombie.evidence)).toMatchObject({ host: "web-1", takenOverBy: "web-2" });
  });

  it("raises ttl_risk when the worst recent runtime reaches 80 % of the lease TTL, with a suggestion", async () => {
    at("2026-06-09T00:00:00Z");
    await createJob({ slug: "tight", schedule: { every: 3600 }, leaseTtlSeconds: 100 });
    const run = (await s.api("POST", "/api/v1/jobs/tight/runs", { holder: "web-1" })).body;
    after(50);
    await s.api("POST", `/api/v1/runs/${run.runId}/heartbeat`);
    after(35);
    expect((await s.api("POST", `/api/v1/runs/${run.runId}/finish`, { exitCode: 0 })).status).toBe(200);
    expect(await open("tight")).toEqual(["ttl_risk"]);
    const [risk] = await incidents("tight");
    expect(JSON.parse(risk.evidence)).toMatchObject({ ttlSeconds: 100, worstMs: 85_000, suggestedTtlSeconds: 180 });
  });

  it("opens one duplicate incident naming all three hosts that ran one slot (seed 000)", async () => {
    at("2026-06-10T01:59:58Z");
    const job = await createJob({ slug: "billing-3x", schedule: { cron: "0 2 * * *" }, graceSeconds: 300 });
    const channelId = await withChannel("billing-3x");
    at("2026-06-10T02:00:00Z");
    await ping(job.pingKey, "/start", "10.0.0.1");
    await ping(job.pingKey, "/start", "10.0.0.2");
    after(1);
    await ping(job.pingKey, "/start", "10.0.0.3");
    const dups = (await incidents("billing-3x")).filter((i) => i.kind === "duplicate");
    expect(dups).toHaveLength(1);
    expect(JSON.parse(dups[0].evidence).hosts).toEqual(["10.0.0.1", "10.0.0.2", "10.0.0.3"]);
    // Its one notification waits for the other hosts, and names all three.
    const [note] = await notifications(channelId);
    expect(JSON.parse(note.payload).incident.evidence.hosts).toHaveLength(3);
    expect(note.nextAttemptAt!.getTime()).toBeGreaterThan(now.getTime());
  });

  it("raises nothing for a paused job", async () => {
    at("2026-06-11T00:00:00Z");
    const job = await createJob({ slug: "paused", schedule: { every: 60 }, paused: true, graceSeconds: 0 });
    await ping(job.pingKey, "/fail");
    await checkDue(s.db, at("2026-06-11T01:00:00Z"));
    expect(await incidents("paused")).toEqual([]);
  });

  it("acts once when two checkers tick at the same moment", async () => {
    at("2026-06-12T00:00:00Z");
    await createJob({ slug: "contested", schedule: { every: 60 }, graceSeconds: 0 });
    const channelId = await withChannel("contested");
    const second = openDatabase(s.db.url);
    second.clock = s.db.clock;
    try {
      at("2026-06-12T00:01:00Z");
      await Promise.all([checkDue(s.db, now), checkDue(second, now), checkDue(s.db, now), checkDue(second, now)]);
    } finally {
      await second.close();
    }
    expect(await open("contested")).toEqual(["missed"]);
    expect(await notifications(channelId)).toHaveLength(1);
  });
});

describe.each(dialects)("reminders on %s", (dialect) => {
  let s: TestServer;
  let now = new Date("2026-07-01T00:00:00Z");
  beforeAll(async () => {
    s = await startTestServer(dialect);
    s.db.clock = () => now;
  });
  afterAll(async () => s?.close());

  it("reminds a channel that asks for it while the incident stays open, and stops once it resolves", async () => {
    const job = (await s.api("POST", "/api/v1/jobs", { slug: "stuck", schedule: { every: 3600 }, graceSeconds: 0 })).body;
    const hourly = await s.db.prisma.channel.create({ data: { id: newId(), name: "pager", kind: "webhook", target: "http://127.0.0.1:9/x", secret: "s".repeat(20), remindEveryMinutes: 60, createdAt: now } });
    const quiet = await s.db.prisma.channel.create({ data: { id: newId(), name: "mail", kind: "email", target: "ops@example.com", createdAt: now } });
    const row = await s.db.prisma.job.findUniqueOrThrow({ where: { slug: "stuck" } });
    await s.db.prisma.jobChannel.createMany({ data: [{ jobId: row.id, channelId: hourly.id }, { jobId: row.id, channelId: quiet.id }] });
    const events = async (channelId: string) => (await s.db.prisma.notification.findMany({ where: { channelId }, orderBy: { id: "asc" } })).map((n) => n.event);
    const tick = async (iso: string) => {
      now = new Date(iso);
      await runCheckerTick(s.db, { alertFrom: "deadbolt@example.com", timeoutMs: 200 }, now);
    };
    await tick("2026-07-01T01:00:00Z"); // missed
    await tick("2026-07-01T01:59:00Z");
    expect(await events(hourly.id)).toEqual(["opened"]);
    await tick("2026-07-01T02:00:01Z");
    expect(await events(hourly.id)).toEqual(["opened", "reminder"]);
    await tick("2026-07-01T02:30:00Z");
    expect(await events(hourly.id)).toEqual(["opened", "reminder"]);
    expect(await events(quiet.id)).toEqual(["opened"]);
    now = new Date("2026-07-01T02:40:00Z");
    await fetch(`${s.url}/ping/${job.pingKey}`);
    await tick("2026-07-01T02:59:00Z");
    expect(await events(hourly.id)).toEqual(["opened", "reminder", "resolved"]);
  });
});
