// A checker tick with 100,000 jobs of which 1 % are due (goal: < 0.5 s on SQLite). Reference in the
// same run: one direct SQL statement that reads every job (what a tick would cost if it scanned).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkDue } from "../lib/server/check-due.ts";
import { openDatabase, type Database } from "../lib/server/db.ts";
import { newId, newSecret } from "../lib/server/ids.ts";
import { migrate } from "../lib/server/migrate.ts";
import { read, write } from "../lib/server/sql.ts";

const JOBS = Number(process.env.BENCH_CHECKER_JOBS ?? 100_000);
const DUE_SHARE = 0.01;

async function seed(db: Database, now: Date) {
  const due = Math.round(JOBS * DUE_SHARE);
  for (let start = 0; start < JOBS; start += 5000) {
    await write(db, async (tx) => {
      for (let i = start; i < Math.min(JOBS, start + 5000); i++) {
        const checkAt = i % Math.round(JOBS / due) === 0 ? new Date(now.getTime() - 1000) : new Date(now.getTime() + 3_600_000 + i);
        await tx.run(
          `INSERT INTO "Job" ("id", "slug", "name", "tags", "scheduleKind", "cronExpr", "timezone", "everySeconds", "graceSeconds", "leaseTtlSeconds", "failureThreshold", "recoveryThreshold", "paused", "pingKey", "checkAt", "createdAt", "updatedAt", "consecutiveFailures", "consecutiveSuccesses")
           VALUES (?, ?, ?, '[]', 'cron', '*/5 * * * *', 'UTC', NULL, 60, 900, 1, 1, ?, ?, ?, ?, ?, 0, 0)`,
          [newId(), `job-${i}`, `Job ${i}`, false, newSecret(16), checkAt, now, now],
        );
      }
    });
  }
  return due;
}

const ms = (t0: number) => Math.round((performance.now() - t0) * 10) / 10;

export async function benchChecker(databaseUrl?: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "deadbolt-bench-"));
  const url = databaseUrl ?? `file:${path.join(dir, "bench.db")}`;
  await migrate(url);
  const db = openDatabase(url);
  const label = db.dialect === "sqlite" ? "SQLite" : "PostgreSQL";
  try {
    const now = new Date(Math.floor(Date.now() / 300_000) * 300_000 + 120_000);
    let t0 = performance.now();
    const due = await seed(db, now);
    console.log(`\nChecker tick, ${JOBS.toLocaleString("en")} jobs, ${due.toLocaleString("en")} due (${label}); seeded in ${ms(t0)} ms`);

    t0 = performance.now();
    const scanned = await read(db, (tx) => tx.all(`SELECT "id", "checkAt", "paused" FROM "Job"`));
    const scanMs = ms(t0);

    const incidentsBefore = await db.prisma.incident.count();
    t0 = performance.now();
    const busy = await checkDue(db, now);
    const busyMs = ms(t0);
    const opened = (await db.prisma.incident.count()) - incidentsBefore;

    t0 = performance.now();
    const idle = await checkDue(db, now);
    const idleMs = ms(t0);

    console.log("| what | ms | items |");
    console.log("|---|---|---|");
    console.log(`| reference: one SQL statement reading all ${scanned.length.toLocaleString("en")} jobs | ${scanMs} | ${scanned.length} |`);
    console.log(`| tick with ${due} due jobs (opens ${opened} missed incidents, moves ${busy.jobsChecked} deadlines) | ${busyMs} | ${busy.jobsChecked} |`);
    console.log(`| next tick, nothing due | ${idleMs} | ${idle.jobsChecked} |`);
    console.log(`busy tick = ${(busyMs / scanMs).toFixed(2)}× the full scan; goal < 500 ms: ${busyMs < 500 ? "met" : "NOT met"}`);
    return { scanMs, busyMs, idleMs };
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
