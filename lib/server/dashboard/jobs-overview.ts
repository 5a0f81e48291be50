// The jobs overview: every job with its status, problems first. Status depends on `now`, so it is
// computed here rather than stored; to stay fast with 10,000 jobs the first pass reads only the
// few columns status needs (one indexless scan of Job, no runs), and only the visible page is
// enriched: its next slots and, in one query, the newest durations of each visible job.
import { compareByProblem, expectedSlotAt, jobStatus, JOB_STATUSES, type JobStatus } from "../../domain/job-status.ts";
import { describeSchedule } from "../../domain/describe-schedule.ts";
import { nextFireTimes } from "../../domain/schedule.ts";
import type { Database } from "../db.ts";
import { scheduleOf } from "../job-view.ts";
import { asDate, read } from "../sql.ts";
import type { SparkPoint } from "../../contracts/dashboard.ts";

export const OVERVIEW_PAGE_SIZE = 50;
/** Runs per sparkline. Any outcome counts: a ping-only job has no durations, and skipping those
 * rows could scan its whole history. */
export const SPARK_RUNS = 24;

export interface OverviewQuery {
  q?: string;
  tag?: string;
  status?: JobStatus;
  page?: number;
}

export interface OverviewRow {
  slug: string;
  name: string;
  tags: string[];
  status: JobStatus;
  schedule: string;
  lastStartedAt: string | null;
  lastFinishedAt: string | null;
  lastOutcome: string | null;
  /** The slot the job waits for (past when late or missed). */
  expectedAt: string | null;
  nextSlotAt: string | null;
  openIncidents: number;
  spark: SparkPoint[];
}

export interface Overview {
  now: string;
  totalJobs: number;
  /** Jobs matching search and tag, by status (the status filter's counts). */
  counts: Record<JobStatus, number>;
  matching: number;
  tags: { tag: string; count: number }[];
  page: number;
  pages: number;
  rows: OverviewRow[];
}

// The scan reads only what status, search, tags and sorting need; the schedule columns are read for
// the visible page only.
const STATUS_COLUMNS = `"id", "slug", "name", "tags", "paused", "graceSeconds", "lastPingAt", "lastStartedAt", "lastFinishedAt", "lastOutcome", "checkAt", "openIncidents"`;
const SCHEDULE_COLUMNS = `"id", "scheduleKind", "cronExpr", "timezone", "everySeconds"`;

interface Scanned {
  id: string;
  slug: string;
  name: string;
  tags: string[];
  status: JobStatus;
  since: number | null;
  row: Record<string, unknown>;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export async function readOverview(db: Database, query: OverviewQuery, now: Date): Promise<Overview> {
  const rows = await read(db, (tx) => tx.all<Record<string, unknown>>(`SELECT ${STATUS_COLUMNS} FROM "Job"`));
  const needle = query.q?.trim().toLowerCase() ?? "";
  const tagCounts = new Map<string, number>();
  const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
  const matching: Scanned[] = [];

  for (const row of rows) {
    const tags = JSON.parse(row.tags as string) as string[];
    for (const tag of tags) tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1);
    const slug = row.slug as string;
    const name = row.name as string;
    if (needle && !slug.toLowerCase().includes(needle) && !name.toLowerCase().includes(needle)) continue;
    if (query.tag && !tags.includes(query.tag)) continue;
    const facts = {
      paused: row.paused === true || row.paused === 1,
      openIncidents: Number(row.openIncidents),
      lastOutcome: (row.lastOutcome as string | null) ?? null,
      lastStartedAt: asDate(row.lastStartedAt),
      lastFinishedAt: asDate(row.lastFinishedAt),
      lastPingAt: asDate(row.lastPingAt),
      checkAt: asDate(row.checkAt),
      graceSeconds: Number(row.graceSeconds),
    };
    const status = jobStatus(facts, now);
    counts[status]++;
    if (query.status && status !== query.status) continue;
    // The longest-standing problem first: when it started to be one, roughly.
    const since = status === "down" || status === "late" ? (expectedSlotAt(facts) ?? facts.lastFinishedAt)?.getTime() ?? null : null;
    matching.push({ id: row.id as string, slug, name, tags, status, since, row });
  }

  matching.sort(compareByProblem);
  const pages = Math.max(1, Math.ceil(matching.length / OVERVIEW_PAGE_SIZE));
  const page = Math.min(Math.max(1, Math.floor(query.page ?? 1)), pages);
  const visible = matching.slice((page - 1) * OVERVIEW_PAGE_SIZE, page * OVERVIEW_PAGE_SIZE);
  const ids = visible.map((j) => j.id);
  const [sparks, schedules] = await Promise.all([readSparklines(db, ids), readSchedules(db, ids)]);

  return {
    now: now.toISOString(),
    totalJobs: rows.length,
    counts,
    matching: matching.length,
    tags: [...tagCounts].map(([tag, count]) => ({ tag, count })).sort((a, b) => (a.tag < b.tag ? -1 : 1)),
    page,
    pages,
    rows: visible.map((j) => toRow(j, schedules.get(j.id)!, now, sparks.get(j.id) ?? [])),
  };
}

async function readSchedules(db: Database, ids: string[]): Promise<Map<string, Record<string, unknown>>> {
  if (ids.length === 0) return new Map();
  const rows = await read(db, (tx) => tx.all<Record<string, unknown>>(`SELECT ${SCHEDULE_COLUMNS} FROM "Job" WHERE "id" IN (${ids.map(() => "?").join(", ")})`, ids));
  return new Map(rows.map((r) => [r.id as string, r]));
}

function toRow(j: Scanned, s: Record<string, unknown>, now: Date, spark: SparkPoint[]): OverviewRow {
  const r = j.row;
  const schedule = scheduleOf({ scheduleKind: s.scheduleKind as string, cronExpr: (s.cronExpr as string | null) ?? null, timezone: s.timezone as string, everySeconds: s.everySeconds === null ? null : Number(s.everySeconds) });
  let nextSlotAt: string | null = null;
  try {
    nextSlotAt = iso(nextFireTimes(schedule, now, 1)[0] ?? null);
  } catch {
    // A schedule croner cannot evaluate (e.g. an old row): show no next slot rather than fail the page.
  }
  return {
    slug: j.slug,
    name: j.name,
    tags: j.tags,
    status: j.status,
    schedule: describeSchedule(schedule),
    lastStartedAt: iso(asDate(r.lastStartedAt)),
    lastFinishedAt: iso(asDate(r.lastFinishedAt)),
    lastOutcome: (r.lastOutcome as string | null) ?? null,
    expectedAt: j.status === "paused" ? null : iso(expectedSlotAt({ checkAt: asDate(r.checkAt), graceSeconds: Number(r.graceSeconds) })),
    nextSlotAt: j.status === "paused" ? null : nextSlotAt,
    openIncidents: Number(r.openIncidents),
    spark,
  };
}

/** The newest SPARK_RUNS runs of each job, in one statement: a UNION ALL of per-job index scans on
 * (jobId, id), so a job with a million runs costs what a job with twenty does. */
async function readSparklines(db: Database, jobIds: string[]): Promise<Map<string, SparkPoint[]>> {
  const byJob = new Map<string, SparkPoint[]>();
  if (jobIds.length === 0) return byJob;
  const one = (i: number) => `SELECT * FROM (SELECT "jobId", "id", "outcome", "durationMs" FROM "Run" WHERE "jobId" = ? ORDER BY "id" DESC LIMIT ${SPARK_RUNS}) AS r${i}`;
  const sql = jobIds.map((_, i) => one(i)).join(" UNION ALL ");
  const rows = await read(db, (tx) => tx.all<{ jobId: string; id: string; outcome: string; durationMs: number | null }>(sql, jobIds));
  // Oldest first, for drawing left to right.
  rows.sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const r of rows) {
    let list = byJob.get(r.jobId);
    if (!list) byJob.set(r.jobId, (list = []));
    list.push({ outcome: r.outcome, durationMs: r.durationMs === null ? null : Number(r.durationMs) });
  }
  return byJob;
}
