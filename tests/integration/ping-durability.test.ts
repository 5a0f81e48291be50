// "Every acknowledged ping is durable": the server answers a ping only after its COMMIT, so a
// SIGKILL mid-load may lose pings that were never answered, never one that got a 200.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, dialects, type TestDatabase } from "../support/databases.ts";
import { spawnServer, type ServerProcess } from "../support/process-server.ts";
import { openDatabase } from "../../lib/server/db.ts";

const bootstrapKey = "bootstrap-key-for-the-ping-durability-test-0123";
const IN_FLIGHT = 32;
const JOBS = 8;
// The kill comes at least this long into the load, and once this many pings were answered (the
// first ones wait for JIT and, on PostgreSQL, for the pool's connections).
const KILL_AFTER_MS = 400;
const KILL_AFTER_ACKS = 200;

describe.each(dialects)("ping durability on %s", (dialect) => {
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  const env = () => ({ DATABASE_URL: database.url, DEADBOLT_BOOTSTRAP_API_KEY: bootstrapKey, DEADBOLT_DASHBOARD: "off", DEADBOLT_WORKER: "off" });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await server?.stop("SIGKILL");
    await database?.drop();
  });

  it("keeps every ping it answered with 200 when the server is killed mid-load", async () => {
    server = await spawnServer(env());
    // A few jobs, so the load is not all queued on one job's row (PostgreSQL locks it per ping).
    const pingKeys: string[] = [];
    for (let j = 0; j < JOBS; j++) {
      const created = await fetch(`${server.url}/api/v1/jobs`, {
        method: "POST", headers: { authorization: `Bearer ${bootstrapKey}`, "content-type": "application/json" },
        body: JSON.stringify({ slug: `hammered-${j}`, schedule: { every: 60 } }),
      });
      expect(created.status).toBe(201);
      pingKeys.push((await created.json()).pingKey);
    }

    // Each ping carries a unique rid, so each acknowledged ping can be looked for after the crash.
    const acknowledged: string[] = [];
    let failures = 0;
    const refused: number[] = [];
    const url = server.url;
    const worker = async (w: number) => {
      for (let i = 0; ; i++) {
        const rid = `w${w}-${i}`;
        try {
          const res = await fetch(`${url}/ping/${pingKeys[w % JOBS]}?rid=${rid}`, { method: "POST", body: `ping ${rid}` });
          if (res.status === 200 && (await res.text()) === "OK") acknowledged.push(rid);
          else refused.push(res.status);
        } catch {
          failures++;
          return; // the server is gone
        }
      }
    };
    const load = Promise.all(Array.from({ length: IN_FLIGHT }, (_, w) => worker(w)));
    const loadStartedAt = Date.now();
    while (Date.now() - loadStartedAt < KILL_AFTER_MS || (acknowledged.length < KILL_AFTER_ACKS && Date.now() - loadStartedAt < 12_000)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await server.stop("SIGKILL")).toBe("SIGKILL");
    await load;

    // Enough pings were answered before the kill, and some were cut off in flight, for this to test something.
    expect(acknowledged.length).toBeGreaterThan(100);
    expect(failures).toBe(IN_FLIGHT);
    // Until the kill, every ping was answered, and answered 200 (no lock timeout, no deadlock).
    expect(refused).toEqual([]);

    // The server comes back on the same database and takes pings again.
    server = await spawnServer(env());
    expect((await fetch(`${server.url}/ping/${pingKeys[0]}?rid=after-restart`)).status).toBe(200);
    await server.stop();

    const db = openDatabase(database.url);
    try {
      const stored = new Set((await db.prisma.ping.findMany({ select: { rid: true } })).map((p) => p.rid));
      const runs = new Set((await db.prisma.run.findMany({ select: { rid: true } })).map((r) => r.rid));
      expect(stored.has("after-restart")).toBe(true);
      expect(stored.size - 1).toBeGreaterThanOrEqual(acknowledged.length);
      const missing = acknowledged.filter((rid) => !stored.has(rid));
      expect(missing).toEqual([]);
      // Each answered ping's run was committed with it.
      expect(acknowledged.filter((rid) => !runs.has(rid))).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
