// Retention: the newest runs and pings of each job are kept, failures longer than successes. Never
// removed: a running run, or anything of a job from the week before its oldest open incident (the
// incident's evidence). A pass handles a bounded slice of jobs (round robin by id), so its cost
// does not grow with the number of jobs.
import type { Database } from "./db.ts";
import { asDate, read, write } from "./sql.ts";

export const RETENTION = {
  /** Succeeded and skipped runs kept per job. */
  goodRuns: Number(process.env.DEADBOLT_KEEP_RUNS ?? 1000),
  /** Failed and abandoned runs kept per job. */
  badRuns: Number(process.env.DEADBOLT_KEEP_FAILED_RUNS ?? 5000),
  pings: Number(process.env.DEADBOLT_KEEP_PINGS ?? 2000),
  leaseEvents: 1000,
  jobsPerPass: 50,
};

const EVIDENCE_MS = 7 * 86_400_000;
let cursor = "";

export interface PruneStats {
  jobs: number;
  runs: number;
  pings: number;
  leaseEvents: number;
}

async function pruneRuns(db: Database, jobId: string, outcomes: string[], keep: number, protectFrom: Date | null): Promise<number> {
  return write(db, async (tx) => {
    const list = outcomes.map(() => "?").join(", ");
    const boundary = await tx.one<{ id: string }>(`SELECT "id" FROM "Run" WHERE "jobId" = ? AND "outcome" IN (${list}) ORDER BY "id" DESC LIMIT 1 OFFSET ?`, [jobId, ...outcomes, keep - 1]);
    if (!boundary) return 0;
    return tx.run(
      `DELETE FROM "Run" WHERE "jobId" = ? AND "outcome" IN (${list}) AND "id" < ?${protectFrom ? ` AND "startedAt" < ?` : ""}`,
      [jobId, ...outcomes, boundary.id, ...(protectFrom ? [protectFrom] : [])],
    );
  });
}

export async function pruneLedger(db: Database, now = new Date(), jobsPerPass = RETENTION.jobsPerPass): Promise<PruneStats> {
  const stats: PruneStats = { jobs: 0, runs: 0, pings: 0, leaseEvents: 0 };
  const jobs = await read(db, (tx) =>
    tx.all<{ id: string; slug: string; oldestOpen: unknown }>(
      `SELECT "id", "slug", (SELECT MIN("openedAt") FROM "Incident" i WHERE i."jobId" = "Job"."id" AND i."status" = 'open') AS "oldestOpen"
         FROM "Job" WHERE "id" > ? ORDER BY "id" LIMIT ?`,
      [cursor, jobsPerPass],
    ),
  );
  cursor = jobs.length < jobsPerPass ? "" : jobs[jobs.length - 1].id;
  for (const job of jobs) {
    const oldestOpen = asDate(job.oldestOpen);
    const protectFrom = oldestOpen ? new Date(Math.min(oldestOpen.getTime(), now.getTime()) - EVIDENCE_MS) : null;
    stats.runs += await pruneRuns(db, job.id, ["succeeded", "skipped_lease_held", "skipped_slot_done"], RETENTION.goodRuns, protectFrom);
    stats.runs += await pruneRuns(db, job.id, ["failed", "abandoned"], RETENTION.badRuns, protectFrom);
    stats.pings += await write(db, async (tx) => {
      const boundary = await tx.one<{ id: string }>(`SELECT "id" FROM "Ping" WHERE "jobId" = ? ORDER BY "id" DESC LIMIT 1 OFFSET ?`, [job.id, RETENTION.pings - 1]);
      if (!boundary) return 0;
      return tx.run(`DELETE FROM "Ping" WHERE "jobId" = ? AND "id" < ?${protectFrom ? ` AND "receivedAt" < ?` : ""}`, [job.id, boundary.id, ...(protectFrom ? [protectFrom] : [])]);
    });
    stats.leaseEvents += await write(db, async (tx) => {
      const name = `job:${job.slug}`;
      const boundary = await tx.one<{ id: string }>(`SELECT "id" FROM "LeaseEvent" WHERE "leaseName" = ? ORDER BY "id" DESC LIMIT 1 OFFSET ?`, [name, RETENTION.leaseEvents - 1]);
      return boundary ? tx.run(`DELETE FROM "LeaseEvent" WHERE "leaseName" = ? AND "id" < ?`, [name, boundary.id]) : 0;
    });
    stats.jobs++;
  }
  return stats;
}
