import { AppError } from "../contracts/errors.ts";
import type { Database } from "./db.ts";
import { isHeld, readLease } from "./lease-ledger.ts";
import { read } from "./sql.ts";

/** For the resource side of a fencing check: is this token the current holder's? A token is stale
 * once a newer one was issued, or once its lease expired or was released. */
export async function validateFence(db: Database, name: string, fencingToken: number) {
  return read(db, async (tx) => {
    const lease = await readLease(tx, name);
    if (!lease) throw new AppError("not_found", `no lease '${name}'`);
    const now = await tx.now();
    const valid = lease.fencingToken === fencingToken && lease.holderToken !== null && isHeld(lease, now);
    if (!valid) {
      const why = lease.fencingToken !== fencingToken ? `a newer fencing token (${lease.fencingToken}) was issued` : "its lease expired or was released";
      throw new AppError("lease_lost", `fencing token ${fencingToken} is stale: ${why}`, undefined, { valid: false, fencingToken: lease.fencingToken });
    }
    return { valid: true as const, fencingToken, holder: lease.holder, expiresAt: lease.expiresAt };
  });
}
