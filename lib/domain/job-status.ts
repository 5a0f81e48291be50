// A job's status at a glance, derived from the columns the ledger keeps on the job row and `now`.
// Only "paused" and the open-incident count are stored states; late and running pass with time,
// so they are computed here, never written.
export const JOB_STATUSES = ["down", "late", "running", "new", "up", "paused"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Problems first: the overview sorts by this. */
export const STATUS_RANK: Record<JobStatus, number> = { down: 0, late: 1, running: 2, new: 3, up: 4, paused: 5 };

export const STATUS_MEANING: Record<JobStatus, string> = {
  down: "an incident is open, the last run failed, or a slot passed its grace period with no run",
  late: "the expected slot has passed and the grace period is running",
  running: "a run has started and not finished",
  new: "no run has been reported yet",
  up: "the last run succeeded and the next slot is not due yet",
  paused: "not watched: no alerts",
};

export interface JobStatusFacts {
  paused: boolean;
  openIncidents: number;
  /** Outcome of the newest finished run ("succeeded", "failed", …). */
  lastOutcome: string | null;
  lastStartedAt: Date | null;
  lastFinishedAt: Date | null;
  lastPingAt: Date | null;
  /** The checker's deadline for the coming slot: that slot plus grace. null when nothing is due. */
  checkAt: Date | null;
  graceSeconds: number;
}

const FAILED_OUTCOMES = new Set(["failed", "abandoned"]);

/** When the slot the job is waiting for fires (or fired): the deadline minus grace. */
export function expectedSlotAt(f: Pick<JobStatusFacts, "checkAt" | "graceSeconds">): Date | null {
  return f.checkAt ? new Date(f.checkAt.getTime() - f.graceSeconds * 1000) : null;
}

export function isRunning(f: Pick<JobStatusFacts, "lastStartedAt" | "lastFinishedAt">): boolean {
  return f.lastStartedAt !== null && (f.lastFinishedAt === null || f.lastStartedAt.getTime() > f.lastFinishedAt.getTime());
}

export function jobStatus(f: JobStatusFacts, now: Date): JobStatus {
  if (f.paused) return "paused";
  // A failed last run counts as down even below failureThreshold: on-call wants to see it before
  // the alert fires, and the incident list says whether anyone was paged.
  if (f.openIncidents > 0 || (f.lastOutcome !== null && FAILED_OUTCOMES.has(f.lastOutcome))) return "down";
  const t = now.getTime();
  // Past the deadline: the checker opens `missed` on its next tick. Say so now rather than "late".
  if (f.checkAt && t >= f.checkAt.getTime() && !isRunning(f)) return "down";
  if (isRunning(f)) return "running";
  const slot = expectedSlotAt(f);
  if (slot && t >= slot.getTime()) return "late";
  if (f.lastStartedAt === null && f.lastFinishedAt === null && f.lastPingAt === null) return "new";
  return "up";
}

/** Sort key for the overview: status rank, then the longest-standing problem first, then name. */
export function compareByProblem(
  a: { status: JobStatus; since: number | null; slug: string },
  b: { status: JobStatus; since: number | null; slug: string },
): number {
  const rank = STATUS_RANK[a.status] - STATUS_RANK[b.status];
  if (rank !== 0) return rank;
  if (a.since !== b.since) return (a.since ?? Infinity) - (b.since ?? Infinity);
  return a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
}
