// The job row as the ledger's write paths see it, read once per write transaction: a ping touches
// the job from several places (slot coverage, duplicates, finish rules) and each used to read it
// again. Values that change inside the transaction are either written with conditional updates
// (checkAt, lastPingAt) or returned by the UPDATE itself (counters), and the open-incident count is
// kept in step by incident-ledger.ts.
import type { Schedule } from "../domain/schedule.ts";
import { scheduleOf } from "./job-view.ts";
import { asDate, type Tx } from "./sql.ts";

export interface LedgerJob {
  id: string;
  slug: string;
  name: string;
  paused: boolean;
  schedule: Schedule;
  graceSeconds: number;
  checkAt: Date | null;
  minRuntimeSeconds: number | null;
  maxRuntimeSeconds: number | null;
  failureThreshold: number;
  recoveryThreshold: number;
  leaseTtlSeconds: number;
  openIncidents: number;
  lastStartedAt: Date | null;
}

export const LEDGER_JOB_COLUMNS = `"id", "slug", "name", "paused", "scheduleKind", "cronExpr", "timezone", "everySeconds", "graceSeconds", "checkAt",
  "minRuntimeSeconds", "maxRuntimeSeconds", "failureThreshold", "recoveryThreshold", "leaseTtlSeconds", "openIncidents", "lastStartedAt"`;

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export function toLedgerJob(row: Record<string, unknown>): LedgerJob {
  return {
    id: row.id as string,
    slug: row.slug as string,
    name: row.name as string,
    paused: row.paused === true || row.paused === 1,
    schedule: scheduleOf({ scheduleKind: row.scheduleKind as string, cronExpr: (row.cronExpr as string | null) ?? null, timezone: row.timezone as string, everySeconds: num(row.everySeconds) }),
    graceSeconds: Number(row.graceSeconds),
    checkAt: asDate(row.checkAt),
    minRuntimeSeconds: num(row.minRuntimeSeconds),
    maxRuntimeSeconds: num(row.maxRuntimeSeconds),
    failureThreshold: Number(row.failureThreshold),
    recoveryThreshold: Number(row.recoveryThreshold),
    leaseTtlSeconds: Number(row.leaseTtlSeconds),
    openIncidents: Number(row.openIncidents ?? 0),
    lastStartedAt: asDate(row.lastStartedAt),
  };
}

const cache = new WeakMap<Tx, Map<string, LedgerJob>>();

function jobsOf(tx: Tx): Map<string, LedgerJob> {
  let jobs = cache.get(tx);
  if (!jobs) cache.set(tx, (jobs = new Map()));
  return jobs;
}

/** Remembers a job row the caller read (with LEDGER_JOB_COLUMNS) for the rest of the transaction. */
export function rememberJob(tx: Tx, row: Record<string, unknown>): LedgerJob {
  const job = toLedgerJob(row);
  jobsOf(tx).set(job.id, job);
  return job;
}

export async function ledgerJob(tx: Tx, jobId: string): Promise<LedgerJob | null> {
  const known = jobsOf(tx).get(jobId);
  if (known) return known;
  const row = await tx.one<Record<string, unknown>>(`SELECT ${LEDGER_JOB_COLUMNS} FROM "Job" WHERE "id" = ?`, [jobId]);
  return row ? rememberJob(tx, row) : null;
}

/** Keeps the remembered open-incident count in step with the row (incident-ledger.ts writes both). */
export function countOpenIncident(tx: Tx, jobId: string, delta: number): void {
  const job = jobsOf(tx).get(jobId);
  if (job) job.openIncidents += delta;
}
