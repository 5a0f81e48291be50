import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialects } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

describe.each(dialects)("lease API on %s", (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(async () => s?.close());

  const acquire = (name: string, body: Record<string, unknown> = {}) => s.api("POST", `/api/v1/leases/${name}/acquire`, { ttlSeconds: 30, ...body });
  /** Moves a lease's expiry into the past, as if its TTL had run out. */
  const expire = async (name: string) => {
    await s.db.prisma.lease.update({ where: { name }, data: { expiresAt: new Date(Date.now() - 1000) } });
  };
  const events = async (name: string) => (await s.api("GET", `/api/v1/leases/${name}`)).body.events.map((e: { kind: string }) => e.kind).reverse();

  it("grants a free lease with a holder token and fencing token 1", async () => {
    const res = await acquire("report-export", { holder: "web-1" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ acquired: true, fencingToken: 1, holder: "web-1" });
    expect(res.body.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(25_000);
  });

  it("refuses a held lease at once with 409, naming the holder", async () => {
    const started = Date.now();
    const res = await acquire("report-export", { holder: "web-2" });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ acquired: false, holder: "web-1", error: { code: "lease_held" } });
    expect(res.body.expiresAt).toBeDefined();
  });

  it("releases only with the current token; a wrong token changes nothing", async () => {
    const first = await acquire("nightly", { holder: "a" });
    const wrong = await s.api("POST", "/api/v1/leases/nightly/release", { token: "not-the-token" });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error.code).toBe("lease_lost");
    expect((await s.api("GET", "/api/v1/leases/nightly")).body).toMatchObject({ state: "held", holder: "a" });
    const right = await s.api("POST", "/api/v1/leases/nightly/release", { token: first.body.token });
    expect(right.status).toBe(200);
    expect((await s.api("GET", "/api/v1/leases/nightly")).body.state).toBe("free");
    const again = await acquire("nightly", { holder: "b" });
    expect(again.body.fencingToken).toBe(2);
  });

  it("lets a stale holder's release leave the new holder's lease alone (seed 000)", async () => {
    const a = await acquire("renewal-reminders", { holder: "worker-a" });
    await expire("renewal-reminders");
    const b = await acquire("renewal-reminders", { holder: "worker-b" });
    expect(b.status).toBe(200);
    expect(b.body.fencingToken).toBe(a.body.fencingToken + 1);
    const stale = await s.api("POST", "/api/v1/leases/renewal-reminders/release", { token: a.body.token });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ holder: "worker-b", fencingToken: b.body.fencingToken });
    expect((await s.api("GET", "/api/v1/leases/renewal-reminders")).body).toMatchObject({ state: "held", holder: "worker-b" });
    expect(await events("renewal-reminders")).toEqual(["acquired", "expired", "takeover", "release_refused"]);
  });

  it("renews with the current token and refuses a lost one", async () => {
    const a = await acquire("sync", { holder: "a", ttlSeconds: 5 });
    const renewed = await s.api("POST", "/api/v1/leases/sync/renew", { token: a.body.token, ttlSeconds: 120 });
    expect(renewed.status).toBe(200);
    expect(Date.parse(renewed.body.expiresAt) - Date.now()).toBeGreaterThan(100_000);
    await expire("sync");
    const late = await s.api("POST", "/api/v1/leases/sync/renew", { token: a.body.token });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("lease_lost");
  });

  it("validates the current fencing token and rejects a stale one", async () => {
    const a = await acquire("inventory", { holder: "a" });
    expect((await s.api("POST", "/api/v1/leases/inventory/validate", { fencingToken: a.body.fencingToken })).status).toBe(200);
    await expire("inventory");
    const b = await acquire("inventory", { holder: "b" });
    const stale = await s.api("POST", "/api/v1/leases/inventory/validate", { fencingToken: a.body.fencingToken });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ valid: false, fencingToken: b.body.fencingToken });
    expect((await s.api("POST", "/api/v1/leases/inventory/validate", { fencingToken: b.body.fencingToken }, s.readKey)).status).toBe(200);
  });

  it("keeps a lease through minHoldSeconds after an early release (seed 002's interval gate)", async () => {
    const a = await acquire("interval-task", { holder: "a", minHoldSeconds: 600 });
    const released = await s.api("POST", "/api/v1/leases/interval-task/release", { token: a.body.token });
    expect(released.status).toBe(200);
    expect(Date.parse(released.body.freeAt) - Date.now()).toBeGreaterThan(590_000);
    const b = await acquire("interval-task", { holder: "b" });
    expect(b.status).toBe(409);
    expect((await s.api("GET", "/api/v1/leases/interval-task")).body.minHoldUntil).toBe(released.body.freeAt);
  });

  it("waits up to waitSeconds and gets the lease when its holder releases", async () => {
    const a = await acquire("waited", { holder: "a" });
    const waiting = acquire("waited", { holder: "b", waitSeconds: 5 });
    await new Promise((r) => setTimeout(r, 300));
    await s.api("POST", "/api/v1/leases/waited/release", { token: a.body.token });
    const b = await waiting;
    expect(b.status).toBe(200);
    expect(b.body.holder).toBe("b");
    expect(b.body.fencingToken).toBe(2);
  });

  it("gives up after waitSeconds and records one refusal, not one per poll", async () => {
    await acquire("busy", { holder: "a" });
    const started = Date.now();
    const b = await acquire("busy", { holder: "b", waitSeconds: 1 });
    expect(b.status).toBe(409);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(await events("busy")).toEqual(["acquired", "refused"]);
  });

  it("records every acquisition, refusal, renewal and release as an event", async () => {
    const a = await acquire("audited", { holder: "a" });
    await acquire("audited", { holder: "b" });
    await s.api("POST", "/api/v1/leases/audited/renew", { token: a.body.token });
    await s.api("POST", "/api/v1/leases/audited/release", { token: a.body.token });
    const detail = (await s.api("GET", "/api/v1/leases/audited")).body;
    expect(detail.events.map((e: { kind: string }) => e.kind).reverse()).toEqual(["acquired", "refused", "renewed", "released"]);
    expect(detail.events.at(-1)).toMatchObject({ kind: "acquired", holder: "a", fencingToken: 1 });
  });

  it("lists leases and answers 404 for an unknown one", async () => {
    const list = await s.api("GET", "/api/v1/leases?limit=500", undefined, s.readKey);
    expect(list.body.items.map((l: { name: string }) => l.name)).toEqual(expect.arrayContaining(["report-export", "nightly"]));
    const missing = await s.api("GET", "/api/v1/leases/never-made");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
  });

  it("refuses writes from a read-only key and bad input with the error shape", async () => {
    expect((await s.api("POST", "/api/v1/leases/x/acquire", { ttlSeconds: 5 }, s.readKey)).status).toBe(403);
    const noTtl = await s.api("POST", "/api/v1/leases/x/acquire", {});
    expect(noTtl.status).toBe(422);
    expect(noTtl.body.error.field).toBe("ttlSeconds");
    const badName = await s.api("POST", "/api/v1/leases/-bad!/acquire", { ttlSeconds: 5 });
    expect(badName.status).toBe(422);
  });
});
