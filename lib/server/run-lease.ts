// Heartbeat and finish of a claimed run: both act through the run's own lease token, and a run
// whose lease expired or was taken over is told so (409) and marked, never silently accepted.
import { AppError } from "../contracts/errors.ts";
import type { RunFinish } from "../contracts/runs.ts";
import { outcomeOfExit, outputTail } from "../domain/runs.ts";
import { signalLeaseFreed } from "./acquire-lease.ts";
import type { Database } from "./db.ts";
import { openIncident, resolveIncidents, JOB_REF_COLUMNS, toJobRef, type JobRef } from "./incident-ledger.ts";
import { leaseLostError, readLease, releaseLeaseInTx, renewLeaseInTx, unwrap, type Refusable } from "./lease-ledger.ts";
import { finishRunInTx, OPEN_RUN_COLUMNS, toOpenRun, type OpenRun } from "./run-ledger.ts";
import { write, type Tx } from "./sql.ts";

async function claimedRunOrThrow(tx: Tx, runId: string): Promise<OpenRun> {
  const row = await tx.one<Record<string, unknown>>(`SELECT ${OPEN_RUN_COLUMNS} FROM "Run" WHERE "id" = ?`, [runId]);
  if (!row) throw new AppError("not_found", `no run '${runId}'`);
  const run = toOpenRun(row);
  if (!run.leaseName || !run.leaseToken) throw new AppError("conflict", "this run holds no lease (it was refused, or reported by pings)");
  return run;
}

export async function heartbeatRun(db: Database, runId: string, input: { ttlSeconds?: number }) {
  const result = await write(db, async (tx): Promise<Refusable<{ expiresAt: Date; fencingToken: number }>> => {
    const run = await claimedRunOrThrow(tx, runId);
    if (run.outcome === "abandoned") {
      // The checker gave it up when its lease expired; it is alive after all, but the lease is gone.
      const error = leaseLostError(run.leaseName!, await readLease(tx, run.leaseName!), await tx.now());
      await noteLeaseLost(tx, run, error, await tx.now());
      return { ok: false, error };
    }
    if (run.outcome !== "running") return { ok: false, error: new AppError("conflict", `run already finished (${run.outcome})`) };
    const renewed = await renewLeaseInTx(tx, { name: run.leaseName!, token: run.leaseToken!, ttlSeconds: input.ttlSeconds, runId });
    const now = await tx.now();
    if (!renewed.ok) {
      await noteLeaseLost(tx, run, renewed.error, now);
      return renewed;
    }
    await tx.run(`UPDATE "Run" SET "leaseExpiresAt" = ?, "checkAt" = CASE WHEN "checkAt" IS NULL OR "checkAt" > ? THEN ? ELSE "checkAt" END WHERE "id" = ?`, [
      renewed.value.expiresAt, renewed.value.expiresAt, renewed.value.expiresAt, runId,
    ]);
    return { ok: true, value: { expiresAt: renewed.value.expiresAt, fencingToken: renewed.value.fencingToken } };
  });
  return unwrap(result);
}

async function jobRefOf(tx: Tx, jobId: string): Promise<JobRef> {
  return toJobRef((await tx.one<Record<string, unknown>>(`SELECT ${JOB_REF_COLUMNS} FROM "Job" WHERE "id" = ?`, [jobId]))!);
}

/** A heartbeat learnt the run's lease is gone while it still runs: mark the run, open the incident. */
async function noteLeaseLost(tx: Tx, run: OpenRun, error: AppError, now: Date): Promise<void> {
  await tx.run(`UPDATE "Run" SET "leaseLostAt" = COALESCE("leaseLostAt", ?) WHERE "id" = ?`, [now, run.id]);
  const takenOverBy = (error.extra?.holder as string | null) ?? null;
  const host = (await tx.one<{ host: string | null }>(`SELECT "host" FROM "Run" WHERE "id" = ?`, [run.id]))?.host ?? null;
  await openIncident(tx, await jobRefOf(tx, run.jobId), takenOverBy ? "zombie" : "lease_expired_mid_run", { runId: run.id, host, takenOverBy }, now);
}

export interface FinishedRun {
  runId: string;
  outcome: "succeeded" | "failed";
  exitCode: number;
  durationMs: number;
  leaseLost: boolean;
  leaseName: string;
}

export async function finishRun(db: Database, runId: string, input: RunFinish): Promise<FinishedRun> {
  const result = await write(db, async (tx): Promise<Refusable<FinishedRun>> => {
    const run = await claimedRunOrThrow(tx, runId);
    const outcome = outcomeOfExit(input.exitCode);
    if (run.outcome !== "running" && run.outcome !== "abandoned") {
      // A retried finish (the client never saw our answer) gets the same answer again.
      if (run.exitCode === input.exitCode && (run.outcome === "succeeded" || run.outcome === "failed")) {
        const value = { runId, outcome: run.outcome, exitCode: input.exitCode, durationMs: 0, leaseLost: run.leaseLostAt !== null, leaseName: run.leaseName! };
        if (!value.leaseLost) return { ok: true, value };
        return { ok: false, error: new AppError("lease_lost", `run recorded as ${run.outcome}, but its lease had been lost`, undefined, { run: value }) };
      }
      return { ok: false, error: new AppError("conflict", `run already finished (${run.outcome})`) };
    }
    const now = await tx.now();
    const released = await releaseLeaseInTx(tx, { name: run.leaseName!, token: run.leaseToken!, runId });
    // The result is kept either way; a run that lost its lease is marked, and its finish opens
    // lease_expired_mid_run (or zombie, when another holder took over): another server may have
    // run at the same time.
    const takenOverBy = released.ok ? null : ((released.error.extra?.holder as string | null) ?? null);
    await finishRunInTx(tx, run, { outcome, exitCode: input.exitCode, output: outputTail(input.output), finishedAt: now, leaseLostAt: released.ok ? null : run.leaseLostAt ?? now, takenOverBy });
    if (run.outcome === "abandoned") await resolveIncidents(tx, await jobRefOf(tx, run.jobId), ["abandoned"], now, "the run it named finished after all (late, without its lease)");
    const value = { runId, outcome, exitCode: input.exitCode, durationMs: now.getTime() - run.startedAt.getTime(), leaseLost: !released.ok, leaseName: run.leaseName! };
    if (released.ok) return { ok: true, value };
    const error = released.error;
    return { ok: false, error: new AppError("lease_lost", `run recorded as ${outcome}, but ${error.message}`, undefined, { ...error.extra, run: value }) };
  });
  const finished = unwrap(result);
  signalLeaseFreed(finished.leaseName);
  return finished;
}
