import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialects } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

describe.each(dialects)("run claims on %s", (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
    for (const slug of ["billing-charge", "hourly", "refusals", "expiry", "takeover", "ledger", "explicit", "big-output"]) {
      const res = await s.api("POST", "/api/v1/jobs", { slug, schedule: { every: 3600 }, leaseTtlSeconds: 60, maxRuntimeSeconds: 30 });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => s?.close());

  const claim = (slug: string, body: Record<string, unknown> = {}) => s.api("POST", `/api/v1/jobs/${slug}/runs`, body);
  const finish = (runId: string, body: Record<string, unknown>) => s.api("POST", `/api/v1/runs/${runId}/finish`, body);
  const runsOf = async (slug: string) => (await s.api("GET", `/api/v1/jobs/${slug}/runs?limit=500`)).body.items as { outcome: string; holder: string; slot: string }[];
  const expireLease = (slug: string) => s.db.prisma.lease.update({ where: { name: `job:${slug}` }, data: { expiresAt: new Date(Date.now() - 1000) } });

  it("claims the current slot with tokens and an idempotency key", async () => {
    const res = await claim("billing-charge", { holder: "web-1" });
    expect(res.status).toBe(201);
    // The slot a claim now belongs to: up to 60 s early counts for the coming hour (the slot tolerance).
    const hour = Math.floor((Date.now() + 60_000) / 3_600_000) * 3_600_000;
    expect(res.body).toMatchObject({ leaseName: "job:billing-charge", fencingToken: 1, slot: new Date(hour).toISOString() });
    expect(res.body.idempotencyKey).toBe(`billing-charge:${new Date(hour).toISOString()}`);
    expect(res.body.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it("refuses a second host while the first runs (lease_held), and records the refusal", async () => {
    const res = await claim("billing-charge", { holder: "web-2" });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ reason: "lease_held", holder: "web-1", error: { code: "lease_held" } });
    const runs = await runsOf("billing-charge");
    expect(runs.map((r) => [r.outcome, r.holder])).toEqual([["skipped_lease_held", "web-2"], ["running", "web-1"]]);
  });

  it("records exit code, output and duration on finish, and frees the lease", async () => {
    const [running] = (await runsOf("billing-charge")).filter((r) => r.outcome === "running") as unknown as { id: string }[];
    const res = await finish(running.id, { exitCode: 0, output: "charged 3 invoices\n" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: "succeeded", exitCode: 0, leaseLost: false });
    const detail = (await s.api("GET", `/api/v1/runs/${running.id}`)).body;
    expect(detail).toMatchObject({ outcome: "succeeded", exitCode: 0, output: "charged 3 invoices\n", job: "billing-charge" });
    expect(detail.durationMs).toBeGreaterThanOrEqual(0);
    expect(detail.leaseEvents.map((e: { kind: string }) => e.kind)).toEqual(["acquired", "released"]);
    expect((await s.api("GET", "/api/v1/leases/job:billing-charge")).body.state).toBe("free");
  });

  it("refuses the same slot once it has run (slot_done, seed 004), naming who ran it", async () => {
    const res = await claim("billing-charge", { holder: "web-3" });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ reason: "slot_done", error: { code: "slot_done" }, doneBy: { holder: "web-1", outcome: "succeeded" } });
    const outcomes = (await runsOf("billing-charge")).map((r) => r.outcome);
    expect(outcomes).toEqual(["skipped_slot_done", "skipped_lease_held", "succeeded"]);
  });

  it("gives every claim of one slot the same idempotency key", async () => {
    const slot = "2026-01-05T10:00:00.000Z";
    const first = await claim("explicit", { slot, holder: "a" });
    expect(first.status).toBe(201);
    expect(first.body.idempotencyKey).toBe(`explicit:${slot}`);
    await finish(first.body.runId, { exitCode: 1 });
    const second = await claim("explicit", { slot: "2026-01-05T11:00:00+01:00", holder: "b" });
    expect(second.status).toBe(409);
    expect(second.body.reason).toBe("slot_done");
    const other = await claim("explicit", { slot: "2026-01-05T11:00:00Z", holder: "b" });
    expect(other.status).toBe(201);
    expect(other.body.idempotencyKey).toBe("explicit:2026-01-05T11:00:00.000Z");
    expect(other.body.fencingToken).toBe(first.body.fencingToken + 1);
  });

  it("keeps a run's lease alive through heartbeats", async () => {
    const run = (await claim("hourly", { holder: "a", ttlSeconds: 5 })).body;
    const beat = await s.api("POST", `/api/v1/runs/${run.runId}/heartbeat`, { ttlSeconds: 300 });
    expect(beat.status).toBe(200);
    expect(Date.parse(beat.body.expiresAt) - Date.now()).toBeGreaterThan(290_000);
    const stored = await s.db.prisma.run.findUniqueOrThrow({ where: { id: run.runId } });
    expect(stored.leaseExpiresAt!.toISOString()).toBe(beat.body.expiresAt);
    expect((await finish(run.runId, { exitCode: 0 })).status).toBe(200);
  });

  it("tells a run whose lease expired so on heartbeat (409) and marks it", async () => {
    const run = (await claim("expiry", { holder: "a" })).body;
    await expireLease("expiry");
    const beat = await s.api("POST", `/api/v1/runs/${run.runId}/heartbeat`);
    expect(beat.status).toBe(409);
    expect(beat.body.error.code).toBe("lease_lost");
    const stored = await s.db.prisma.run.findUniqueOrThrow({ where: { id: run.runId } });
    expect(stored.leaseLostAt).not.toBeNull();
    expect(stored.outcome).toBe("running");
  });

  it("records the finish of a run whose lease expired, but answers 409 lease_lost", async () => {
    const [open] = await s.db.prisma.run.findMany({ where: { job: { slug: "expiry" }, outcome: "running" } });
    const res = await finish(open.id, { exitCode: 0, output: "done late" });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("lease_lost");
    expect(res.body.run).toMatchObject({ outcome: "succeeded", leaseLost: true });
    const stored = await s.db.prisma.run.findUniqueOrThrow({ where: { id: open.id } });
    expect(stored).toMatchObject({ outcome: "succeeded", exitCode: 0, output: "done late" });
    expect(stored.leaseLostAt).not.toBeNull();
  });

  it("tells a run whose lease was taken over so, and leaves the new holder's lease alone", async () => {
    const a = (await claim("takeover", { holder: "a", slot: "2026-02-01T00:00:00Z" })).body;
    await expireLease("takeover");
    const b = await claim("takeover", { holder: "b", slot: "2026-02-01T01:00:00Z" });
    expect(b.status).toBe(201);
    const late = await finish(a.runId, { exitCode: 0 });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: { code: "lease_lost" }, holder: "b" });
    expect((await s.api("GET", "/api/v1/leases/job:takeover")).body).toMatchObject({ state: "held", holder: "b", fencingToken: b.body.fencingToken });
    expect((await s.api("POST", `/api/v1/runs/${b.body.runId}/heartbeat`)).status).toBe(200);
  });

  it("answers a retried finish the same way, and refuses a different second finish", async () => {
    const run = (await claim("refusals", { holder: "a" })).body;
    expect((await finish(run.runId, { exitCode: 2 })).body.outcome).toBe("failed");
    const retry = await finish(run.runId, { exitCode: 2 });
    expect(retry.status).toBe(200);
    expect(retry.body.outcome).toBe("failed");
    const different = await finish(run.runId, { exitCode: 0 });
    expect(different.status).toBe(409);
    expect(different.body.error.code).toBe("conflict");
  });

  it("keeps only the last 100 KB of output", async () => {
    const run = (await claim("big-output", { holder: "a" })).body;
    const output = "x".repeat(60 * 1024) + "y".repeat(60 * 1024);
    expect((await finish(run.runId, { exitCode: 0, output })).status).toBe(200);
    const stored = await s.db.prisma.run.findUniqueOrThrow({ where: { id: run.runId } });
    expect(stored.output!.length).toBe(100 * 1024);
    expect(stored.output!.endsWith("y".repeat(60 * 1024))).toBe(true);
  });

  it("pages a job's runs newest first with a keyset cursor", async () => {
    for (let i = 0; i < 7; i++) {
      const run = (await claim("ledger", { holder: `h${i}`, slot: new Date(Date.UTC(2026, 0, 1, i)).toISOString() })).body;
      await finish(run.runId, { exitCode: 0 });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: { holder: string }[]; nextCursor: string | null } } = await s.api("GET", `/api/v1/jobs/ledger/runs?limit=3${cursor ? `&cursor=${cursor}` : ""}`, undefined, s.readKey);
      seen.push(...page.body.items.map((r) => r.holder));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(["h6", "h5", "h4", "h3", "h2", "h1", "h0"]);
  });

  it("answers 404 for unknown jobs and runs, 409 for heartbeats of a refused run", async () => {
    expect((await claim("no-such-job")).status).toBe(404);
    expect((await s.api("POST", "/api/v1/runs/00000000-0000-7000-8000-000000000000/heartbeat")).status).toBe(404);
    const refused = await claim("billing-charge", { holder: "z" });
    const beat = await s.api("POST", `/api/v1/runs/${refused.body.runId}/heartbeat`);
    expect(beat.status).toBe(409);
    expect(beat.body.error.code).toBe("conflict");
  });

  it("validates claims: a bad slot is a 422 naming the field", async () => {
    const res = await claim("billing-charge", { slot: "yesterday" });
    expect(res.status).toBe(422);
    expect(res.body.error.field).toBe("slot");
  });
});

describe.each(dialects)("retried claims on %s", (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
    await s.api("POST", "/api/v1/jobs", { slug: "retried", schedule: { every: 3600 } });
  });
  afterAll(async () => s?.close());

  it("answers a retried claim (same requestId) with the same run instead of refusing it", async () => {
    const body = { holder: "web-1", requestId: "4b1d8f7e-0c55-4c3e-9a61-2f0e6c1d9a10" };
    const first = await s.api("POST", "/api/v1/jobs/retried/runs", body);
    const retry = await s.api("POST", "/api/v1/jobs/retried/runs", body);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    const other = await s.api("POST", "/api/v1/jobs/retried/runs", { holder: "web-2", requestId: "9f0e1d2c-3b4a-4596-8877-665544332211" });
    expect(other.status).toBe(409);
    const runs = (await s.api("GET", "/api/v1/jobs/retried/runs")).body.items;
    expect(runs.map((r: { outcome: string }) => r.outcome)).toEqual(["skipped_lease_held", "running"]);
    // Once the run has ended, its claim cannot be replayed into a second execution.
    await s.api("POST", `/api/v1/runs/${first.body.runId}/finish`, { exitCode: 0 });
    const late = await s.api("POST", "/api/v1/jobs/retried/runs", body);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("conflict");
  });
});
