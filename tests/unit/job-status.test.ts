import { describe, expect, it } from "vitest";
import { compareByProblem, expectedSlotAt, jobStatus, type JobStatusFacts } from "../../lib/domain/job-status.ts";

const now = new Date("2026-06-01T10:00:00Z");
const at = (iso: string) => new Date(iso);
const healthy: JobStatusFacts = {
  paused: false,
  openIncidents: 0,
  lastOutcome: "succeeded",
  lastStartedAt: at("2026-06-01T09:55:00Z"),
  lastFinishedAt: at("2026-06-01T09:55:30Z"),
  lastPingAt: at("2026-06-01T09:55:30Z"),
  // Next slot 10:05, grace 60 s.
  checkAt: at("2026-06-01T10:06:00Z"),
  graceSeconds: 60,
};

describe("job status", () => {
  it("is up when the last run succeeded and the next slot has not come", () => {
    expect(jobStatus(healthy, now)).toBe("up");
  });

  it("is new when nothing has ever been reported", () => {
    expect(jobStatus({ ...healthy, lastOutcome: null, lastStartedAt: null, lastFinishedAt: null, lastPingAt: null }, now)).toBe("new");
  });

  it("is late once the expected slot has passed, within its grace", () => {
    expect(jobStatus(healthy, at("2026-06-01T10:05:30Z"))).toBe("late");
  });

  it("is late, not new, when a new job misses its first slot", () => {
    const fresh = { ...healthy, lastOutcome: null, lastStartedAt: null, lastFinishedAt: null, lastPingAt: null };
    expect(jobStatus(fresh, at("2026-06-01T10:05:10Z"))).toBe("late");
  });

  it("is down once the grace has passed, before the checker's next tick", () => {
    expect(jobStatus(healthy, at("2026-06-01T10:06:00Z"))).toBe("down");
  });

  it("is down while an incident is open", () => {
    expect(jobStatus({ ...healthy, openIncidents: 1 }, now)).toBe("down");
  });

  it("is down when the last run failed, even below the failure threshold", () => {
    expect(jobStatus({ ...healthy, lastOutcome: "failed" }, now)).toBe("down");
  });

  it("is running while the newest start has no finish after it", () => {
    expect(jobStatus({ ...healthy, lastStartedAt: at("2026-06-01T09:59:00Z") }, now)).toBe("running");
  });

  it("stays running past the deadline: a long run covers its slot", () => {
    expect(jobStatus({ ...healthy, lastStartedAt: at("2026-06-01T09:59:00Z") }, at("2026-06-01T10:07:00Z"))).toBe("running");
  });

  it("is paused whatever else is true", () => {
    expect(jobStatus({ ...healthy, paused: true, openIncidents: 2, lastOutcome: "failed" }, now)).toBe("paused");
  });

  it("knows the slot it waits for", () => {
    expect(expectedSlotAt(healthy)?.toISOString()).toBe("2026-06-01T10:05:00.000Z");
    expect(expectedSlotAt({ checkAt: null, graceSeconds: 60 })).toBeNull();
  });
});

describe("problems first", () => {
  it("sorts by status, then the oldest problem, then slug", () => {
    const jobs = [
      { status: "up" as const, since: null, slug: "a" },
      { status: "down" as const, since: 200, slug: "b" },
      { status: "late" as const, since: 100, slug: "c" },
      { status: "down" as const, since: 100, slug: "d" },
      { status: "paused" as const, since: null, slug: "e" },
      { status: "up" as const, since: null, slug: "0" },
    ];
    expect(jobs.sort(compareByProblem).map((j) => j.slug)).toEqual(["d", "b", "c", "0", "a", "e"]);
  });
});
