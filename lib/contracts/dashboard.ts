// Shapes the dashboard's read models (lib/server/dashboard) hand to its components: defined once
// here, since components may not import lib/server.

/** One run on the duration chart. */
export interface ChartPoint {
  id: string;
  startedAt: string;
  durationMs: number;
  outcome: string;
  /** Still running: the duration so far. */
  running: boolean;
}

/** One execution on the host timeline. */
export interface TimelineRun {
  id: string;
  host: string;
  slot: string | null;
  outcome: string;
  startMs: number;
  endMs: number;
  running: boolean;
  overlaps: boolean;
  duplicate: boolean;
}

/** One bar of an overview sparkline. */
export interface SparkPoint {
  durationMs: number | null;
  outcome: string;
}
