// The job page: everything on-call needs about one job, read with a bounded number of indexed
// queries whatever the size of its history (the run table is keyset-paged, the chart and timeline
// read the newest RECENT_RUNS runs, lease events and incidents are capped).
import { AppError } from "../../contracts/errors.ts";
import type { IncidentView } from "../../contracts/incidents.ts";
import type { RunView } from "../../contracts/runs.ts";
import { describeSchedule } from "../../domain/describe-schedule.ts";
import { expectedSlotAt, jobStatus, type JobStatus } from "../../domain/job-status.ts";
import { nextFireTimes } from "../../domain/schedule.ts";
import type { Database } from "../db.ts";
import { jobLeaseName, scheduleOf } from "../job-view.ts";
import { listIncidents } from "../read-incidents.ts";
import { getLeaseOrThrow } from "../read-leases.ts";
import { listRuns } from "../read-runs.ts";
import { asDate, read } from "../sql.ts";
import type { ChartPoint, TimelineRun } from "../../contracts/dashboard.ts";

export const RUNS_PAGE_SIZE = 25;
export const RECENT_RUNS = 100;
/** Executions drawn on the host timeline. */
export const TIMELINE_RUNS = 30;

export interface Overlap {
  a: { id: string; host: string };
  b: { id: string; host: string };
  ms: number;
}

export interface JobPage {
  now: string;
  job: {
    slug: string;
    name: string;
    tags: string[];
    status: JobStatus;
    schedule: { kind: "cron"; cron: string; tz: string } | { kind: "every"; everySeconds: number };
    scheduleText: string;
    timezone: string;
    graceSeconds: number;
    minRuntimeSeconds: number | null;
    maxRuntimeSeconds: number | null;
    leaseTtlSeconds: number;
    failureThreshold: number;
    recoveryThreshold: number;
    paused: boolean;
    pingUrl: string;
    leaseName: string;
    channels: { id: string; name: string; kind: string }[];
    expectedAt: string | null;
    nextSlots: string[];
    lastStartedAt: string | null;
    lastFinishedAt: string | null;
    lastOutcome: string | null;
    openIncidents: number;
    createdAt: string;
  };
  runs: { items: RunView[]; nextCursor: string | null; cursor: string | null };
  chart: ChartPoint[];
  timeline: { fromMs: number; toMs: number; runs: TimelineRun[]; overlaps: Overlap[]; duplicates: number; refused: number };
  lease: Awaited<ReturnType<typeof getLeaseOrThrow>> | null;
  incidents: { open: IncidentView[]; past: IncidentView[] };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

interface RecentRun {
  id: string;
  slot: Date | null;
  outcome: string;
  host: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  leaseExpiresAt: Date | null;
  leaseLostAt: Date | null;
}

const RECENT_SQL = `SELECT "id", "slot", "outcome", "host", "startedAt", "finishedAt", "durationMs", "leaseExpiresAt", "leaseLostAt"
  FROM "Run" WHERE "jobId" = ? ORDER BY "id" DESC LIMIT ${RECENT_RUNS}`;

export async function readJobPage(db: Database, slug: string, opts: { cursor?: string; baseUrl: string; now: Date }): Promise<JobPage | null> {
  const job = await db.prisma.job.findUnique({ where: { slug }, include: { channels: { select: { channel: { select: { id: true, name: true, kind: true } } } } } });
  if (!job) return null;
  const now = opts.now;
  const [runs, recentRows, lease, open, past] = await Promise.all([
    listRuns(db, slug, { cursor: opts.cursor, limit: RUNS_PAGE_SIZE }),
    read(db, (tx) => tx.all<Record<string, unknown>>(RECENT_SQL, [job.id])),
    getLeaseOrThrow(db, jobLeaseName(slug), 20).catch((error) => {
      // No run has taken the job's lease yet.
      if (error instanceof AppError && error.code === "not_found") return null;
      throw error;
    }),
    listIncidents(db, { jobSlug: slug, status: "open", limit: 50 }),
    listIncidents(db, { jobSlug: slug, status: "resolved", limit: 10 }),
  ]);
  const recent: RecentRun[] = recentRows.map((r) => ({
    id: r.id as string,
    slot: asDate(r.slot),
    outcome: r.outcome as string,
    host: (r.host as string | null) ?? null,
    startedAt: asDate(r.startedAt)!,
    finishedAt: asDate(r.finishedAt),
    durationMs: r.durationMs === null ? null : Number(r.durationMs),
    leaseExpiresAt: asDate(r.leaseExpiresAt),
    leaseLostAt: asDate(r.leaseLostAt),
  }));

  const schedule = scheduleOf(job);
  let nextSlots: string[] = [];
  try {
    nextSlots = nextFireTimes(schedule, now, 5).map((d) => d.toISOString());
  } catch {
    nextSlots = [];
  }
  const facts = { ...job, openIncidents: job.openIncidents };
  return {
    now: now.toISOString(),
    job: {
      slug: job.slug,
      name: job.name,
      tags: JSON.parse(job.tags) as string[],
      status: jobStatus(facts, now),
      schedule,
      scheduleText: describeSchedule(schedule),
      timezone: job.timezone,
      graceSeconds: job.graceSeconds,
      minRuntimeSeconds: job.minRuntimeSeconds,
      maxRuntimeSeconds: job.maxRuntimeSeconds,
      leaseTtlSeconds: job.leaseTtlSeconds,
      failureThreshold: job.failureThreshold,
      recoveryThreshold: job.recoveryThreshold,
      paused: job.paused,
      pingUrl: `${opts.baseUrl}/ping/${job.pingKey}`,
      leaseName: jobLeaseName(job.slug),
      channels: job.channels.map((c) => c.channel),
      expectedAt: job.paused ? null : iso(expectedSlotAt(job)),
      nextSlots: job.paused ? [] : nextSlots,
      lastStartedAt: iso(job.lastStartedAt),
      lastFinishedAt: iso(job.lastFinishedAt),
      lastOutcome: job.lastOutcome,
      openIncidents: job.openIncidents,
      createdAt: job.createdAt.toISOString(),
    },
    runs: { ...runs, cursor: opts.cursor ?? null },
    chart: chartPoints(recent, now),
    timeline: timeline(recent, now),
    lease,
    incidents: { open: open.items, past: past.items },
  };
}

const isExecution = (outcome: string) => !outcome.startsWith("skipped_");

/** Durations of the recent executions, oldest first; a running one counts with its time so far. */
export function chartPoints(recent: RecentRun[], now: Date): ChartPoint[] {
  const points: ChartPoint[] = [];
  for (const r of [...recent].reverse()) {
    if (!isExecution(r.outcome)) continue;
    const running = r.outcome === "running";
    const durationMs = running ? now.getTime() - r.startedAt.getTime() : r.durationMs;
    if (durationMs === null) continue;
    points.push({ id: r.id, startedAt: r.startedAt.toISOString(), durationMs, outcome: r.outcome, running });
  }
  return points;
}

/** The newest executions as bars per host, with every pair that overlapped in time and every slot
 * that ran more than once: the N-times problem, drawn. */
export function timeline(recent: RecentRun[], now: Date): JobPage["timeline"] {
  const executions = recent.filter((r) => isExecution(r.outcome)).slice(0, TIMELINE_RUNS);
  const refused = recent.filter((r) => !isExecution(r.outcome)).length;
  const runs: TimelineRun[] = executions.map((r) => {
    const running = r.outcome === "running";
    const end = r.finishedAt ?? (running ? now : (r.leaseLostAt ?? r.leaseExpiresAt ?? r.startedAt));
    return {
      id: r.id, host: r.host ?? "(unnamed host)", slot: iso(r.slot), outcome: r.outcome, startMs: r.startedAt.getTime(),
      endMs: Math.max(end.getTime(), r.startedAt.getTime()), running, overlaps: false, duplicate: false,
    };
  });
  runs.sort((a, b) => a.startMs - b.startMs);
  const overlaps: Overlap[] = [];
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length && runs[j].startMs < runs[i].endMs; j++) {
      runs[i].overlaps = runs[j].overlaps = true;
      overlaps.push({ a: { id: runs[i].id, host: runs[i].host }, b: { id: runs[j].id, host: runs[j].host }, ms: Math.min(runs[i].endMs, runs[j].endMs) - runs[j].startMs });
    }
  }
  const bySlot = new Map<string, TimelineRun[]>();
  for (const r of runs) if (r.slot) bySlot.set(r.slot, [...(bySlot.get(r.slot) ?? []), r]);
  let duplicates = 0;
  for (const same of bySlot.values()) {
    if (same.length < 2) continue;
    duplicates++;
    for (const r of same) r.duplicate = true;
  }
  const fromMs = runs.length ? Math.min(...runs.map((r) => r.startMs)) : now.getTime();
  const toMs = runs.length ? Math.max(...runs.map((r) => r.endMs)) : now.getTime();
  return { fromMs, toMs, runs, overlaps, duplicates, refused };
}

/** A run's output tail (≤ 100 KB), fetched when someone expands it. */
export async function readRunOutput(db: Database, runId: string): Promise<string | null> {
  const run = await db.prisma.run.findUnique({ where: { id: runId }, select: { output: true } });
  if (!run) throw new AppError("not_found", `no run '${runId}'`);
  return run.output;
}
