import type { Database } from "./db.ts";
import { renewLeaseInTx, unwrap } from "./lease-ledger.ts";
import { write } from "./sql.ts";

export async function renewLease(db: Database, name: string, input: { token: string; ttlSeconds?: number }) {
  return unwrap(await write(db, (tx) => renewLeaseInTx(tx, { name, ...input })));
}
