import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pruneLedger, RETENTION } from "../../lib/server/prune-ledger.ts";
import { newId } from "../../lib/server/ids.ts";
import { dialects } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

describe.each(dialects)("retention on %s", (dialect) => {
  let s: TestServer;
  const saved = { ...RETENTION };
  beforeAll(async () => {
    s = await startTestServer(dialect);
    Object.assign(RETENTION, { goodRuns: 10, badRuns: 5, pings: 8 });
  });
  afterAll(async () => {
    Object.assign(RETENTION, saved);
    await s?.close();
  });

  async function seedRuns(slug: string, startedAt: (i: number) => Date) {
    const job = (await s.api("POST", "/api/v1/jobs", { slug, schedule: { every: 60 } })).body;
    const { id: jobId } = await s.db.prisma.job.findUniqueOrThrow({ where: { slug } });
    const outcomes = [...Array(30).fill("succeeded"), ...Array(12).fill("failed"), "running"];
    for (const [i, outcome] of outcomes.entries()) {
      await s.db.prisma.run.create({ data: { id: newId(), jobId, slot: startedAt(i), source: "ping", outcome, startedAt: startedAt(i), createdAt: startedAt(i), host: `h${i}` } });
    }
    for (let i = 0; i < 20; i++) await fetch(`${s.url}/ping/${job.pingKey}/log`, { method: "POST", body: `line ${i}` });
    return jobId;
  }

  it("keeps the newest runs per job, failures longer than successes, and never a running run", async () => {
    const old = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i));
    const jobId = await seedRuns("chatty", old);
    await pruneLedger(s.db, new Date("2026-06-01T00:00:00Z"), 1000);
    const left = await s.db.prisma.run.groupBy({ by: ["outcome"], where: { jobId }, _count: true });
    expect(Object.fromEntries(left.map((g) => [g.outcome, g._count]))).toEqual({ succeeded: 10, failed: 5, running: 1 });
    // The newest are the ones kept.
    const kept = await s.db.prisma.run.findMany({ where: { jobId, outcome: "succeeded" }, orderBy: { id: "asc" } });
    expect(kept[0].host).toBe("h20");
    expect(await s.db.prisma.ping.count({ where: { jobId } })).toBe(8);
  });

  it("keeps an open incident's evidence: nothing from the week before it opened is pruned", async () => {
    const recent = (i: number) => new Date(Date.UTC(2026, 5, 1, 0, i));
    const jobId = await seedRuns("incident-evidence", recent);
    await s.db.prisma.incident.create({ data: { id: newId(), jobId, kind: "failed", status: "open", openKey: `${jobId}:failed`, summary: "x", evidence: "{}", openedAt: new Date("2026-06-01T01:00:00Z") } });
    await pruneLedger(s.db, new Date("2026-06-02T00:00:00Z"), 1000);
    expect(await s.db.prisma.run.count({ where: { jobId } })).toBe(43);
  });
});
