// The checker's time-driven rules: what is due is read by deadline (indexed checkAt columns), so a
// tick's cost grows with the due work, not with the number of jobs. Every item is claimed with a
// conditional update checked by its count, so two checkers (or a checker racing a ping) never act
// on one deadline twice. An item that throws is pushed back a minute and logged; the tick goes on.
import type { Database } from "./db.ts";
import { nextDeadlineAfterMiss, slotOfDeadline } from "../domain/incidents.ts";
import { openIncident, toJobRef } from "./incident-ledger.ts";
import { scheduleOf } from "./job-view.ts";
import { isHeld, readLease, recordLeaseEvent } from "./lease-ledger.ts";
import { asDate, read, write, type Tx } from "./sql.ts";

export const DUE_BATCH = 5000;
const PUSH_BACK_MS = 60_000;

export interface CheckStats {
  jobsChecked: number;
  runsChecked: number;
  errors: number;
}

async function pushBack(db: Database, table: "Job" | "Run", id: string, now: Date, error: unknown) {
  console.error(`deadbolt checker: ${table} ${id} failed, retrying in a minute:`, error);
  await write(db, (tx) => tx.run(`UPDATE "${table}" SET "checkAt" = ? WHERE "id" = ?`, [new Date(now.getTime() + PUSH_BACK_MS), id])).catch(() => {});
}

/** A job whose deadline passed: its slot was missed. Opens `missed` and watches the next slot. */
async function checkMissed(tx: Tx, jobId: string, dueAt: Date, now: Date): Promise<void> {
  const row = await tx.one<Record<string, unknown>>(
    `SELECT "id", "slug", "name", "paused", "scheduleKind", "cronExpr", "timezone", "everySeconds", "graceSeconds", "checkAt", "lastStartedAt", "lastPingAt" FROM "Job" WHERE "id" = ?`,
    [jobId],
  );
  if (!row || asDate(row.checkAt)?.getTime() !== dueAt.getTime()) return;
  const graceSeconds = Number(row.graceSeconds);
  const slot = slotOfDeadline(dueAt, graceSeconds);
  const next = nextDeadlineAfterMiss(scheduleOf(row as never), slot, graceSeconds, now);
  // The claim: only the checker that moves this exact deadline acts on it.
  const claimed = await tx.run(`UPDATE "Job" SET "checkAt" = ? WHERE "id" = ? AND "checkAt" = ?`, [next, jobId, dueAt]);
  if (claimed !== 1) return;
  const lastRunAt = asDate(row.lastStartedAt) ?? asDate(row.lastPingAt);
  await openIncident(tx, toJobRef(row), "missed", { slot: slot.toISOString(), graceSeconds, lastRunAt: lastRunAt?.toISOString() ?? null }, now);
}

/** A running run at its deadline: past maxRuntime (overrun), or its lease gone with no finish (abandoned). */
async function checkRun(tx: Tx, runId: string, dueAt: Date, now: Date): Promise<void> {
  const run = await tx.one<Record<string, unknown>>(
    `SELECT r."id", r."jobId", r."outcome", r."source", r."host", r."slot", r."startedAt", r."leaseName", r."leaseToken", r."checkAt",
            j."maxRuntimeSeconds", j."slug", j."name", j."paused"
       FROM "Run" r JOIN "Job" j ON j."id" = r."jobId" WHERE r."id" = ?`,
    [runId],
  );
  if (!run || asDate(run.checkAt)?.getTime() !== dueAt.getTime()) return;
  const job = toJobRef({ id: run.jobId, slug: run.slug, name: run.name, paused: run.paused });
  if (run.outcome !== "running") {
    await tx.run(`UPDATE "Run" SET "checkAt" = NULL WHERE "id" = ? AND "checkAt" = ?`, [runId, dueAt]);
    return;
  }
  const startedAt = asDate(run.startedAt)!;
  const overrunAt = run.maxRuntimeSeconds === null ? null : new Date(startedAt.getTime() + Number(run.maxRuntimeSeconds) * 1000);
  const evidence = { runId, host: run.host ?? null, slot: asDate(run.slot)?.toISOString() ?? null, startedAt: startedAt.toISOString(), maxRuntimeSeconds: run.maxRuntimeSeconds === null ? null : Number(run.maxRuntimeSeconds) };

  let next: Date | null = null;
  if (run.leaseName && run.leaseToken) {
    const lease = await readLease(tx, run.leaseName as string);
    const stillHeld = lease !== null && lease.holderToken === run.leaseToken && isHeld(lease, now);
    if (!stillHeld) {
      // Started, lease gone, never finished: the crashed worker of seed 000.
      const leaseExpiredAt = lease && lease.holderToken === run.leaseToken ? lease.expiresAt : now;
      const changed = await tx.run(`UPDATE "Run" SET "outcome" = 'abandoned', "leaseLostAt" = COALESCE("leaseLostAt", ?), "checkAt" = NULL WHERE "id" = ? AND "outcome" = 'running' AND "checkAt" = ?`, [
        leaseExpiredAt, runId, dueAt,
      ]);
      if (changed === 1) {
        if (lease && lease.holderToken === run.leaseToken) {
          await recordLeaseEvent(tx, { leaseName: lease.name, kind: "expired", holder: lease.holder, fencingToken: lease.fencingToken, runId, at: now, detail: `expired at ${lease.expiresAt.toISOString()} without a release; the run was abandoned` });
        }
        await openIncident(tx, job, "abandoned", { ...evidence, leaseExpiredAt: leaseExpiredAt.toISOString() }, now);
      }
      return;
    }
    next = lease.expiresAt;
  }
  if (overrunAt && overrunAt <= now) await openIncident(tx, job, "overrun", evidence, now);
  else if (overrunAt && (!next || overrunAt < next)) next = overrunAt;
  await tx.run(`UPDATE "Run" SET "checkAt" = ? WHERE "id" = ? AND "checkAt" = ?`, [next, runId, dueAt]);
}

/** One pass over everything due at `now`. */
export async function checkDue(db: Database, now: Date): Promise<CheckStats> {
  const stats: CheckStats = { jobsChecked: 0, runsChecked: 0, errors: 0 };
  const dueRuns = await read(db, (tx) => tx.all<{ id: string; checkAt: unknown }>(`SELECT "id", "checkAt" FROM "Run" WHERE "checkAt" <= ? ORDER BY "checkAt" LIMIT ?`, [now, DUE_BATCH]));
  // Issued together, so SQLite commits them as one group; each still succeeds or fails alone.
  await Promise.all(
    dueRuns.map(async (due) => {
      try {
        await write(db, (tx) => checkRun(tx, due.id, asDate(due.checkAt)!, now));
        stats.runsChecked++;
      } catch (error) {
        stats.errors++;
        await pushBack(db, "Run", due.id, now, error);
      }
    }),
  );
  const dueJobs = await read(db, (tx) => tx.all<{ id: string; checkAt: unknown }>(`SELECT "id", "checkAt" FROM "Job" WHERE "checkAt" <= ? ORDER BY "checkAt" LIMIT ?`, [now, DUE_BATCH]));
  await Promise.all(
    dueJobs.map(async (due) => {
      try {
        await write(db, (tx) => checkMissed(tx, due.id, asDate(due.checkAt)!, now));
        stats.jobsChecked++;
      } catch (error) {
        stats.errors++;
        await pushBack(db, "Job", due.id, now, error);
      }
    }),
  );
  return stats;
}
