// Run rows inside a write transaction: shared by run claims (API, CLI, SDK) and ping URLs, so a
// run means the same thing however it was reported.
import type { RunOutcome } from "../domain/runs.ts";
import { asDate, type Tx } from "./sql.ts";

export interface NewRun {
  id: string;
  jobId: string;
  slot: Date | null;
  /** Only on the run that executes its slot (unique per job): refused and duplicate runs leave it null. */
  claimedSlot?: Date | null;
  source: "claim" | "ping";
  outcome: RunOutcome;
  holder?: string | null;
  host?: string | null;
  rid?: string | null;
  leaseName?: string | null;
  leaseToken?: string | null;
  fencingToken?: number | null;
  leaseExpiresAt?: Date | null;
  idempotencyKey?: string | null;
  exitCode?: number | null;
  output?: string | null;
  startedAt: Date;
  finishedAt?: Date | null;
  durationMs?: number | null;
  checkAt?: Date | null;
}

export async function insertRun(tx: Tx, run: NewRun): Promise<void> {
  await tx.run(
    `INSERT INTO "Run" ("id", "jobId", "slot", "claimedSlot", "source", "outcome", "holder", "host", "rid", "leaseName", "leaseToken", "fencingToken",
       "leaseExpiresAt", "idempotencyKey", "exitCode", "output", "startedAt", "finishedAt", "durationMs", "checkAt", "createdAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      run.id, run.jobId, run.slot, run.claimedSlot ?? null, run.source, run.outcome, run.holder ?? null, run.host ?? null, run.rid ?? null,
      run.leaseName ?? null, run.leaseToken ?? null, run.fencingToken ?? null, run.leaseExpiresAt ?? null, run.idempotencyKey ?? null,
      run.exitCode ?? null, run.output ?? null, run.startedAt, run.finishedAt ?? null, run.durationMs ?? null, run.checkAt ?? null, run.startedAt,
    ],
  );
}

export interface OpenRun {
  id: string;
  jobId: string;
  outcome: RunOutcome;
  startedAt: Date;
  leaseName: string | null;
  leaseToken: string | null;
  fencingToken: number | null;
  exitCode: number | null;
  leaseLostAt: Date | null;
}

export function toOpenRun(row: Record<string, unknown>): OpenRun {
  return {
    id: row.id as string,
    jobId: row.jobId as string,
    outcome: row.outcome as RunOutcome,
    startedAt: asDate(row.startedAt)!,
    leaseName: (row.leaseName as string | null) ?? null,
    leaseToken: (row.leaseToken as string | null) ?? null,
    fencingToken: row.fencingToken === null || row.fencingToken === undefined ? null : Number(row.fencingToken),
    exitCode: row.exitCode === null || row.exitCode === undefined ? null : Number(row.exitCode),
    leaseLostAt: asDate(row.leaseLostAt),
  };
}

export const OPEN_RUN_COLUMNS = `"id", "jobId", "outcome", "startedAt", "leaseName", "leaseToken", "fencingToken", "exitCode", "leaseLostAt"`;

/**
 * Closes a running run with its result and moves the job's last-run columns. Returns false when
 * the run was no longer running (a concurrent finish got there first).
 */
export async function finishRunInTx(
  tx: Tx,
  run: Pick<OpenRun, "id" | "jobId" | "startedAt">,
  result: { outcome: "succeeded" | "failed"; exitCode: number | null; output: string | null; finishedAt: Date; leaseLostAt?: Date | null },
): Promise<boolean> {
  const durationMs = Math.max(0, result.finishedAt.getTime() - run.startedAt.getTime());
  const changed = await tx.run(
    `UPDATE "Run" SET "outcome" = ?, "exitCode" = ?, "output" = ?, "finishedAt" = ?, "durationMs" = ?, "checkAt" = NULL,
       "leaseLostAt" = COALESCE("leaseLostAt", ?)
     WHERE "id" = ? AND "outcome" = 'running'`,
    [result.outcome, result.exitCode, result.output, result.finishedAt, durationMs, result.leaseLostAt ?? null, run.id],
  );
  if (changed !== 1) return false;
  await noteJobFinished(tx, run.jobId, result.outcome, result.finishedAt);
  return true;
}

/** The job's newest-finish columns and its consecutive counters (for failure / recovery thresholds). */
export async function noteJobFinished(tx: Tx, jobId: string, outcome: "succeeded" | "failed", at: Date): Promise<void> {
  const failed = outcome === "failed";
  await tx.run(
    `UPDATE "Job" SET "lastFinishedAt" = ?, "lastOutcome" = ?,
       "consecutiveFailures" = CASE WHEN ? THEN "consecutiveFailures" + 1 ELSE 0 END,
       "consecutiveSuccesses" = CASE WHEN ? THEN 0 ELSE "consecutiveSuccesses" + 1 END
     WHERE "id" = ?`,
    [at, outcome, failed, failed, jobId],
  );
}

/** Moves lastStartedAt / lastPingAt forward only: concurrent writers must never move them back. */
export async function noteJobActivity(tx: Tx, jobId: string, at: Date, what: { started?: boolean; pinged?: boolean }): Promise<void> {
  if (what.started) await tx.run(`UPDATE "Job" SET "lastStartedAt" = ? WHERE "id" = ? AND ("lastStartedAt" IS NULL OR "lastStartedAt" < ?)`, [at, jobId, at]);
  if (what.pinged) await tx.run(`UPDATE "Job" SET "lastPingAt" = ? WHERE "id" = ? AND ("lastPingAt" IS NULL OR "lastPingAt" < ?)`, [at, jobId, at]);
}

export interface JobForRuns {
  id: string;
  slug: string;
  scheduleKind: string;
  cronExpr: string | null;
  timezone: string;
  everySeconds: number | null;
  leaseTtlSeconds: number;
  maxRuntimeSeconds: number | null;
  paused: boolean;
}

export const JOB_FOR_RUNS_COLUMNS = `"id", "slug", "scheduleKind", "cronExpr", "timezone", "everySeconds", "leaseTtlSeconds", "maxRuntimeSeconds", "paused"`;

export function toJobForRuns(row: Record<string, unknown>): JobForRuns {
  return {
    id: row.id as string,
    slug: row.slug as string,
    scheduleKind: row.scheduleKind as string,
    cronExpr: (row.cronExpr as string | null) ?? null,
    timezone: row.timezone as string,
    everySeconds: row.everySeconds === null ? null : Number(row.everySeconds),
    leaseTtlSeconds: Number(row.leaseTtlSeconds),
    maxRuntimeSeconds: row.maxRuntimeSeconds === null ? null : Number(row.maxRuntimeSeconds),
    paused: row.paused === true || row.paused === 1,
  };
}
