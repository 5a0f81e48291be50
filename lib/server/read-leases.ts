import { AppError } from "../contracts/errors.ts";
import type { Database } from "./db.ts";
import { isHeld, readLease, type LeaseRow } from "./lease-ledger.ts";
import { asDate, read } from "./sql.ts";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toLeaseView(lease: LeaseRow, now: Date) {
  const held = lease.holderToken !== null && isHeld(lease, now);
  return {
    name: lease.name,
    state: held ? ("held" as const) : ("free" as const),
    holder: held ? lease.holder : null,
    fencingToken: lease.fencingToken,
    ttlSeconds: lease.ttlSeconds,
    acquiredAt: iso(lease.acquiredAt),
    renewedAt: iso(lease.renewedAt),
    expiresAt: lease.expiresAt.toISOString(),
    minHoldUntil: lease.minHoldUntil && lease.minHoldUntil > now ? lease.minHoldUntil.toISOString() : null,
  };
}

/** Leases by name, keyset-paged. */
export async function listLeases(db: Database, q: { cursor?: string; limit: number }) {
  const rows = await db.prisma.lease.findMany({ where: q.cursor ? { name: { gt: q.cursor } } : {}, orderBy: { name: "asc" }, take: q.limit + 1 });
  const now = new Date();
  const items = rows.slice(0, q.limit).map((row) => toLeaseView(row, now));
  return { items, nextCursor: rows.length > q.limit ? items[items.length - 1].name : null };
}

/** A lease's state and its newest events. */
export async function getLeaseOrThrow(db: Database, name: string, eventLimit = 50) {
  return read(db, async (tx) => {
    const lease = await readLease(tx, name);
    if (!lease) throw new AppError("not_found", `no lease '${name}'`);
    const events = await tx.all<Record<string, unknown>>(
      `SELECT "id", "kind", "holder", "fencingToken", "runId", "detail", "at" FROM "LeaseEvent" WHERE "leaseName" = ? ORDER BY "id" DESC LIMIT ?`,
      [name, eventLimit],
    );
    return {
      ...toLeaseView(lease, await tx.now()),
      events: events.map((e) => ({
        id: e.id as string,
        kind: e.kind as string,
        holder: (e.holder as string | null) ?? null,
        fencingToken: e.fencingToken === null ? null : Number(e.fencingToken),
        runId: (e.runId as string | null) ?? null,
        detail: (e.detail as string | null) ?? null,
        at: asDate(e.at)!.toISOString(),
      })),
    };
  });
}
