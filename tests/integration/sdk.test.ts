// The TypeScript SDK against a real server: withLease (seed 002's decorator), runJob, validateFence.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Deadbolt, DeadboltUnreachableError, LeaseLostError, runJob, validateFence } from "../../cli/sdk.ts";
import { dialects } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with the signal's reason when it fires; rejects if it has not fired within `ms`. */
const aborted = (signal: AbortSignal, ms: number) =>
  new Promise<unknown>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`signal did not fire within ${ms} ms`)), ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(signal.reason);
    });
  });

describe.each(dialects)("the SDK on %s", (dialect) => {
  let s: TestServer;
  let deadbolt: Deadbolt;
  const warnings: string[] = [];
  beforeAll(async () => {
    s = await startTestServer(dialect);
    deadbolt = new Deadbolt({ url: s.url, apiKey: s.writeKey, holder: "worker-1", onWarning: (m) => warnings.push(m) });
  });
  afterAll(async () => s?.close());

  let jobs = 0;
  async function newJob(): Promise<string> {
    const slug = `sdk-job-${++jobs}`;
    expect((await s.api("POST", "/api/v1/jobs", { slug, schedule: { every: 3600 }, leaseTtlSeconds: 60 })).status).toBe(201);
    return slug;
  }
  const lease = async (name: string) => (await s.api("GET", `/api/v1/leases/${name}`)).body;
  /** Force a loss instead of waiting for it: the lease's time is up. */
  const expireLease = (name: string) => s.db.prisma.lease.update({ where: { name }, data: { expiresAt: new Date(Date.now() - 1000) } });
  const runDetail = async (id: string) => (await s.api("GET", `/api/v1/runs/${id}`)).body;

  it.concurrent("runs fn once under the lease, hands it the fencing token, and releases the lease after", async ({ expect }) => {
    let calls = 0;
    const result = await deadbolt.withLease("reports:nightly", { ttlSeconds: 30 }, async ({ fencingToken, token, signal }) => {
      calls++;
      const during = await lease("reports:nightly");
      expect(during).toMatchObject({ state: "held", holder: "worker-1", fencingToken });
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(signal.aborted).toBe(false);
      return "42 rows";
    });
    expect(calls).toBe(1);
    expect(result).toEqual({ ran: true, result: "42 rows", fencingToken: 1, leaseLost: false });
    const after = await lease("reports:nightly");
    expect(after.state).toBe("free");
    expect(after.events.map((e: { kind: string }) => e.kind)).toContain("released");
  });

  it.concurrent("returns ran: false, naming the holder, to a second withLease while the first runs", async ({ expect }) => {
    let secondCalled = false;
    const first = await deadbolt.withLease("sync:inventory", { ttlSeconds: 30 }, async () => {
      const other = new Deadbolt({ url: s.url, apiKey: s.writeKey, holder: "worker-2" });
      const second = await other.withLease("sync:inventory", { ttlSeconds: 30 }, () => {
        secondCalled = true;
      });
      expect(second).toMatchObject({ ran: false, holder: "worker-1" });
      return "first";
    });
    expect(first).toMatchObject({ ran: true, result: "first" });
    expect(secondCalled).toBe(false);
  });

  it.concurrent("keeps the lease alive past its TTL while fn runs", async ({ expect }) => {
    const result = await deadbolt.withLease("long-task", { ttlSeconds: 2 }, async ({ signal }) => {
      await sleep(3500);
      return signal.aborted;
    });
    expect(result).toMatchObject({ ran: true, result: false, leaseLost: false });
    const events = (await lease("long-task")).events.map((e: { kind: string }) => e.kind);
    expect(events.filter((k: string) => k === "renewed").length).toBeGreaterThanOrEqual(2);
    expect(events).not.toContain("renew_refused");
  });

  it.concurrent("fires the AbortSignal when a heartbeat finds the lease lost", async ({ expect }) => {
    const result = await deadbolt.withLease("lossy", { ttlSeconds: 2 }, async ({ signal }) => {
      await expireLease("lossy");
      const lostAt = Date.now();
      const reason = await aborted(signal, 4000);
      return { reason, afterMs: Date.now() - lostAt };
    });
    expect(result.ran).toBe(true);
    if (!result.ran) return;
    expect(result.leaseLost).toBe(true);
    expect(result.result.reason).toBeInstanceOf(LeaseLostError);
    expect(String((result.result.reason as Error).message)).toMatch(/lease 'lossy'/);
    // The next heartbeat (every second for a 2 s TTL) told it.
    expect(result.result.afterMs).toBeLessThan(2500);
    expect((await lease("lossy")).events.map((e: { kind: string }) => e.kind)).toContain("renew_refused");
  });

  it.concurrent("validates the current fencing token and refuses it after a takeover", async ({ expect }) => {
    const first = await deadbolt.acquireLease("inventory-writes", { ttlSeconds: 30 });
    if (!first.acquired) throw new Error("not acquired");
    expect(await deadbolt.validateFence("inventory-writes", first.fencingToken)).toBe(true);
    await expireLease("inventory-writes");
    const second = await deadbolt.acquireLease("inventory-writes", { ttlSeconds: 30, holder: "worker-2" });
    if (!second.acquired) throw new Error("not acquired");
    expect(second.fencingToken).toBe(first.fencingToken + 1);
    expect(await deadbolt.validateFence("inventory-writes", first.fencingToken)).toBe(false);
    expect(await deadbolt.validateFence("inventory-writes", second.fencingToken)).toBe(true);
    expect(await deadbolt.validateFence("never-acquired", 1)).toBe(false);
  });

  it.concurrent("hands runJob's fn a stable idempotency key, and refuses the slot once it ran", async ({ expect }) => {
    const slug = await newJob();
    const first = await deadbolt.runJob(slug, (run) => ({ ...run, signal: undefined }), { slot: "2026-02-01T06:00:00Z" });
    if (!first.ran) throw new Error(`not run: ${first.message}`);
    expect(first.result).toMatchObject({ runId: first.runId, leaseName: `job:${slug}`, slot: "2026-02-01T06:00:00.000Z", idempotencyKey: `${slug}:2026-02-01T06:00:00.000Z` });
    expect(first.result.fencingToken).toBeGreaterThan(0);
    expect(first).toMatchObject({ recorded: true, leaseLost: false });
    expect(await runDetail(first.runId)).toMatchObject({ outcome: "succeeded", exitCode: 0, idempotencyKey: `${slug}:2026-02-01T06:00:00.000Z` });

    // The same instant, written another way, is the same slot.
    let called = false;
    const second = await deadbolt.runJob(slug, () => (called = true), { slot: "2026-02-01T07:00:00+01:00", holder: "worker-2" });
    expect(second).toMatchObject({ ran: false, reason: "slot_done", slot: "2026-02-01T06:00:00.000Z", holder: "worker-1" });
    expect(called).toBe(false);
  });

  it.concurrent("records a thrown error as a failed run with its message, and rethrows it", async ({ expect }) => {
    const slug = await newJob();
    let runId = "";
    await expect(
      deadbolt.runJob(slug, (run) => {
        runId = run.runId;
        throw new Error("card declined for invoice 1042");
      }),
    ).rejects.toThrow("card declined for invoice 1042");
    const run = await runDetail(runId);
    expect(run).toMatchObject({ outcome: "failed", exitCode: 1, holder: "worker-1" });
    expect(run.output).toContain("card declined for invoice 1042");
    expect((await lease(`job:${slug}`)).state).toBe("free");
  });

  it.concurrent("fires runJob's signal when its run's lease is lost, and marks the run", async ({ expect }) => {
    const slug = await newJob();
    const result = await deadbolt.runJob(
      slug,
      async ({ signal }) => {
        await expireLease(`job:${slug}`);
        return (await aborted(signal, 4000)) instanceof LeaseLostError;
      },
      { ttlSeconds: 2 },
    );
    expect(result).toMatchObject({ ran: true, result: true, leaseLost: true });
    if (!result.ran) return;
    const run = await runDetail(result.runId);
    expect(run.leaseLostAt).not.toBeNull();
    expect(run.outcome).toBe("succeeded");
  });

  it.concurrent("offers module functions configured from DEADBOLT_URL and DEADBOLT_API_KEY", async ({ expect }) => {
    const slug = await newJob();
    const saved = { url: process.env.DEADBOLT_URL, key: process.env.DEADBOLT_API_KEY };
    process.env.DEADBOLT_URL = s.url;
    process.env.DEADBOLT_API_KEY = s.writeKey;
    try {
      const result = await runJob(slug, ({ fencingToken }) => fencingToken);
      expect(result).toMatchObject({ ran: true, recorded: true });
      if (!result.ran) return;
      expect(await validateFence(`job:${slug}`, result.result)).toBe(false); // finished: released
    } finally {
      process.env.DEADBOLT_URL = saved.url;
      process.env.DEADBOLT_API_KEY = saved.key;
      if (saved.url === undefined) delete process.env.DEADBOLT_URL;
      if (saved.key === undefined) delete process.env.DEADBOLT_API_KEY;
    }
  });
});

describe("the SDK without a server", () => {
  it("retries within its budget, then says Deadbolt is unreachable", async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    await new Promise((r) => server.close(r));
    const retries: number[] = [];
    const client = new Deadbolt({ url, apiKey: "dbk_x", retryForMs: 1200, onRetry: (_failure, attempt) => retries.push(attempt) });
    let ran = false;
    const error = await client.withLease("anything", { ttlSeconds: 10 }, () => (ran = true)).catch((e) => e);
    expect(error).toBeInstanceOf(DeadboltUnreachableError);
    expect(error.message).toMatch(/is unreachable: connection refused after [2-9] attempts/);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(ran).toBe(false);
  });
});
