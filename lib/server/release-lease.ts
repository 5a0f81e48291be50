import { signalLeaseFreed } from "./acquire-lease.ts";
import type { Database } from "./db.ts";
import { releaseLeaseInTx, unwrap } from "./lease-ledger.ts";
import { write } from "./sql.ts";

export async function releaseLease(db: Database, name: string, token: string) {
  const result = unwrap(await write(db, (tx) => releaseLeaseInTx(tx, { name, token })));
  if (result.freeAt.getTime() <= Date.now()) signalLeaseFreed(name);
  return result;
}
