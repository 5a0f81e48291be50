// Server-side render time of the dashboard's heaviest pages, measured by HTTP GET against the real
// server (`node --import tsx server.ts`, checker off) with a signed-in session:
//   - the job page of a job with 1,000,000 runs (budget: p95 < 300 ms), first page and a page
//     500,000 runs deep (keyset: it must cost the same);
//   - the jobs overview with 10,000 jobs (budget: p95 < 500 ms);
//   - GET /api/v1/health in the same run, as the reference.
// The database is seeded with raw SQL in batches (one SQLite file in a temp dir; the seeding time is
// printed). BENCH_DASHBOARD_RUNS / BENCH_DASHBOARD_JOBS / BENCH_DASHBOARD_SAMPLES change the sizes.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { JobCreate } from "../lib/contracts/jobs.ts";
import { createSession, SESSION_COOKIE } from "../lib/server/dashboard/sessions.ts";
import { openDatabase } from "../lib/server/db.ts";
import { newId, newSecret } from "../lib/server/ids.ts";
import { migrate } from "../lib/server/migrate.ts";
import { createJob } from "../lib/server/save-job.ts";
import { sqliteTime } from "../lib/server/sql.ts";
import { createUser } from "../lib/server/users.ts";
import { spawnListening } from "./support.ts";

const RUNS = Number(process.env.BENCH_DASHBOARD_RUNS ?? 1_000_000);
const JOBS = Number(process.env.BENCH_DASHBOARD_JOBS ?? 10_000);
const RUNS_PER_SMALL_JOB = 5;
const SAMPLES = Number(process.env.BENCH_DASHBOARD_SAMPLES ?? 40);
const WARM_UP = 5;
const BATCH = 20_000;
const BIG_JOB = "big-job";
const HOSTS = ["web-1", "web-2", "web-3"];
const CRONS = ["*/5 * * * *", "0 * * * *", "30 2 * * *", "0 9 * * 1-5", "15 */6 * * *", "0 0 1 * *", "*/15 9-17 * * 1-5", "@daily"];
const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"];
const TAGS = ["billing", "reports", "sync", "cleanup", "email", "search", "backup", "etl"];

const INSERT_RUN = `INSERT INTO "Run" ("id", "jobId", "slot", "claimedSlot", "source", "outcome", "holder", "host", "leaseName", "fencingToken",
  "idempotencyKey", "exitCode", "output", "startedAt", "finishedAt", "durationMs", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const INSERT_JOB = `INSERT INTO "Job" ("id", "slug", "name", "tags", "scheduleKind", "cronExpr", "timezone", "everySeconds", "graceSeconds",
  "maxRuntimeSeconds", "leaseTtlSeconds", "failureThreshold", "recoveryThreshold", "paused", "pingKey", "lastPingAt", "lastStartedAt", "lastFinishedAt",
  "lastOutcome", "checkAt", "openIncidents", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

interface Row {
  page: string;
  samplesMs: number[];
  budgetMs?: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function seed(url: string, file: string) {
  const startedAt = performance.now();
  await migrate(url);
  const db = openDatabase(url);
  const user = await createUser(db, { email: "bench@example.com", password: "bench password 123", role: "admin" });
  const { token } = await createSession(db, user.id);
  const big = await createJob(db, JobCreate.parse({ slug: BIG_JOB, name: "Big job (1M runs)", schedule: { every: 60 }, maxRuntimeSeconds: 600, leaseTtlSeconds: 900, tags: ["billing"] }));
  const conn = db.sqlite!;
  conn.pragma("synchronous = OFF");
  const insertRun = conn.prepare(INSERT_RUN);
  const insertJob = conn.prepare(INSERT_JOB);
  const nowMs = Date.now();
  // One run a minute, ending now: the oldest is RUNS minutes ago.
  const firstMs = Math.floor(nowMs / 60_000) * 60_000 - RUNS * 60_000;
  let deepCursor = "";
  const runBatch = conn.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const slotMs = firstMs + i * 60_000;
      const started = slotMs + (i % 7) * 100;
      const roll = i % 100;
      const outcome = roll < 97 ? "succeeded" : roll < 99 ? "failed" : "skipped_lease_held";
      const executed = outcome !== "skipped_lease_held";
      const durationMs = executed ? 20_000 + ((i * 7919) % 40_000) : 0;
      const id = newId(started);
      if (i === Math.floor(RUNS / 2)) deepCursor = id;
      const slot = sqliteTime(new Date(slotMs));
      insertRun.run(
        id, big.id, slot, executed ? slot : null, "claim", outcome, HOSTS[i % 3], HOSTS[i % 3], `job:${BIG_JOB}`, executed ? i + 1 : null,
        `${BIG_JOB}:${new Date(slotMs).toISOString()}`, executed ? (outcome === "failed" ? 1 : 0) : null, outcome === "failed" ? `error in batch ${i}\n` : null,
        sqliteTime(new Date(started)), sqliteTime(new Date(started + durationMs)), durationMs, sqliteTime(new Date(started)),
      );
    }
  });
  for (let from = 0; from < RUNS; from += BATCH) runBatch(from, Math.min(RUNS, from + BATCH));
  conn.prepare(`UPDATE "Job" SET "lastStartedAt" = ?, "lastFinishedAt" = ?, "lastOutcome" = 'succeeded', "checkAt" = ? WHERE "id" = ?`).run(
    sqliteTime(new Date(nowMs - 60_000)), sqliteTime(new Date(nowMs - 30_000)), sqliteTime(new Date(nowMs + 60_000 + 300_000)), big.id,
  );
  const runsSeededAt = performance.now();

  const jobBatch = conn.transaction((from: number, to: number) => {
    for (let j = from; j < to; j++) {
      const id = newId();
      const cron = j % 3 !== 0;
      const state = j % 50; // a few problems among many healthy jobs
      const lastMs = nowMs - 120_000 - (j % 600) * 1000;
      const checkAt = state === 1 ? nowMs - 30_000 : nowMs + 3_600_000;
      const lastOutcome = state === 2 ? "failed" : "succeeded";
      insertJob.run(
        id, `job-${String(j).padStart(5, "0")}`, `Job ${j} ${TAGS[j % TAGS.length]}`, JSON.stringify([TAGS[j % TAGS.length], TAGS[(j * 3) % TAGS.length]]),
        cron ? "cron" : "every", cron ? CRONS[j % CRONS.length] : null, cron ? ZONES[j % ZONES.length] : "UTC", cron ? null : 300 * (1 + (j % 4)),
        300, 600, 900, 1, 1, state === 3 ? 1 : 0, newSecret(16), sqliteTime(new Date(lastMs)), sqliteTime(new Date(lastMs - 5000)), sqliteTime(new Date(lastMs)),
        lastOutcome, sqliteTime(new Date(checkAt)), state === 2 ? 1 : 0, sqliteTime(new Date(nowMs - 86_400_000)), sqliteTime(new Date(nowMs - 86_400_000)),
      );
      for (let r = 0; r < RUNS_PER_SMALL_JOB; r++) {
        const started = lastMs - (RUNS_PER_SMALL_JOB - 1 - r) * 300_000;
        const slot = sqliteTime(new Date(Math.floor(started / 60_000) * 60_000));
        const durationMs = 1000 + ((j * 31 + r * 17) % 9000);
        insertRun.run(
          newId(started), id, slot, slot, "claim", r === RUNS_PER_SMALL_JOB - 1 ? lastOutcome : "succeeded", HOSTS[r % 3], HOSTS[r % 3], `job:job-${j}`, r + 1,
          null, 0, null, sqliteTime(new Date(started)), sqliteTime(new Date(started + durationMs)), durationMs, sqliteTime(new Date(started)),
        );
      }
    }
  });
  for (let from = 0; from < JOBS; from += 1000) jobBatch(from, Math.min(JOBS, from + 1000));
  conn.pragma("wal_checkpoint(TRUNCATE)");
  conn.exec("ANALYZE");
  await db.close();
  const doneAt = performance.now();
  const sizeMb = fs.statSync(file).size / 1024 / 1024;
  console.log(
    `\nseeded ${RUNS.toLocaleString("en")} runs of one job in ${((runsSeededAt - startedAt) / 1000).toFixed(1)} s, ` +
      `${JOBS.toLocaleString("en")} more jobs with ${(JOBS * RUNS_PER_SMALL_JOB).toLocaleString("en")} runs in ${((doneAt - runsSeededAt) / 1000).toFixed(1)} s (database ${sizeMb.toFixed(0)} MB)`,
  );
  return { token, deepCursor };
}

async function timeGet(url: string, cookie: string, expect: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers: { cookie }, redirect: "manual" });
  const body = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200 || !body.includes(expect)) throw new Error(`GET ${url}: ${response.status}, expected a page with ${expect}`);
  return ms;
}

export async function benchDashboard() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "deadbolt-bench-dashboard-"));
  const file = path.join(dir, "bench.db");
  const url = `file:${file}`;
  try {
    const { token, deepCursor } = await seed(url, file);
    const server = await spawnListening(["--import", "tsx", "server.ts"], { DATABASE_URL: url, DEADBOLT_WORKER: "off" });
    try {
      const cookie = `${SESSION_COOKIE}=${token}`;
      const pages: (Row & { url: string; expect: string })[] = [
        { page: `job page, ${RUNS.toLocaleString("en")} runs, newest`, url: `${server.url}/jobs/${BIG_JOB}`, expect: 'data-testid="runs-table"', samplesMs: [], budgetMs: 300 },
        { page: `job page, ${RUNS.toLocaleString("en")} runs, ${(RUNS / 2).toLocaleString("en")} deep`, url: `${server.url}/jobs/${BIG_JOB}?cursor=${deepCursor}`, expect: 'data-testid="runs-table"', samplesMs: [], budgetMs: 300 },
        { page: `overview, ${(JOBS + 1).toLocaleString("en")} jobs`, url: `${server.url}/`, expect: 'data-testid="jobs-table"', samplesMs: [], budgetMs: 500 },
        { page: "overview, status filter + search", url: `${server.url}/?status=up&q=job-00`, expect: 'data-testid="jobs-table"', samplesMs: [], budgetMs: 500 },
        { page: "reference: GET /api/v1/health", url: `${server.url}/api/v1/health`, expect: '"ok"', samplesMs: [] },
      ];
      for (const p of pages) for (let i = 0; i < WARM_UP; i++) await timeGet(p.url, cookie, p.expect);
      // Interleaved, one request at a time: each sample is one page's server time plus a loopback trip.
      for (let i = 0; i < SAMPLES; i++) for (const p of pages) p.samplesMs.push(await timeGet(p.url, cookie, p.expect));

      console.log(`\nDashboard render time, sequential GETs with a session cookie, ${SAMPLES} samples each (after ${WARM_UP} warm-up)`);
      console.log("| page | p50 ms | p95 ms | max ms | budget (p95) |");
      console.log("|---|---|---|---|---|");
      let failed = false;
      for (const p of pages) {
        const sorted = [...p.samplesMs].sort((a, b) => a - b);
        const p95 = percentile(sorted, 95);
        const verdict = p.budgetMs === undefined ? "—" : `${p.budgetMs} ms ${p95 <= p.budgetMs ? "ok" : "OVER"}`;
        if (p.budgetMs !== undefined && p95 > p.budgetMs) failed = true;
        console.log(`| ${p.page} | ${percentile(sorted, 50).toFixed(1)} | ${p95.toFixed(1)} | ${sorted[sorted.length - 1].toFixed(1)} | ${verdict} |`);
      }
      return { failed, pages: pages.map(({ page, samplesMs }) => ({ page, samplesMs })) };
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// `node --import tsx bench/dashboard.ts` runs it alone (bench/run.ts will run it as "dashboard").
if (import.meta.url === `file://${process.argv[1]}`) {
  execFileSync(process.execPath, ["scripts/ensure-build.mjs"], { stdio: "inherit" });
  await benchDashboard();
  process.exit(0);
}
