// POST /api/v1/jobs/{slug}/runs: take the job's lease and claim the run's slot in one transaction.
// At most one execution per (job, slot): the slot check runs under the write lock (SQLite) or the
// lease row's lock (PostgreSQL), and the unique index on (jobId, claimedSlot) backs it up. Refused
// claims are runs too, so the ledger shows how often a duplicate was prevented.
import { AppError } from "../contracts/errors.ts";
import type { RunClaim } from "../contracts/runs.ts";
import { slotFor } from "../domain/schedule.ts";
import { idempotencyKeyOf } from "../domain/runs.ts";
import type { Database } from "./db.ts";
import { newId } from "./ids.ts";
import { jobLeaseName, scheduleOf } from "./job-view.ts";
import { isHeld, readLease, recordLeaseEvent, tryAcquireLease } from "./lease-ledger.ts";
import { insertRun, JOB_FOR_RUNS_COLUMNS, noteJobActivity, toJobForRuns } from "./run-ledger.ts";
import { asDate, write } from "./sql.ts";

export type ClaimResult =
  | { claimed: true; runId: string; leaseName: string; token: string; fencingToken: number; slot: Date; idempotencyKey: string; expiresAt: Date; ttlSeconds: number }
  | { claimed: false; reason: "lease_held"; runId: string; slot: Date; holder: string | null; expiresAt: Date }
  | { claimed: false; reason: "slot_done"; runId: string; slot: Date; doneBy: { runId: string; holder: string | null; outcome: string } };

function replay(run: Record<string, unknown>, ttlSeconds: number): ClaimResult {
  const slot = asDate(run.slot)!;
  if (run.outcome === "skipped_slot_done") {
    return { claimed: false, reason: "slot_done", runId: run.id as string, slot, doneBy: { runId: run.id as string, holder: null, outcome: "refused earlier" } };
  }
  if (run.outcome === "skipped_lease_held") {
    return { claimed: false, reason: "lease_held", runId: run.id as string, slot, holder: null, expiresAt: slot };
  }
  if (run.outcome !== "running") throw new AppError("conflict", `this claim's run has already ended (${run.outcome})`);
  return {
    claimed: true, runId: run.id as string, leaseName: run.leaseName as string, token: run.leaseToken as string, fencingToken: Number(run.fencingToken),
    slot, idempotencyKey: run.idempotencyKey as string, expiresAt: asDate(run.leaseExpiresAt)!, ttlSeconds,
  };
}

export async function claimRun(db: Database, slug: string, input: RunClaim & { holder: string | null }): Promise<ClaimResult> {
  return write(db, async (tx) => {
    const row = await tx.one<Record<string, unknown>>(`SELECT ${JOB_FOR_RUNS_COLUMNS} FROM "Job" WHERE "slug" = ?`, [slug]);
    if (!row) throw new AppError("not_found", `no job '${slug}'`);
    const job = toJobForRuns(row);
    const now = await tx.now();
    if (input.requestId) {
      // A retry of a claim we already answered (the answer was lost on the way): the same answer.
      const earlier = await tx.one<Record<string, unknown>>(
        `SELECT "id", "outcome", "slot", "leaseName", "leaseToken", "fencingToken", "leaseExpiresAt", "idempotencyKey" FROM "Run" WHERE "jobId" = ? AND "requestId" = ?`,
        [job.id, input.requestId],
      );
      if (earlier) return replay(earlier, input.ttlSeconds ?? job.leaseTtlSeconds);
    }
    const slot = input.slot ? new Date(input.slot) : slotFor(scheduleOf(job), now) ?? now;
    const runId = newId();
    const leaseName = jobLeaseName(job.slug);
    const refused = { id: runId, jobId: job.id, slot, source: "claim" as const, holder: input.holder, host: input.holder, leaseName, requestId: input.requestId ?? null, startedAt: now, finishedAt: now, durationMs: 0 };

    // Lock the job's lease row first (PostgreSQL): claims of one job serialise here, so the slot
    // check below cannot race another claim.
    if (tx.dialect === "postgresql") await tx.one(`SELECT "name" FROM "Lease" WHERE "name" = ? FOR UPDATE`, [leaseName]);
    const done = await tx.one<Record<string, unknown>>(`SELECT "id", "holder", "outcome" FROM "Run" WHERE "jobId" = ? AND "claimedSlot" = ?`, [job.id, slot]);
    if (done && done.outcome === "running") {
      // The slot is being run right now: to the second host that is "held", not "done".
      const lease = await readLease(tx, leaseName);
      if (lease && lease.holderToken && isHeld(lease, now)) {
        await recordLeaseEvent(tx, { leaseName, kind: "refused", holder: input.holder, runId, at: now, detail: `held by ${lease.holder ?? "(unnamed holder)"} until ${lease.expiresAt.toISOString()}` });
        await insertRun(tx, { ...refused, outcome: "skipped_lease_held" });
        return { claimed: false, reason: "lease_held", runId, slot, holder: lease.holder, expiresAt: lease.expiresAt };
      }
    }
    if (done) {
      await insertRun(tx, { ...refused, outcome: "skipped_slot_done" });
      return { claimed: false, reason: "slot_done", runId, slot, doneBy: { runId: done.id as string, holder: (done.holder as string | null) ?? null, outcome: done.outcome as string } };
    }

    const ttlSeconds = input.ttlSeconds ?? job.leaseTtlSeconds;
    const lease = await tryAcquireLease(tx, { name: leaseName, ttlSeconds, holder: input.holder, runId });
    if (!lease.acquired) {
      await insertRun(tx, { ...refused, outcome: "skipped_lease_held" });
      return { claimed: false, reason: "lease_held", runId, slot, holder: lease.holder, expiresAt: lease.expiresAt };
    }

    const idempotencyKey = idempotencyKeyOf(job.slug, slot);
    const overrunAt = job.maxRuntimeSeconds ? new Date(now.getTime() + job.maxRuntimeSeconds * 1000) : null;
    await insertRun(tx, {
      id: runId, jobId: job.id, slot, claimedSlot: slot, source: "claim", outcome: "running", holder: input.holder, host: input.holder,
      leaseName, leaseToken: lease.token, fencingToken: lease.fencingToken, leaseExpiresAt: lease.expiresAt, idempotencyKey, requestId: input.requestId ?? null, startedAt: now,
      // The checker looks again when the lease would expire or the run would overrun, whichever first.
      checkAt: overrunAt && overrunAt < lease.expiresAt ? overrunAt : lease.expiresAt,
    });
    await noteJobActivity(tx, job.id, now, { started: true });
    return { claimed: true, runId, leaseName, token: lease.token, fencingToken: lease.fencingToken, slot, idempotencyKey, expiresAt: asDate(lease.expiresAt)!, ttlSeconds };
  });
}
