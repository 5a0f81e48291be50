import { describe, expect, it } from "vitest";
import { firstDeadline, incidentsOnFinish, incidentSummary, isGoodRun, missedDeadline, nextDeadlineAfterMiss, RESOLVED_BY_RECOVERY, ttlRisk } from "../../lib/domain/incidents.ts";
import { idempotencyKeyOf, outputTail } from "../../lib/domain/runs.ts";
import type { Schedule } from "../../lib/domain/schedule.ts";

const everyFive: Schedule = { kind: "cron", cron: "*/5 * * * *", tz: "UTC" };
const counters = { consecutiveFailures: 0, failureThreshold: 1, consecutiveGood: 1, recoveryThreshold: 1 };
const ok = { outcome: "succeeded" as const, durationMs: 5_000, minRuntimeSeconds: null, maxRuntimeSeconds: null, leaseLost: false, takenOver: false };

describe("deadlines", () => {
  it("expects the slot after the last one, plus grace", () => {
    expect(missedDeadline(everyFive, new Date("2026-06-01T10:05:00Z"), 60).toISOString()).toBe("2026-06-01T10:11:00.000Z");
  });

  it("expects a new job at its next fire time after now", () => {
    expect(firstDeadline(everyFive, new Date("2026-06-01T10:05:00Z"), 30).toISOString()).toBe("2026-06-01T10:10:30.000Z");
  });

  it("skips to the first deadline still ahead after a checker outage", () => {
    const next = nextDeadlineAfterMiss(everyFive, new Date("2026-06-01T10:05:00Z"), 60, new Date("2026-06-01T12:32:00Z"));
    expect(next.toISOString()).toBe("2026-06-01T12:36:00.000Z");
  });

  it("walks to the next slot when the checker is on time", () => {
    const next = nextDeadlineAfterMiss(everyFive, new Date("2026-06-01T10:05:00Z"), 60, new Date("2026-06-01T10:06:00Z"));
    expect(next.toISOString()).toBe("2026-06-01T10:11:00.000Z");
  });
});

describe("rules on a finished run", () => {
  it("opens failed only once the failure threshold is reached", () => {
    const failed = { ...ok, outcome: "failed" as const };
    expect(incidentsOnFinish(failed, { ...counters, consecutiveFailures: 1, failureThreshold: 2, consecutiveGood: 0 }).open).toEqual([]);
    expect(incidentsOnFinish(failed, { ...counters, consecutiveFailures: 2, failureThreshold: 2, consecutiveGood: 0 }).open).toEqual(["failed"]);
  });

  it("opens too_fast and overrun by the runtime limits", () => {
    expect(incidentsOnFinish({ ...ok, durationMs: 900, minRuntimeSeconds: 1 }, counters).open).toEqual(["too_fast"]);
    expect(incidentsOnFinish({ ...ok, durationMs: 61_000, maxRuntimeSeconds: 60 }, counters).open).toEqual(["overrun"]);
    expect(incidentsOnFinish({ ...ok, durationMs: 60_000, maxRuntimeSeconds: 60, minRuntimeSeconds: 60 }, counters).open).toEqual([]);
  });

  it("tells a lost lease apart from a takeover", () => {
    expect(incidentsOnFinish({ ...ok, leaseLost: true }, counters).open).toEqual(["lease_expired_mid_run"]);
    expect(incidentsOnFinish({ ...ok, leaseLost: true, takenOver: true }, counters).open).toEqual(["zombie"]);
  });

  it("resolves only after recoveryThreshold good runs, and only with good runs", () => {
    expect(incidentsOnFinish(ok, { ...counters, consecutiveGood: 1, recoveryThreshold: 2 }).resolve).toEqual([]);
    expect(incidentsOnFinish(ok, { ...counters, consecutiveGood: 2, recoveryThreshold: 2 }).resolve).toEqual(RESOLVED_BY_RECOVERY);
    expect(isGoodRun({ ...ok, leaseLost: true })).toBe(false);
    expect(incidentsOnFinish({ ...ok, leaseLost: true }, { ...counters, consecutiveGood: 5 }).resolve).toEqual([]);
  });
});

describe("TTL risk", () => {
  it("flags a worst runtime at 80 % of the TTL and suggests 150 % of it in whole minutes", () => {
    expect(ttlRisk([10_000, 85_000, 20_000], 100)).toEqual({ atRisk: true, worstMs: 85_000, suggestedTtlSeconds: 180 });
    expect(ttlRisk([79_000], 100)?.atRisk).toBe(false);
    expect(ttlRisk([], 100)).toBeNull();
  });
});

describe("summaries", () => {
  it("name the hosts of a duplicate slot", () => {
    expect(incidentSummary("duplicate", { slot: "2026-06-10T02:00:00.000Z", hosts: ["web-1", "web-2", "web-3"], runIds: ["a", "b", "c"] })).toBe("the slot at 2026-06-10T02:00:00Z ran 3 times, on web-1, web-2, web-3");
    expect(incidentSummary("duplicate", { slot: "2026-06-10T02:00:00.000Z", hosts: ["10.0.0.7"], runIds: ["a", "b"] })).toBe("the slot at 2026-06-10T02:00:00Z ran 2 times, on 10.0.0.7");
  });
});

describe("run output and keys", () => {
  it("keeps the last bytes of output without splitting a character", () => {
    expect(outputTail("abcdef", 3)).toBe("def");
    expect(outputTail("aé€", 4)).toBe("€");
    expect(outputTail("", 10)).toBeNull();
  });

  it("makes one idempotency key per job and slot", () => {
    expect(idempotencyKeyOf("billing", new Date("2026-01-05T10:00:00Z"))).toBe("billing:2026-01-05T10:00:00.000Z");
  });
});
