// The whole alert path in real time: the server process with its checker, a real SMTP server and a
// real webhook receiver. A job misses its slot → one email and one signed webhook; it recovers →
// one resolution each. Then two checker processes on one PostgreSQL database: still one of each.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, dialects, type TestDatabase } from "../support/databases.ts";
import { spawnServer, type ServerProcess } from "../support/process-server.ts";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp.ts";
import { signatureIsValid, startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

const KEY = "alerts-flow-bootstrap-key-0123456789";
const SECRET = "webhook-signing-secret-0123456789";

async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function spawnChecker(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "workers/checker.ts"], { env: { ...(process.env as Record<string, string>), ...env } as unknown as NodeJS.ProcessEnv, stdio: ["ignore", "ignore", "inherit"] });
}

async function scenario(url: string, smtp: TestSmtpServer, hook: WebhookReceiver) {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  const email = await api("POST", "/api/v1/channels", { name: "ops mail", kind: "email", address: "oncall@example.com" });
  const webhook = await api("POST", "/api/v1/channels", { name: "ops hook", kind: "webhook", url: hook.url, secret: SECRET });
  expect([email.status, webhook.status]).toEqual([201, 201]);
  const job = await api("POST", "/api/v1/jobs", { slug: "nightly-sync", schedule: { every: 2 }, graceSeconds: 1, channelIds: [email.body.id, webhook.body.id] });
  expect(job.status).toBe(201);

  // Nothing pings: the first slot passes its grace.
  await until("the missed alert by webhook and email", () => hook.requests.length >= 1 && smtp.messages.length >= 1);
  const incidents = await api("GET", "/api/v1/jobs/nightly-sync/incidents?status=open");
  expect(incidents.body.items.map((i: { kind: string }) => i.kind)).toEqual(["missed"]);
  // Several more ticks and missed slots: still one alert each.
  await new Promise((r) => setTimeout(r, 4000));
  expect(hook.requests).toHaveLength(1);
  expect(smtp.messages).toHaveLength(1);
  const opened = hook.requests[0];
  expect(signatureIsValid(opened, SECRET)).toBe(true);
  expect(JSON.parse(opened.body)).toMatchObject({ event: "opened", incident: { kind: "missed" }, job: { slug: "nightly-sync" } });
  expect(smtp.messages[0].rcptTo).toEqual(["oncall@example.com"]);
  expect(smtp.messages[0].subject).toContain("nightly-sync");

  // It recovers (and runs hourly from now on, so no further slot is missed during the test).
  expect((await api("PATCH", "/api/v1/jobs/nightly-sync", { schedule: { every: 3600 } })).status).toBe(200);
  expect((await fetch(`${url}/ping/${job.body.pingKey}`, { method: "POST" })).status).toBe(200);
  await until("the resolution by webhook and email", () => hook.requests.length >= 2 && smtp.messages.length >= 2);
  await new Promise((r) => setTimeout(r, 1500));
  expect(hook.requests).toHaveLength(2);
  expect(smtp.messages).toHaveLength(2);
  expect(JSON.parse(hook.requests[1].body)).toMatchObject({ event: "resolved", incident: { kind: "missed", status: "resolved" } });
  expect(smtp.messages[1].subject).toMatch(/recovered/);
  // Every attempt is in the delivery log.
  const deliveries = await api("GET", `/api/v1/channels/${webhook.body.id}/deliveries`);
  expect(deliveries.body.items.map((d: { event: string; ok: boolean }) => [d.event, d.ok])).toEqual([["resolved", true], ["opened", true]]);
}

describe.each(dialects)("alerts end to end on %s", (dialect) => {
  let smtp: TestSmtpServer;
  let hook: WebhookReceiver;
  let database: TestDatabase;
  let server: ServerProcess;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    hook = await startWebhookReceiver();
    database = await createTestDatabase(dialect);
    server = await spawnServer({
      DATABASE_URL: database.url, DEADBOLT_BOOTSTRAP_API_KEY: KEY, DEADBOLT_DASHBOARD: "off", DEADBOLT_CHECK_EVERY: "1",
      SMTP_URL: smtp.url, ALERT_FROM: "deadbolt@example.com",
    });
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([smtp?.close(), hook?.close()]);
    await database?.drop();
  });

  it("sends one email and one signed webhook when a slot is missed, and one of each on recovery", async () => {
    await scenario(server.url, smtp, hook);
  }, 60_000);
});

describe.runIf(dialects.includes("postgresql"))("two checker processes on one PostgreSQL database", () => {
  let smtp: TestSmtpServer;
  let hook: WebhookReceiver;
  let database: TestDatabase;
  let server: ServerProcess;
  const checkers: ChildProcess[] = [];

  beforeAll(async () => {
    smtp = await startSmtpServer();
    hook = await startWebhookReceiver();
    database = await createTestDatabase("postgresql");
    const env = { DATABASE_URL: database.url, SMTP_URL: smtp.url, ALERT_FROM: "deadbolt@example.com", DEADBOLT_CHECK_EVERY: "1" };
    server = await spawnServer({ ...env, DEADBOLT_BOOTSTRAP_API_KEY: KEY, DEADBOLT_DASHBOARD: "off", DEADBOLT_WORKER: "off" });
    checkers.push(spawnChecker(env), spawnChecker(env));
  });
  afterAll(async () => {
    for (const c of checkers) c.kill("SIGTERM");
    await server?.stop();
    await Promise.all([smtp?.close(), hook?.close()]);
    await database?.drop();
  });

  it("produce one set of notifications between them", async () => {
    await scenario(server.url, smtp, hook);
  }, 60_000);
});
