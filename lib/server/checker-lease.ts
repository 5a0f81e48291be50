// The checker runs once across instances: it holds its own lease, renewed when half its TTL has
// passed (not every tick, to keep the lease's event log short). A checker that loses it (a paused
// process, a clock jump) stops acting until it wins it again; the conditional update of each due
// item keeps two checkers from acting on one item regardless.
import type { Database } from "./db.ts";
import { renewLeaseInTx, tryAcquireLease } from "./lease-ledger.ts";
import { write } from "./sql.ts";

export const CHECKER_LEASE = "deadbolt:checker";

export interface CheckerLeaseState {
  token: string | null;
  expiresAt: number;
}

/** Updates `state` and says whether this process holds the checker lease now. */
export async function holdCheckerLease(db: Database, holder: string, state: CheckerLeaseState, ttlSeconds: number, nowMs = Date.now()): Promise<boolean> {
  if (state.token && state.expiresAt - nowMs > (ttlSeconds * 1000) / 2) return true;
  if (state.token) {
    const renewed = await write(db, (tx) => renewLeaseInTx(tx, { name: CHECKER_LEASE, token: state.token!, ttlSeconds }));
    if (renewed.ok) {
      state.expiresAt = renewed.value.expiresAt.getTime();
      return true;
    }
    state.token = null;
  }
  const acquired = await write(db, (tx) => tryAcquireLease(tx, { name: CHECKER_LEASE, ttlSeconds, holder, recordRefusal: false }));
  if (!acquired.acquired) return false;
  state.token = acquired.token;
  state.expiresAt = acquired.expiresAt.getTime();
  return true;
}
