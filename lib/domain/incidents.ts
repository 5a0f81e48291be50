// The checker's rules, as pure functions of facts and `now`. lib/server gathers the facts, calls
// these, and writes what they decide (incident rows, notifications) in the same transaction.
import type { IncidentKind } from "../contracts/alerts.ts";
import { nextFireTimes, nextSlotAfter, type Schedule } from "./schedule.ts";

/** Runs whose lease TTL is within this fraction of the worst recent runtime put the job at risk. */
export const TTL_RISK_RATIO = 0.8;
/** How many recent runs the TTL-risk rule looks at. */
export const TTL_RISK_WINDOW = 20;

/**
 * When the checker must look at a job next: the slot after `lastSlot` plus grace. A run for a slot
 * (however early, within the slot tolerance) moves this forward; nothing arriving means "missed".
 */
export function missedDeadline(schedule: Schedule, lastSlot: Date, graceSeconds: number): Date {
  return new Date(nextSlotAfter(schedule, lastSlot).getTime() + graceSeconds * 1000);
}

/** A job with no run yet (new, resumed, rescheduled) is first expected at the next fire time after now. */
export function firstDeadline(schedule: Schedule, now: Date, graceSeconds: number): Date {
  return new Date(nextFireTimes(schedule, now, 1)[0].getTime() + graceSeconds * 1000);
}

/** The slot a passed deadline was for. */
export const slotOfDeadline = (deadline: Date, graceSeconds: number) => new Date(deadline.getTime() - graceSeconds * 1000);

/**
 * After a missed slot, the next deadline to watch. A checker that was down for a while skips
 * straight to the first deadline still ahead instead of walking every missed slot.
 */
export function nextDeadlineAfterMiss(schedule: Schedule, missedSlot: Date, graceSeconds: number, now: Date): Date {
  let deadline = missedDeadline(schedule, missedSlot, graceSeconds);
  if (deadline.getTime() <= now.getTime()) deadline = missedDeadline(schedule, new Date(now.getTime() - graceSeconds * 1000), graceSeconds);
  return deadline;
}

export interface FinishFacts {
  outcome: "succeeded" | "failed";
  durationMs: number | null;
  minRuntimeSeconds: number | null;
  maxRuntimeSeconds: number | null;
  /** The run's lease expired before it finished, or another holder took it over. */
  leaseLost: boolean;
  takenOver: boolean;
}

/** A run that counts toward recovery: it succeeded, within its runtime limits, holding its lease. */
export function isGoodRun(f: FinishFacts): boolean {
  return f.outcome === "succeeded" && !isTooFast(f) && !isOverrun(f) && !f.leaseLost;
}

const isTooFast = (f: FinishFacts) => f.outcome === "succeeded" && f.minRuntimeSeconds != null && f.durationMs != null && f.durationMs < f.minRuntimeSeconds * 1000;
const isOverrun = (f: FinishFacts) => f.maxRuntimeSeconds != null && f.durationMs != null && f.durationMs > f.maxRuntimeSeconds * 1000;

/** Kinds a good run resolves once recoveryThreshold good runs are in a row. (missed resolves on
 * any run; ttl_risk by its own measure.) */
export const RESOLVED_BY_RECOVERY: IncidentKind[] = ["failed", "too_fast", "overrun", "abandoned", "lease_expired_mid_run", "zombie", "duplicate"];

export function incidentsOnFinish(
  f: FinishFacts,
  counters: { consecutiveFailures: number; failureThreshold: number; consecutiveGood: number; recoveryThreshold: number },
): { open: IncidentKind[]; resolve: IncidentKind[] } {
  const open: IncidentKind[] = [];
  if (f.outcome === "failed" && counters.consecutiveFailures >= counters.failureThreshold) open.push("failed");
  if (isTooFast(f)) open.push("too_fast");
  if (isOverrun(f)) open.push("overrun");
  if (f.leaseLost) open.push(f.takenOver ? "zombie" : "lease_expired_mid_run");
  const resolve = isGoodRun(f) && counters.consecutiveGood >= counters.recoveryThreshold ? RESOLVED_BY_RECOVERY : [];
  return { open, resolve };
}

/** TTL risk: the worst recent runtime is at least 80 % of the lease TTL. Suggests a TTL with 50 %
 * headroom over that worst case, rounded up to a whole minute. */
export function ttlRisk(recentDurationsMs: number[], ttlSeconds: number): { atRisk: boolean; worstMs: number; suggestedTtlSeconds: number } | null {
  if (recentDurationsMs.length === 0) return null;
  const worstMs = Math.max(...recentDurationsMs);
  const suggestedTtlSeconds = Math.max(60, Math.ceil((worstMs * 1.5) / 60_000) * 60);
  return { atRisk: worstMs >= TTL_RISK_RATIO * ttlSeconds * 1000, worstMs, suggestedTtlSeconds };
}

const fmt = (iso: string | Date) => (typeof iso === "string" ? iso : iso.toISOString()).replace(".000Z", "Z");

/** The one-line summary an incident opens with. */
export function incidentSummary(kind: IncidentKind, e: Record<string, unknown>): string {
  switch (kind) {
    case "missed":
      return `no run for the slot at ${fmt(e.slot as string)} (grace ${e.graceSeconds} s)`;
    case "failed":
      return `${e.consecutiveFailures} failed run${Number(e.consecutiveFailures) > 1 ? "s" : ""} in a row (exit code ${e.exitCode ?? "?"}${e.host ? ` on ${e.host}` : ""})`;
    case "overrun":
      return `a run on ${e.host ?? "an unnamed host"} ran past its ${e.maxRuntimeSeconds} s limit`;
    case "too_fast":
      return `a run finished in ${e.durationMs} ms, under its ${e.minRuntimeSeconds} s minimum`;
    case "lease_expired_mid_run":
      return `the lease of a run on ${e.host ?? "an unnamed host"} expired while it was still running: another server could have started`;
    case "abandoned":
      return `a run on ${e.host ?? "an unnamed host"} stopped heartbeating and never finished; its lease expired at ${fmt(e.leaseExpiredAt as string)}`;
    case "ttl_risk":
      return `worst recent runtime ${Math.round(Number(e.worstMs) / 1000)} s is ${Math.round((100 * Number(e.worstMs)) / (Number(e.ttlSeconds) * 1000))} % of the ${e.ttlSeconds} s lease TTL; suggested TTL ${e.suggestedTtlSeconds} s`;
    case "duplicate": {
      const runs = (e.runIds as string[] | undefined)?.length ?? (e.hosts as string[]).length;
      const what = e.overlap ? "runs overlapped" : `the slot at ${fmt(e.slot as string)} ran ${runs >= 20 ? "20 or more" : runs} times`;
      return `${what}, on ${(e.hosts as string[]).join(", ")}`;
    }
    case "zombie":
      return `a run on ${e.host ?? "an unnamed host"} reported after its lease was taken over by ${e.takenOverBy ?? "another holder"}`;
  }
}

export const INCIDENT_TITLES: Record<IncidentKind, string> = {
  missed: "missed run",
  failed: "failed",
  overrun: "ran too long",
  too_fast: "finished suspiciously fast",
  lease_expired_mid_run: "lease expired mid-run",
  abandoned: "abandoned run",
  ttl_risk: "lease TTL at risk",
  duplicate: "ran more than once",
  zombie: "report from a holder that lost its lease",
};
