// The leases page: every lease with its holder, and the recent takeovers and expiries (a holder
// that stopped heartbeating, another that took over): the seeds' crashed-worker story.
import type { Database } from "../db.ts";
import { listLeases } from "../read-leases.ts";
import { asDate, read } from "../sql.ts";

/** Takeovers are looked for among this many newest lease events: an index scan of bounded length,
 * where filtering a busy ledger by kind would read all of it. */
export const EVENT_WINDOW = 5000;

export interface LeaseIncidentEvent {
  id: string;
  leaseName: string;
  kind: string;
  holder: string | null;
  fencingToken: number | null;
  detail: string | null;
  at: string;
}

export async function readLeasesPage(db: Database, opts: { cursor?: string; now: Date }) {
  const [leases, events] = await Promise.all([
    listLeases(db, { cursor: opts.cursor, limit: 200 }),
    read(db, (tx) =>
      tx.all<Record<string, unknown>>(
        `SELECT * FROM (SELECT "id", "leaseName", "kind", "holder", "fencingToken", "detail", "at" FROM "LeaseEvent" ORDER BY "id" DESC LIMIT ${EVENT_WINDOW}) AS recent
         WHERE "kind" IN ('takeover', 'expired') ORDER BY "id" DESC LIMIT 30`,
      ),
    ),
  ]);
  return {
    now: opts.now.toISOString(),
    leases,
    takeovers: events.map((e): LeaseIncidentEvent => ({
      id: e.id as string,
      leaseName: e.leaseName as string,
      kind: e.kind as string,
      holder: (e.holder as string | null) ?? null,
      fencingToken: e.fencingToken === null ? null : Number(e.fencingToken),
      detail: (e.detail as string | null) ?? null,
      at: asDate(e.at)!.toISOString(),
    })),
  };
}
