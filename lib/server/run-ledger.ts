// Run rows inside a write transaction: shared by run claims (API, CLI, SDK) and ping URLs, so a
// run means the same thing however it was reported.
import { incidentsOnFinish, isGoodRun, missedDeadline, ttlRisk, TTL_RISK_WINDOW } from "../domain/incidents.ts";
import type { RunOutcome } from "../domain/runs.ts";
import { periodSecondsAt } from "../domain/schedule.ts";
import { openIncident, resolveIncidents, updateIncidentEvidence, type JobRef } from "./incident-ledger.ts";
import { ledgerJob, type LedgerJob } from "./job-ledger.ts";
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
  requestId?: string | null;
  exitCode?: number | null;
  output?: string | null;
  startedAt: Date;
  finishedAt?: Date | null;
  durationMs?: number | null;
  checkAt?: Date | null;
}

export async function insertRun(tx: Tx, run: NewRun): Promise<{ duplicate: boolean }> {
  await tx.run(
    `INSERT INTO "Run" ("id", "jobId", "slot", "claimedSlot", "source", "outcome", "holder", "host", "rid", "leaseName", "leaseToken", "fencingToken",
       "leaseExpiresAt", "idempotencyKey", "requestId", "exitCode", "output", "startedAt", "finishedAt", "durationMs", "checkAt", "createdAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      run.id, run.jobId, run.slot, run.claimedSlot ?? null, run.source, run.outcome, run.holder ?? null, run.host ?? null, run.rid ?? null,
      run.leaseName ?? null, run.leaseToken ?? null, run.fencingToken ?? null, run.leaseExpiresAt ?? null, run.idempotencyKey ?? null, run.requestId ?? null,
      run.exitCode ?? null, run.output ?? null, run.startedAt, run.finishedAt ?? null, run.durationMs ?? null, run.checkAt ?? null, run.startedAt,
    ],
  );
  if (!run.slot) return { duplicate: false };
  const job = await ledgerJob(tx, run.jobId);
  if (!job) return { duplicate: false };
  await noteSlotCovered(tx, job, run.slot, run.startedAt);
  // Claims cannot duplicate a slot (the lease and the unique claimedSlot see to it); pings can.
  return { duplicate: run.source === "ping" ? await checkDuplicates(tx, job, run as NewRun & { slot: Date }) : false };
}

/**
 * A run (or a refused claim) for `slot` shows the job is alive for that slot: the checker's next
 * "missed" deadline moves to the following slot plus grace (never backwards), and an open "missed"
 * incident resolves.
 */
async function noteSlotCovered(tx: Tx, job: LedgerJob, slot: Date, now: Date): Promise<void> {
  if (!job.paused) {
    const deadline = missedDeadline(job.schedule, slot, job.graceSeconds);
    if (!job.checkAt || deadline > job.checkAt) {
      await tx.run(`UPDATE "Job" SET "checkAt" = ? WHERE "id" = ? AND ("checkAt" IS NULL OR "checkAt" < ?)`, [deadline, job.id, deadline]);
      job.checkAt = deadline;
    }
  }
  if (job.openIncidents > 0) await resolveIncidents(tx, job, ["missed"], now, `a run arrived for the slot at ${slot.toISOString()}`);
}

const MAX_EVIDENCE_RUNS = 20;

/** The duplicate notification waits this long for the other hosts of the same slot to report. */
export const DUPLICATE_NOTIFY_DELAY_MS = 15_000;

const SAME_SLOT_RUNS = `SELECT "id", "host" FROM "Run" WHERE "jobId" = ? AND "slot" = ? AND "source" = 'ping' AND "id" <> ? ORDER BY "id" LIMIT 20`;
const RUNNING_RUNS = `SELECT "id", "host" FROM "Run" WHERE "jobId" = ? AND "outcome" = 'running' AND "source" = 'ping' AND "id" <> ? AND "startedAt" > ? ORDER BY "id" LIMIT 20`;

/**
 * The N-times problem, seen from pings: more than one run for one slot (three servers running one
 * crontab), or a start while an earlier run is still going (an 11-minute run overlapping the next
 * firings). One incident per job names every host; later hosts are added to its evidence.
 */
async function checkDuplicates(tx: Tx, job: LedgerJob, run: NewRun & { slot: Date }): Promise<boolean> {
  const sameSlot = await tx.all<{ id: string; host: string | null }>(SAME_SLOT_RUNS, [job.id, run.slot, run.id]);
  const periodMs = periodSecondsAt(job.schedule, run.startedAt) * 1000;
  const overlapping = sameSlot.length === 0 && run.outcome === "running"
    ? await tx.all<{ id: string; host: string | null }>(RUNNING_RUNS, [job.id, run.id, new Date(run.startedAt.getTime() - 2 * periodMs)])
    : [];
  const others = sameSlot.length ? sameSlot : overlapping;
  if (others.length === 0) return false;
  const runs = [...others, { id: run.id, host: run.host ?? null }];
  const hosts = [...new Set(runs.map((r) => r.host ?? "(unknown host)"))];
  const open = job.openIncidents > 0 ? await tx.one<{ id: string; evidence: string }>(`SELECT "id", "evidence" FROM "Incident" WHERE "openKey" = ?`, [`${job.id}:duplicate`]) : undefined;
  if (open) {
    const evidence = JSON.parse(open.evidence) as { slot: string; hosts: string[]; runIds: string[] };
    if (evidence.slot === run.slot.toISOString() || sameSlot.length === 0) {
      // Evidence stays small however often a slot repeats: every host, and the first runs.
      const merged = { ...evidence, hosts: [...new Set([...evidence.hosts, ...hosts])], runIds: [...new Set([...evidence.runIds, ...runs.map((r) => r.id)])].slice(0, MAX_EVIDENCE_RUNS) };
      if (merged.hosts.length !== evidence.hosts.length || merged.runIds.length !== evidence.runIds.length) await updateIncidentEvidence(tx, job, open.id, merged, run.startedAt);
    }
    return true;
  }
  const runIds = runs.map((r) => r.id).slice(0, MAX_EVIDENCE_RUNS);
  await openIncident(tx, job, "duplicate", { slot: run.slot.toISOString(), overlap: sameSlot.length === 0, hosts, runIds }, run.startedAt, DUPLICATE_NOTIFY_DELAY_MS);
  return true;
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
  result: { outcome: "succeeded" | "failed"; exitCode: number | null; output: string | null; finishedAt: Date; leaseLostAt?: Date | null; takenOverBy?: string | null; pinged?: boolean },
): Promise<boolean> {
  const durationMs = Math.max(0, result.finishedAt.getTime() - run.startedAt.getTime());
  // RETURNING hands back what the finish rules need, and its absence says a concurrent finish won.
  const closed = await tx.one<{ host: string | null; source: string; slot: unknown }>(
    `UPDATE "Run" SET "outcome" = ?, "exitCode" = ?, "output" = ?, "finishedAt" = ?, "durationMs" = ?, "checkAt" = NULL,
       "leaseLostAt" = COALESCE("leaseLostAt", ?)
     WHERE "id" = ? AND "outcome" IN ('running', 'abandoned') RETURNING "host", "source", "slot"`,
    [result.outcome, result.exitCode, result.output, result.finishedAt, durationMs, result.leaseLostAt ?? null, run.id],
  );
  if (!closed) return false;
  await noteJobFinished(tx, run.jobId, result.outcome, result.finishedAt, {
    runId: run.id, host: closed.host ?? null, source: closed.source as "claim" | "ping", slot: asDate(closed.slot), exitCode: result.exitCode, durationMs,
    leaseLost: Boolean(result.leaseLostAt), takenOverBy: result.takenOverBy ?? null, pinged: Boolean(result.pinged),
  });
  return true;
}

export interface FinishedRunFacts {
  runId: string;
  host: string | null;
  source: "claim" | "ping";
  slot: Date | null;
  exitCode: number | null;
  durationMs: number | null;
  leaseLost: boolean;
  takenOverBy: string | null;
  /** Known by the caller: another run of the same slot exists (else looked up for ping runs). */
  duplicate: boolean;
  /** Reported by a ping: lastPingAt moves in the same UPDATE of the job row. */
  pinged: boolean;
}

/**
 * The job's newest-finish columns, its consecutive counters (failed runs; good runs, for recovery),
 * and the incidents a finished run opens or resolves: failed, too_fast, overrun, lease lost
 * (zombie / lease_expired_mid_run), recovery, and TTL risk for runs that held a lease.
 */
export async function noteJobFinished(tx: Tx, jobId: string, outcome: "succeeded" | "failed", at: Date, facts: Partial<FinishedRunFacts> = {}): Promise<void> {
  const job = await ledgerJob(tx, jobId);
  if (!job) return;
  const finish = {
    outcome,
    durationMs: facts.durationMs ?? null,
    minRuntimeSeconds: job.minRuntimeSeconds,
    maxRuntimeSeconds: job.maxRuntimeSeconds,
    leaseLost: Boolean(facts.leaseLost),
    takenOver: Boolean(facts.takenOverBy),
  };
  // A run whose slot also ran elsewhere is no recovery: it would resolve the duplicate it caused.
  const duplicated = facts.duplicate ?? (facts.source === "ping" && facts.slot && facts.runId
    ? (await tx.one(`SELECT "id" FROM "Run" WHERE "jobId" = ? AND "slot" = ? AND "source" = 'ping' AND "id" <> ? LIMIT 1`, [jobId, facts.slot, facts.runId])) !== undefined
    : false);
  const good = isGoodRun(finish) && !duplicated;
  const failed = outcome === "failed";
  const counters = (await tx.one<{ consecutiveFailures: number; consecutiveSuccesses: number }>(
    `UPDATE "Job" SET "lastFinishedAt" = ?, "lastOutcome" = ?,
       "consecutiveFailures" = CASE WHEN ? THEN "consecutiveFailures" + 1 ELSE 0 END,
       "consecutiveSuccesses" = CASE WHEN ? THEN "consecutiveSuccesses" + 1 ELSE 0 END,
       "lastPingAt" = CASE WHEN ? AND ("lastPingAt" IS NULL OR "lastPingAt" < ?) THEN ? ELSE "lastPingAt" END
     WHERE "id" = ? RETURNING "consecutiveFailures", "consecutiveSuccesses"`,
    [at, outcome, failed, good, Boolean(facts.pinged), at, at, jobId],
  ))!;
  const decision = incidentsOnFinish(finish, {
    consecutiveFailures: Number(counters.consecutiveFailures),
    failureThreshold: job.failureThreshold,
    consecutiveGood: good ? Number(counters.consecutiveSuccesses) : 0,
    recoveryThreshold: job.recoveryThreshold,
  });
  if (decision.open.length) {
    const evidence = {
      runId: facts.runId ?? null, host: facts.host ?? null, slot: facts.slot ? facts.slot.toISOString() : null, exitCode: facts.exitCode ?? null,
      durationMs: finish.durationMs, consecutiveFailures: Number(counters.consecutiveFailures), minRuntimeSeconds: finish.minRuntimeSeconds,
      maxRuntimeSeconds: finish.maxRuntimeSeconds, takenOverBy: facts.takenOverBy ?? null,
    };
    for (const kind of decision.open) await openIncident(tx, job, kind, evidence, at);
  }
  if (decision.resolve.length && job.openIncidents > 0) await resolveIncidents(tx, job, decision.resolve, at, `${counters.consecutiveSuccesses} good run(s) in a row`);
  if (facts.source === "claim" && finish.durationMs !== null) await checkTtlRisk(tx, job, job.leaseTtlSeconds, at);
}

async function checkTtlRisk(tx: Tx, job: JobRef, ttlSeconds: number, now: Date): Promise<void> {
  const recent = await tx.all<{ durationMs: number }>(
    `SELECT "durationMs" FROM "Run" WHERE "jobId" = ? AND "source" = 'claim' AND "durationMs" IS NOT NULL AND "outcome" IN ('succeeded', 'failed') ORDER BY "id" DESC LIMIT ?`,
    [job.id, TTL_RISK_WINDOW],
  );
  const risk = ttlRisk(recent.map((r) => Number(r.durationMs)), ttlSeconds);
  if (!risk) return;
  if (risk.atRisk) await openIncident(tx, job, "ttl_risk", { ttlSeconds, worstMs: risk.worstMs, suggestedTtlSeconds: risk.suggestedTtlSeconds, runs: recent.length }, now);
  else await resolveIncidents(tx, job, ["ttl_risk"], now, `worst of the last ${recent.length} runs is ${Math.round(risk.worstMs / 1000)} s, under 80 % of the ${ttlSeconds} s TTL`);
}

/** Moves lastStartedAt / lastPingAt forward only: concurrent writers must never move them back. */
export async function noteJobActivity(tx: Tx, jobId: string, at: Date, what: { started?: boolean; pinged?: boolean }): Promise<void> {
  await tx.run(
    `UPDATE "Job" SET
       "lastStartedAt" = CASE WHEN ? AND ("lastStartedAt" IS NULL OR "lastStartedAt" < ?) THEN ? ELSE "lastStartedAt" END,
       "lastPingAt" = CASE WHEN ? AND ("lastPingAt" IS NULL OR "lastPingAt" < ?) THEN ? ELSE "lastPingAt" END
     WHERE "id" = ?`,
    [Boolean(what.started), at, at, Boolean(what.pinged), at, at, jobId],
  );
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
