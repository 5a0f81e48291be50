// The checker: node-cron sets the pace, lib/server does the work. Runs inside `npm start` by default
// (DEADBOLT_WORKER=on) or alone: `npm run worker`. Any number of copies may run; one acts at a time.
import os from "node:os";
import { pathToFileURL } from "node:url";
import cron from "node-cron";
import { holdCheckerLease, type CheckerLeaseState } from "../lib/server/checker-lease.ts";
import { readConfig, type Config } from "../lib/server/config.ts";
import { openDatabase, setDatabase, type Database } from "../lib/server/db.ts";
import { migrate } from "../lib/server/migrate.ts";
import { runCheckerTick } from "../lib/server/run-checker-tick.ts";

export interface CheckerOptions {
  /** Seconds between ticks (DEADBOLT_CHECK_EVERY, 5). */
  everySeconds?: number;
  leaseTtlSeconds?: number;
  /** Prune retention every Nth tick. */
  pruneEveryTicks?: number;
}

export function startChecker(db: Database, config: Config, opts: CheckerOptions = {}): () => Promise<void> {
  const everySeconds = opts.everySeconds ?? Number(process.env.DEADBOLT_CHECK_EVERY ?? 5);
  const leaseTtlSeconds = opts.leaseTtlSeconds ?? Math.max(15, everySeconds * 6);
  const pruneEveryTicks = opts.pruneEveryTicks ?? Math.max(1, Math.round(60 / everySeconds));
  const holder = `${os.hostname()}:${process.pid}`;
  const lease: CheckerLeaseState = { token: null, expiresAt: 0 };
  let ticks = 0;

  const tick = async () => {
    try {
      if (!(await holdCheckerLease(db, holder, lease, leaseTtlSeconds))) return;
      await runCheckerTick(db, { smtpUrl: config.smtpUrl, alertFrom: config.alertFrom }, new Date(), { prune: ++ticks % pruneEveryTicks === 0 });
    } catch (error) {
      // A failed tick is logged and the next one tries again: the loop never dies.
      console.error("deadbolt checker: tick failed:", error);
    }
  };
  const task = cron.schedule(`*/${everySeconds} * * * * *`, tick, { name: "deadbolt-checker", noOverlap: true });
  void tick();

  return async () => {
    await task.stop();
    await task.destroy();
  };
}

// `npm run worker`: the checker alone, for deployments that run it apart from the web instances.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const config = readConfig();
  await migrate(config.databaseUrl);
  const db = openDatabase(config.databaseUrl);
  setDatabase(db);
  const stop = startChecker(db, config);
  console.log(`deadbolt checker: running (${db.dialect}), pid ${process.pid}`);
  const shutdown = async () => {
    await stop();
    await db.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown());
  process.on("SIGINT", () => void shutdown());
}
