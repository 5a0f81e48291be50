// One tick of the checker: deadlines first (they queue notifications), then the outbox, then a
// slice of retention. Everything here is bounded per tick.
import { checkDue, type CheckStats } from "./check-due.ts";
import type { Database } from "./db.ts";
import { deliverDueNotifications, type DeliveryOptions, type DeliveryTally } from "./deliver-notifications.ts";
import { queueReminders } from "./incident-ledger.ts";
import { pruneLedger, type PruneStats } from "./prune-ledger.ts";
import { write } from "./sql.ts";

export interface TickStats extends CheckStats {
  reminders: number;
  delivered: DeliveryTally;
  pruned: PruneStats | null;
}

export async function runCheckerTick(db: Database, delivery: DeliveryOptions, now = new Date(), opts: { prune?: boolean } = {}): Promise<TickStats> {
  const checked = await checkDue(db, now);
  const reminders = await write(db, (tx) => queueReminders(tx, now));
  const delivered = await deliverDueNotifications(db, delivery, now);
  const pruned = opts.prune ? await pruneLedger(db, now) : null;
  return { ...checked, reminders, delivered, pruned };
}
