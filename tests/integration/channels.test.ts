import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AlertMessage } from "../../lib/contracts/alerts.ts";
import { deliverDueNotifications } from "../../lib/server/deliver-notifications.ts";
import { dialects } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp.ts";
import { signatureIsValid, startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

describe.each(dialects)("channels API on %s", (dialect) => {
  let s: TestServer;
  let smtp: TestSmtpServer;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    receiver = await startWebhookReceiver();
    s = await startTestServer(dialect, { env: { SMTP_URL: smtp.url, ALERT_FROM: "Deadbolt <alerts@deadbolt.test>" } });
  });
  afterAll(async () => {
    await s?.close();
    await receiver?.close();
    await smtp?.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.failNext(0);
    smtp.messages.length = 0;
  });

  const webhook = (name: string, extra: Record<string, unknown> = {}) => s.api("POST", "/api/v1/channels", { name, kind: "webhook", url: receiver.url, ...extra });

  it("takes SMTP_URL and ALERT_FROM from the environment", () => {
    expect(s.config.smtpUrl).toBe(smtp.url);
    expect(s.config.alertFrom).toBe("Deadbolt <alerts@deadbolt.test>");
  });

  it("creates an email channel", async () => {
    const res = await s.api("POST", "/api/v1/channels", { name: "On-call", kind: "email", address: "oncall@example.test" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: "On-call", kind: "email", address: "oncall@example.test", remindEveryMinutes: null });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.secret).toBeUndefined();
  });

  it("creates a webhook channel with a generated secret that only the creation answer shows", async () => {
    const res = await webhook("Ops hook");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: "webhook", url: receiver.url, format: "json", signed: true });
    // 24 random bytes in base64url.
    expect(res.body.secret).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const full = await s.api("GET", "/api/v1/channels");
    expect(full.status).toBe(200);
    const listed = full.body.items.find((c: { id: string }) => c.id === res.body.id);
    expect(listed).toMatchObject({ name: "Ops hook", url: receiver.url, signed: true });
    expect(JSON.stringify(full.body)).not.toContain(res.body.secret);

    const ro = await s.api("GET", "/api/v1/channels", undefined, s.readKey);
    expect(ro.status).toBe(200);
    const seen = ro.body.items.find((c: { id: string }) => c.id === res.body.id);
    // The path of a webhook URL can be the credential (Slack): a read-only key sees the origin.
    expect(seen.url).toBe(`${new URL(receiver.url).origin}/…`);
    expect(JSON.stringify(ro.body)).not.toContain(res.body.secret);
    expect(JSON.stringify(ro.body)).not.toContain("/hooks/deadbolt");
  });

  it("keeps a secret and a format given at creation", async () => {
    const res = await webhook("Slack", { secret: "a-secret-of-our-own-choosing", format: "slack" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ format: "slack", secret: "a-secret-of-our-own-choosing" });
  });

  it("lists channels in keyset pages", async () => {
    await webhook("Page one");
    await webhook("Page two");
    const first = await s.api("GET", "/api/v1/channels?limit=1");
    expect(first.body.items).toHaveLength(1);
    expect(first.body.nextCursor).toBe(first.body.items[0].id);
    const second = await s.api("GET", `/api/v1/channels?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.items[0].id > first.body.items[0].id).toBe(true);
  });

  it("lets a read-only key list channels but not create, test or delete one (403)", async () => {
    const before = (await s.api("GET", "/api/v1/channels?limit=500", undefined, s.readKey)).body.items.length;
    const res = await s.api("POST", "/api/v1/channels", { name: "Sneaky", kind: "email", address: "x@example.test" }, s.readKey);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("forbidden");
    expect((await s.api("GET", "/api/v1/channels?limit=500")).body.items).toHaveLength(before);

    const id = (await webhook("Guarded")).body.id;
    expect((await s.api("POST", `/api/v1/channels/${id}/test`, undefined, s.readKey)).status).toBe(403);
    expect((await s.api("DELETE", `/api/v1/channels/${id}`, undefined, s.readKey)).status).toBe(403);
    expect(receiver.requests).toHaveLength(0);
    expect((await s.api("GET", `/api/v1/channels/${id}/deliveries`, undefined, s.readKey)).status).toBe(200);
  });

  it.each([
    [{ name: "Bad", kind: "webhook", url: "not a url" }, "url"],
    [{ name: "Bad", kind: "webhook", url: "ftp://example.test/hook" }, "url"],
    [{ name: "Bad", kind: "webhook", url: "https://example.test/hook", secret: "short" }, "secret"],
    [{ name: "Bad", kind: "email", address: "not-an-email" }, "address"],
    [{ name: "", kind: "email", address: "a@example.test" }, "name"],
  ])("refuses %j with 422 naming the field %s", async (body, field) => {
    const res = await s.api("POST", "/api/v1/channels", body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: "validation_failed", field });
  });

  it("refuses an unknown kind with 422", async () => {
    const res = await s.api("POST", "/api/v1/channels", { name: "Pager", kind: "pager", number: "555" });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("validation_failed");
  });

  it("deletes a channel, then answers 404 for it", async () => {
    const id = (await webhook("Doomed")).body.id;
    expect(await s.api("DELETE", `/api/v1/channels/${id}`)).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await s.api("GET", "/api/v1/channels?limit=500")).body.items.map((c: { id: string }) => c.id)).not.toContain(id);
    for (const [method, path] of [["DELETE", ""], ["POST", "/test"], ["GET", "/deliveries"]]) {
      const res = await s.api(method, `/api/v1/channels/${id}${path}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it("sends a webhook test: one POST, signed with the channel's secret, carrying an AlertMessage", async () => {
    const created = (await webhook("Signed")).body;
    const res = await s.api("POST", `/api/v1/channels/${created.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, responseStatus: 200, error: null });
    expect(res.body.attemptId).toEqual(expect.any(String));

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request.method).toBe("POST");
    expect(request.headers["x-deadbolt-event"]).toBe("test");
    expect(signatureIsValid(request, created.secret)).toBe(true);
    expect(signatureIsValid(request, `${created.secret}x`)).toBe(false);
    const message = AlertMessage.parse(JSON.parse(request.body));
    expect(message).toMatchObject({ event: "test", incident: null, job: null, url: s.url });
    expect(message.title).toContain("Signed");

    const log = await s.api("GET", `/api/v1/channels/${created.id}/deliveries`, undefined, s.readKey);
    expect(log.body.items).toHaveLength(1);
    expect(log.body.items[0]).toMatchObject({ id: res.body.attemptId, event: "test", title: message.title, ok: true, responseStatus: 200, notificationStatus: "sent" });
  });

  it("sends an email test through the SMTP server of SMTP_URL", async () => {
    const created = (await s.api("POST", "/api/v1/channels", { name: "Night shift", kind: "email", address: "night@example.test" })).body;
    const res = await s.api("POST", `/api/v1/channels/${created.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, responseStatus: 250, error: null });

    expect(smtp.messages).toHaveLength(1);
    const [mail] = smtp.messages;
    expect(mail.user).toBe("alerts"); // logged in with the credentials of SMTP_URL
    expect(mail.mailFrom).toBe("alerts@deadbolt.test");
    expect(mail.rcptTo).toEqual(["night@example.test"]);
    expect(mail.headers.from).toBe("Deadbolt <alerts@deadbolt.test>");
    expect(mail.headers.to).toBe("night@example.test");
    expect(mail.subject).toBe('[Deadbolt] Test notification for channel "Night shift"');
    expect(mail.headers["x-deadbolt-event"]).toBe("test");
    expect(mail.text).toContain("This is a test sent from Deadbolt");
    expect(mail.text).toContain(s.url);
  });

  it("reports an email the SMTP server refuses as a failed test", async () => {
    const created = (await s.api("POST", "/api/v1/channels", { name: "Refused", kind: "email", address: "refused@example.test" })).body;
    smtp.refuseNext(1);
    const res = await s.api("POST", `/api/v1/channels/${created.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: false, responseStatus: 451 });
    expect(res.body.error).toMatch(/try again later/);
    expect(smtp.messages).toHaveLength(0);
  });

  it("answers a failing webhook test with ok:false and its status, logs the attempt, and never retries it", async () => {
    const created = (await webhook("Broken")).body;
    receiver.failNext(1, 500);
    const res = await s.api("POST", `/api/v1/channels/${created.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: false, responseStatus: 500, error: "HTTP 500" });

    const log = await s.api("GET", `/api/v1/channels/${created.id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body.items).toHaveLength(1);
    expect(log.body.items[0]).toMatchObject({ id: res.body.attemptId, event: "test", ok: false, responseStatus: 500, error: "HTTP 500", notificationStatus: "failed" });

    // A day later the checker's delivery pass still leaves it alone.
    const later = new Date(Date.now() + 86_400_000);
    expect(await deliverDueNotifications(s.db, { alertFrom: s.config.alertFrom }, later)).toEqual({ sent: 0, failed: 0, retried: 0 });
    expect(receiver.requests).toHaveLength(1);
  });

  it("pages a channel's delivery log newest first", async () => {
    const created = (await webhook("Chatty")).body;
    const attempts: string[] = [];
    for (let i = 0; i < 3; i++) attempts.push((await s.api("POST", `/api/v1/channels/${created.id}/test`)).body.attemptId);
    const first = await s.api("GET", `/api/v1/channels/${created.id}/deliveries?limit=2`);
    expect(first.body.items.map((d: { id: string }) => d.id)).toEqual([attempts[2], attempts[1]]);
    expect(first.body.nextCursor).toBe(attempts[1]);
    const second = await s.api("GET", `/api/v1/channels/${created.id}/deliveries?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ items: [expect.objectContaining({ id: attempts[0] })], nextCursor: null });
  });

  it("documents the channel routes in the OpenAPI document", async () => {
    const doc = (await s.api("GET", "/api/v1/openapi.json", undefined, null)).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/v1/channels", "/api/v1/channels/{id}", "/api/v1/channels/{id}/test", "/api/v1/channels/{id}/deliveries"]));
    expect(doc.paths["/api/v1/channels"].post.requestBody).toBeDefined();
  });
});
