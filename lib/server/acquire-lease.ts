import { EventEmitter } from "node:events";
import type { LeaseAcquire } from "../contracts/leases.ts";
import type { Database } from "./db.ts";
import { tryAcquireLease, type AcquireResult } from "./lease-ledger.ts";
import { write } from "./sql.ts";

// Releases in this process wake its waiting acquirers at once; waiters also poll, for releases made
// by other instances and for expiries.
const freed = new EventEmitter();
freed.setMaxListeners(0);
export const signalLeaseFreed = (name: string) => freed.emit(name);

const POLL_MS = 250;

function waitForFree(name: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      freed.off(name, done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    freed.on(name, done);
  });
}

/** Acquire now, or wait up to waitSeconds for the lease to become free. Only the final refusal is
 * recorded as an event: a waiting acquirer is one attempt, not one per poll. */
export async function acquireLease(db: Database, name: string, input: LeaseAcquire & { holder: string | null }): Promise<AcquireResult> {
  const deadline = Date.now() + input.waitSeconds * 1000;
  for (;;) {
    const lastTry = Date.now() >= deadline;
    const result = await write(db, (tx) => tryAcquireLease(tx, { name, ttlSeconds: input.ttlSeconds, holder: input.holder, minHoldSeconds: input.minHoldSeconds, recordRefusal: lastTry }));
    if (result.acquired || lastTry) return result;
    const untilExpiry = result.expiresAt.getTime() - Date.now();
    await waitForFree(name, Math.max(1, Math.min(POLL_MS, deadline - Date.now(), untilExpiry + 1)));
  }
}
