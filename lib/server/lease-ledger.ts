// The lease row and its event rows, inside a write transaction. Shared by the lease API and by run
// claims (which take a job's lease and claim its slot in one transaction).
//
// A lease is free when expiresAt <= now: a release sets expiresAt to now (or to minHoldUntil, the
// interval gate of seed 002), and a holder that dies simply lets its expiresAt pass. Acquisition is
// a conditional UPDATE on that; every change is checked by its row count. PostgreSQL locks the row
// first (FOR UPDATE) so the previous holder read for the event log is the one replaced; on SQLite
// the whole write batch holds the database's write lock.
import { AppError } from "../contracts/errors.ts";
import type { LeaseEventKind } from "../contracts/leases.ts";
import { newId, newSecret } from "./ids.ts";
import { asDate, type Tx } from "./sql.ts";

export interface LeaseRow {
  name: string;
  holderToken: string | null;
  holder: string | null;
  fencingToken: number;
  ttlSeconds: number | null;
  acquiredAt: Date | null;
  renewedAt: Date | null;
  expiresAt: Date;
  minHoldUntil: Date | null;
}

export type AcquireResult =
  | { acquired: true; token: string; fencingToken: number; expiresAt: Date; holder: string | null; tookOverFrom: string | null }
  | { acquired: false; holder: string | null; expiresAt: Date };

const COLUMNS = `"name", "holderToken", "holder", "fencingToken", "ttlSeconds", "acquiredAt", "renewedAt", "expiresAt", "minHoldUntil"`;

function toLease(row: Record<string, unknown>): LeaseRow {
  return {
    name: row.name as string,
    holderToken: (row.holderToken as string | null) ?? null,
    holder: (row.holder as string | null) ?? null,
    fencingToken: Number(row.fencingToken),
    ttlSeconds: row.ttlSeconds === null ? null : Number(row.ttlSeconds),
    acquiredAt: asDate(row.acquiredAt),
    renewedAt: asDate(row.renewedAt),
    expiresAt: asDate(row.expiresAt)!,
    minHoldUntil: asDate(row.minHoldUntil),
  };
}

export const isHeld = (lease: Pick<LeaseRow, "expiresAt">, now: Date) => lease.expiresAt.getTime() > now.getTime();

export async function readLease(tx: Tx, name: string, forUpdate = false): Promise<LeaseRow | null> {
  const row = await tx.one<Record<string, unknown>>(`SELECT ${COLUMNS} FROM "Lease" WHERE "name" = ?${forUpdate && tx.dialect === "postgresql" ? " FOR UPDATE" : ""}`, [name]);
  return row ? toLease(row) : null;
}

export async function recordLeaseEvent(
  tx: Tx,
  e: { leaseName: string; kind: LeaseEventKind; holder: string | null; fencingToken?: number | null; runId?: string | null; detail?: string | null; at: Date },
): Promise<void> {
  await tx.run(`INSERT INTO "LeaseEvent" ("id", "leaseName", "kind", "holder", "fencingToken", "runId", "detail", "at") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
    newId(), e.leaseName, e.kind, e.holder, e.fencingToken ?? null, e.runId ?? null, e.detail ?? null, e.at,
  ]);
}

export interface AcquireInput {
  name: string;
  ttlSeconds: number;
  holder: string | null;
  minHoldSeconds?: number;
  runId?: string | null;
  /** False while a waiting acquirer still has time: only its last refusal is an event. */
  recordRefusal?: boolean;
}

export async function tryAcquireLease(tx: Tx, input: AcquireInput): Promise<AcquireResult> {
  const now = await tx.now();
  const token = newSecret(24);
  const expiresAt = new Date(now.getTime() + input.ttlSeconds * 1000);
  const minHoldUntil = input.minHoldSeconds ? new Date(now.getTime() + input.minHoldSeconds * 1000) : null;

  let current = await readLease(tx, input.name, true);
  if (!current) {
    const inserted = await tx.run(
      `INSERT INTO "Lease" ("name", "holderToken", "holder", "fencingToken", "ttlSeconds", "acquiredAt", "renewedAt", "expiresAt", "minHoldUntil", "createdAt", "updatedAt")
       VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ("name") DO NOTHING`,
      [input.name, token, input.holder, input.ttlSeconds, now, now, expiresAt, minHoldUntil, now, now],
    );
    if (inserted === 1) {
      await recordLeaseEvent(tx, { leaseName: input.name, kind: "acquired", holder: input.holder, fencingToken: 1, runId: input.runId, at: now });
      return { acquired: true, token, fencingToken: 1, expiresAt, holder: input.holder, tookOverFrom: null };
    }
    // Another instance created it between our read and insert (PostgreSQL): read it under lock.
    current = (await readLease(tx, input.name, true))!;
  }

  if (isHeld(current, now)) return refuse(tx, input, current, now);

  const changed = await tx.run(
    `UPDATE "Lease" SET "holderToken" = ?, "holder" = ?, "fencingToken" = "fencingToken" + 1, "ttlSeconds" = ?, "acquiredAt" = ?, "renewedAt" = ?,
       "expiresAt" = ?, "minHoldUntil" = ?, "updatedAt" = ?
     WHERE "name" = ? AND "expiresAt" <= ? AND "fencingToken" = ?`,
    [token, input.holder, input.ttlSeconds, now, now, expiresAt, minHoldUntil, now, input.name, now, current.fencingToken],
  );
  if (changed !== 1) return refuse(tx, input, (await readLease(tx, input.name))!, now);

  const fencingToken = current.fencingToken + 1;
  // A holder that never released (crashed, or outran its TTL) lost the lease to expiry.
  const tookOverFrom = current.holderToken ? current.holder ?? "(unnamed holder)" : null;
  if (current.holderToken) {
    // The checker may have recorded this expiry already, with the run it abandoned.
    const known = await tx.one(`SELECT "id" FROM "LeaseEvent" WHERE "leaseName" = ? AND "kind" = 'expired' AND "fencingToken" = ? LIMIT 1`, [input.name, current.fencingToken]);
    if (!known) await recordLeaseEvent(tx, { leaseName: input.name, kind: "expired", holder: current.holder, fencingToken: current.fencingToken, at: now, detail: `expired at ${current.expiresAt.toISOString()} without a release` });
  }
  await recordLeaseEvent(tx, { leaseName: input.name, kind: current.holderToken ? "takeover" : "acquired", holder: input.holder, fencingToken, runId: input.runId, at: now });
  return { acquired: true, token, fencingToken, expiresAt, holder: input.holder, tookOverFrom };
}

async function refuse(tx: Tx, input: AcquireInput, current: LeaseRow, now: Date): Promise<AcquireResult> {
  if (input.recordRefusal !== false) {
    await recordLeaseEvent(tx, { leaseName: input.name, kind: "refused", holder: input.holder, runId: input.runId, at: now, detail: `held by ${current.holder ?? "(unnamed holder)"} until ${current.expiresAt.toISOString()}` });
  }
  return { acquired: false, holder: current.holderToken ? current.holder : null, expiresAt: current.expiresAt };
}

/** The lease is no longer this token's: 409 with what the caller needs to know. */
export function leaseLostError(name: string, current: LeaseRow | null, now: Date): AppError {
  const heldByOther = current && current.holderToken && isHeld(current, now);
  const message = heldByOther
    ? `lease '${name}' was taken over by ${current.holder ?? "another holder"} (fencing token ${current.fencingToken})`
    : `lease '${name}' is no longer held with this token (it expired or was released)`;
  return new AppError("lease_lost", message, undefined, {
    holder: heldByOther ? current.holder : null,
    fencingToken: current?.fencingToken ?? null,
    expiresAt: current ? current.expiresAt.toISOString() : null,
  });
}

// Refusals are returned, not thrown: a throw inside write() rolls back its savepoint, and the
// refusal's event must be kept.
export type Refusable<T> = { ok: true; value: T } | { ok: false; error: AppError };

export function unwrap<T>(result: Refusable<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

/** Extends the lease by ttlSeconds from now, only for the current token of an unexpired lease. */
export async function renewLeaseInTx(tx: Tx, input: { name: string; token: string; ttlSeconds?: number; runId?: string | null }): Promise<Refusable<LeaseRow>> {
  const now = await tx.now();
  const current = await readLease(tx, input.name, true);
  const ttlSeconds = input.ttlSeconds ?? current?.ttlSeconds ?? 60;
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  const changed = current
    ? await tx.run(`UPDATE "Lease" SET "expiresAt" = ?, "renewedAt" = ?, "ttlSeconds" = ?, "updatedAt" = ? WHERE "name" = ? AND "holderToken" = ? AND "expiresAt" > ?`, [
        expiresAt, now, ttlSeconds, now, input.name, input.token, now,
      ])
    : 0;
  if (changed !== 1) {
    if (!current) return { ok: false, error: new AppError("not_found", `no lease '${input.name}'`) };
    await recordLeaseEvent(tx, { leaseName: input.name, kind: "renew_refused", holder: current.holderToken === input.token ? current.holder : null, runId: input.runId, at: now, detail: "token does not hold the lease" });
    return { ok: false, error: leaseLostError(input.name, current, now) };
  }
  await recordLeaseEvent(tx, { leaseName: input.name, kind: "renewed", holder: current!.holder, fencingToken: current!.fencingToken, runId: input.runId, at: now });
  return { ok: true, value: { ...current!, expiresAt, renewedAt: now, ttlSeconds } };
}

/** Frees the lease (or keeps it until minHoldUntil), only for the current token of an unexpired lease.
 * A stale holder's release changes nothing but the event log. */
export async function releaseLeaseInTx(tx: Tx, input: { name: string; token: string; runId?: string | null }): Promise<Refusable<{ freeAt: Date }>> {
  const now = await tx.now();
  const current = await readLease(tx, input.name, true);
  const freeAt = current?.minHoldUntil && current.minHoldUntil > now ? current.minHoldUntil : now;
  const changed = current
    ? await tx.run(`UPDATE "Lease" SET "holderToken" = NULL, "expiresAt" = ?, "updatedAt" = ? WHERE "name" = ? AND "holderToken" = ? AND "expiresAt" > ?`, [
        freeAt, now, input.name, input.token, now,
      ])
    : 0;
  if (changed !== 1) {
    if (!current) return { ok: false, error: new AppError("not_found", `no lease '${input.name}'`) };
    await recordLeaseEvent(tx, { leaseName: input.name, kind: "release_refused", holder: null, runId: input.runId, at: now, detail: "token does not hold the lease" });
    return { ok: false, error: leaseLostError(input.name, current, now) };
  }
  await recordLeaseEvent(tx, { leaseName: input.name, kind: "released", holder: current!.holder, fencingToken: current!.fencingToken, runId: input.runId, at: now, detail: freeAt > now ? `kept until ${freeAt.toISOString()} (minHoldSeconds)` : null });
  return { ok: true, value: { freeAt } };
}
