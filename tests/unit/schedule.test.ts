import { describe, it, expect } from "vitest";
import {
  cronError,
  timezoneError,
  scheduleError,
  nextFireTimes,
  previousFireTime,
  periodSecondsAt,
  slotToleranceMs,
  slotFor,
  nextSlotAfter,
  type Schedule,
} from "../../lib/domain/schedule.ts";

const at = (iso: string) => new Date(iso);
const isoList = (ds: Date[]) => ds.map((d) => d.toISOString());
const cron = (expr: string, tz = "UTC"): Schedule => ({ kind: "cron", cron: expr, tz });
const every = (everySeconds: number): Schedule => ({ kind: "every", everySeconds });

describe("cronError", () => {
  it.each(["0 9 * * *", "*/5 * * * *", "0 9 * * MON-FRI", "0 0 1,15 * *", "0 0 L * *", "  30 2 * * *  "])(
    "accepts the 5-field expression %j",
    (expr) => {
      expect(cronError(expr)).toBeNull();
    },
  );

  it("accepts a 6-field expression with a leading seconds field", () => {
    expect(cronError("*/10 * * * * *")).toBeNull();
  });

  it.each(["@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually", "@HOURLY"])(
    "accepts the nickname %j",
    (expr) => {
      expect(cronError(expr)).toBeNull();
    },
  );

  it.each([
    ["", "empty"],
    ["   ", "empty"],
    ["garbage", "expected 5 fields"],
    ["* * * *", "expected 5 fields"],
    ["0 0 0 1 1 * 2030", "expected 5 fields"],
    ["2030-01-23T00:00:00", "expected 5 fields"],
    ["60 * * * *", "minute"],
    ["* 24 * * *", "hour"],
    ["* * 32 * *", "day"],
    ["* * * 13 *", "month"],
    ["* * * * 8", "dayOfWeek"],
    ["1-70 * * * *", "minute"],
    ["*/0 * * * *", "stepping"],
    ["a b c d e", "illegal characters"],
    ["@reboot", "unsupported nickname"],
    ["@every 5m", "unsupported nickname"],
    ["0 0 30 2 *", "never fires"],
  ])("rejects %j with a message mentioning %j", (expr, fragment) => {
    const err = cronError(expr);
    expect(err).toMatch(/^invalid cron expression: /);
    expect(err).toContain(fragment);
  });
});

describe("timezoneError", () => {
  it("accepts IANA zone names such as Europe/Berlin, America/New_York and UTC", () => {
    expect(timezoneError("Europe/Berlin")).toBeNull();
    expect(timezoneError("America/New_York")).toBeNull();
    expect(timezoneError("UTC")).toBeNull();
  });

  it("rejects a zone that does not exist, such as Mars/Olympus", () => {
    expect(timezoneError("Mars/Olympus")).toMatch(/^invalid time zone: Mars\/Olympus/);
  });

  it("rejects an empty zone and a raw UTC offset", () => {
    expect(timezoneError("")).toMatch(/^invalid time zone/);
    expect(timezoneError("+01:00")).toMatch(/^invalid time zone/);
  });
});

describe("scheduleError", () => {
  it("accepts a whole number of seconds >= 1 and rejects zero, negatives and fractions", () => {
    expect(scheduleError(every(1))).toBeNull();
    expect(scheduleError(every(300))).toBeNull();
    expect(scheduleError(every(0))).toMatch(/everySeconds/);
    expect(scheduleError(every(-5))).toMatch(/everySeconds/);
    expect(scheduleError(every(1.5))).toMatch(/everySeconds/);
  });

  it("reports a bad time zone or a bad expression of a cron schedule", () => {
    expect(scheduleError(cron("0 9 * * *", "Europe/Berlin"))).toBeNull();
    expect(scheduleError(cron("0 9 * * *", "Mars/Olympus"))).toMatch(/time zone/);
    expect(scheduleError(cron("0 9 * *", "Europe/Berlin"))).toMatch(/cron expression/);
  });
});

describe("nextFireTimes", () => {
  it("fires 0 9 * * * in New York at 14:00 UTC in winter and 13:00 UTC in summer", () => {
    const ny = cron("0 9 * * *", "America/New_York");
    expect(isoList(nextFireTimes(ny, at("2026-01-15T00:00:00Z"), 2))).toEqual([
      "2026-01-15T14:00:00.000Z",
      "2026-01-16T14:00:00.000Z",
    ]);
    expect(isoList(nextFireTimes(ny, at("2026-07-15T00:00:00Z"), 2))).toEqual([
      "2026-07-15T13:00:00.000Z",
      "2026-07-16T13:00:00.000Z",
    ]);
  });

  it("fires 0 9 * * * in UTC at 09:00 UTC all year", () => {
    expect(isoList(nextFireTimes(cron("0 9 * * *"), at("2026-01-15T00:00:00Z"), 1))).toEqual(["2026-01-15T09:00:00.000Z"]);
    expect(isoList(nextFireTimes(cron("0 9 * * *"), at("2026-07-15T00:00:00Z"), 1))).toEqual(["2026-07-15T09:00:00.000Z"]);
  });

  it("moves 0 9 * * * in New York an hour earlier in UTC across the March DST change", () => {
    expect(isoList(nextFireTimes(cron("0 9 * * *", "America/New_York"), at("2026-03-07T00:00:00Z"), 3))).toEqual([
      "2026-03-07T14:00:00.000Z",
      "2026-03-08T13:00:00.000Z",
      "2026-03-09T13:00:00.000Z",
    ]);
  });

  it("returns fire times strictly after the reference, even when it is exactly on one", () => {
    expect(isoList(nextFireTimes(cron("0 * * * *"), at("2026-01-01T02:00:00Z"), 2))).toEqual([
      "2026-01-01T03:00:00.000Z",
      "2026-01-01T04:00:00.000Z",
    ]);
    expect(isoList(nextFireTimes(cron("0 * * * *"), at("2026-01-01T01:59:59.999Z"), 1))).toEqual([
      "2026-01-01T02:00:00.000Z",
    ]);
  });

  it("honours a leading seconds field", () => {
    expect(isoList(nextFireTimes(cron("*/10 * * * * *"), at("2026-01-01T00:00:05.500Z"), 3))).toEqual([
      "2026-01-01T00:00:10.000Z",
      "2026-01-01T00:00:20.000Z",
      "2026-01-01T00:00:30.000Z",
    ]);
  });

  it("expands @hourly to the top of every hour in the schedule's zone", () => {
    // Asia/Kolkata is UTC+05:30, so local top-of-hour is :30 UTC.
    expect(isoList(nextFireTimes(cron("@hourly", "Asia/Kolkata"), at("2026-01-01T00:00:00Z"), 2))).toEqual([
      "2026-01-01T00:30:00.000Z",
      "2026-01-01T01:30:00.000Z",
    ]);
  });

  it("returns an empty list when asked for zero fire times", () => {
    expect(nextFireTimes(cron("0 * * * *"), at("2026-01-01T00:00:00Z"), 0)).toEqual([]);
    expect(nextFireTimes(every(60), at("2026-01-01T00:00:00Z"), 0)).toEqual([]);
  });

  it("aligns every-300-second fire times to UTC epoch multiples of 300 s", () => {
    const times = nextFireTimes(every(300), at("2026-01-01T00:03:17.250Z"), 3);
    expect(isoList(times)).toEqual(["2026-01-01T00:05:00.000Z", "2026-01-01T00:10:00.000Z", "2026-01-01T00:15:00.000Z"]);
    for (const t of times) expect(t.getTime() % 300_000).toBe(0);
  });

  it("aligns an every-7-second schedule to the epoch rather than to the reference time", () => {
    const times = nextFireTimes(every(7), at("2026-01-01T00:00:00Z"), 2);
    for (const t of times) expect(t.getTime() % 7_000).toBe(0);
    expect(times[1].getTime() - times[0].getTime()).toBe(7_000);
    expect(times[0].getTime()).toBeGreaterThan(at("2026-01-01T00:00:00Z").getTime());
  });

  it("returns the next every-slot, not the current one, when the reference is exactly on a slot", () => {
    expect(isoList(nextFireTimes(every(300), at("2026-01-01T00:05:00Z"), 1))).toEqual(["2026-01-01T00:10:00.000Z"]);
  });

  it("throws on an invalid expression, an unknown zone or a zero interval", () => {
    expect(() => nextFireTimes(cron("61 * * * *"), at("2026-01-01T00:00:00Z"), 1)).toThrow(/invalid cron expression/);
    expect(() => nextFireTimes(cron("0 * * * *", "Mars/Olympus"), at("2026-01-01T00:00:00Z"), 1)).toThrow(/time zone/);
    expect(() => nextFireTimes(every(0), at("2026-01-01T00:00:00Z"), 1)).toThrow(/everySeconds/);
  });
});

describe("DST in Europe/Berlin", () => {
  // 2026-03-29: 02:00 CET jumps to 03:00 CEST. 2026-10-25: 03:00 CEST falls back to 02:00 CET.
  it("runs a fixed-time 30 2 * * * once at 03:00 CEST (01:00Z) on the spring-forward day", () => {
    expect(isoList(nextFireTimes(cron("30 2 * * *", "Europe/Berlin"), at("2026-03-27T12:00:00Z"), 3))).toEqual([
      "2026-03-28T01:30:00.000Z", // 02:30 CET
      "2026-03-29T01:00:00.000Z", // 02:30 does not exist; first valid time after the gap, 03:00 CEST
      "2026-03-30T00:30:00.000Z", // 02:30 CEST
    ]);
  });

  it("skips the nonexistent 02:30 for an interval job like 30 * * * * on the spring-forward day", () => {
    expect(isoList(nextFireTimes(cron("30 * * * *", "Europe/Berlin"), at("2026-03-29T00:00:00Z"), 2))).toEqual([
      "2026-03-29T00:30:00.000Z", // 01:30 CET
      "2026-03-29T01:30:00.000Z", // 03:30 CEST
    ]);
  });

  it("runs a fixed-time 30 2 * * * only once, at the first 02:30 (CEST), on the fall-back day", () => {
    expect(isoList(nextFireTimes(cron("30 2 * * *", "Europe/Berlin"), at("2026-10-24T12:00:00Z"), 2))).toEqual([
      "2026-10-25T00:30:00.000Z", // 02:30 CEST; the 02:30 CET at 01:30Z is not a fire time
      "2026-10-26T01:30:00.000Z", // 02:30 CET
    ]);
  });

  it("runs an interval job like 30 * * * * at both 02:30s on the fall-back day", () => {
    expect(isoList(nextFireTimes(cron("30 * * * *", "Europe/Berlin"), at("2026-10-25T00:00:00Z"), 3))).toEqual([
      "2026-10-25T00:30:00.000Z", // 02:30 CEST
      "2026-10-25T01:30:00.000Z", // 02:30 CET
      "2026-10-25T02:30:00.000Z", // 03:30 CET
    ]);
  });

  it("reports a 23-hour period for a daily job on the spring-forward day and 25 hours on the fall-back day", () => {
    const daily = cron("0 9 * * *", "Europe/Berlin");
    expect(periodSecondsAt(daily, at("2026-03-28T12:00:00Z"))).toBe(23 * 3600);
    expect(periodSecondsAt(daily, at("2026-10-24T12:00:00Z"))).toBe(25 * 3600);
  });

  it("reports 23.5 hours from the 02:30 before the gap to the 03:00 run inside it", () => {
    expect(periodSecondsAt(cron("30 2 * * *", "Europe/Berlin"), at("2026-03-28T12:00:00Z"))).toBe(23.5 * 3600);
  });

  it("gives a claim 10 s before the post-gap 03:00 CEST run that run as its slot", () => {
    expect(slotFor(cron("30 2 * * *", "Europe/Berlin"), at("2026-03-29T00:59:50Z"))?.toISOString()).toBe(
      "2026-03-29T01:00:00.000Z",
    );
  });

  it("keeps a claim at the second 02:30 (CET) in the first 02:30's slot for a fixed-time job", () => {
    expect(slotFor(cron("30 2 * * *", "Europe/Berlin"), at("2026-10-25T01:30:00Z"))?.toISOString()).toBe(
      "2026-10-25T00:30:00.000Z",
    );
  });

  it("gives a claim at the second 02:30 (CET) its own slot for an interval job", () => {
    expect(slotFor(cron("30 * * * *", "Europe/Berlin"), at("2026-10-25T01:30:00Z"))?.toISOString()).toBe(
      "2026-10-25T01:30:00.000Z",
    );
    expect(nextSlotAfter(cron("30 * * * *", "Europe/Berlin"), at("2026-10-25T00:30:00Z")).toISOString()).toBe(
      "2026-10-25T01:30:00.000Z",
    );
  });
});

describe("DST in America/New_York", () => {
  // 2026-03-08: 02:00 EST jumps to 03:00 EDT. 2026-11-01: 02:00 EDT falls back to 01:00 EST.
  it("runs a fixed-time 30 2 * * * at 03:00 EDT (07:00Z) on the spring-forward day", () => {
    expect(isoList(nextFireTimes(cron("30 2 * * *", "America/New_York"), at("2026-03-07T12:00:00Z"), 3))).toEqual([
      "2026-03-08T07:00:00.000Z",
      "2026-03-09T06:30:00.000Z",
      "2026-03-10T06:30:00.000Z",
    ]);
  });

  it("runs a fixed-time 30 1 * * * only at 01:30 EDT (05:30Z) on the fall-back day", () => {
    expect(isoList(nextFireTimes(cron("30 1 * * *", "America/New_York"), at("2026-10-31T12:00:00Z"), 2))).toEqual([
      "2026-11-01T05:30:00.000Z",
      "2026-11-02T06:30:00.000Z",
    ]);
  });

  it("runs an interval job like */30 1 * * * through both 01:00 hours on the fall-back day", () => {
    expect(isoList(nextFireTimes(cron("*/30 1 * * *", "America/New_York"), at("2026-11-01T00:00:00Z"), 5))).toEqual([
      "2026-11-01T05:00:00.000Z", // 01:00 EDT
      "2026-11-01T05:30:00.000Z", // 01:30 EDT
      "2026-11-01T06:00:00.000Z", // 01:00 EST
      "2026-11-01T06:30:00.000Z", // 01:30 EST
      "2026-11-02T06:00:00.000Z",
    ]);
  });
});

describe("consistency across DST transitions", () => {
  const cases: Array<[string, string, string]> = [
    ["30 2 * * *", "Europe/Berlin", "2026-03-29T00:00:00Z"],
    ["30 2 * * *", "Europe/Berlin", "2026-10-25T00:00:00Z"],
    ["30 * * * *", "Europe/Berlin", "2026-03-29T00:00:00Z"],
    ["30 * * * *", "Europe/Berlin", "2026-10-25T00:00:00Z"],
    ["*/20 2 * * *", "Europe/Berlin", "2026-10-25T00:00:00Z"],
    ["30 2 * * *", "America/New_York", "2026-03-08T05:00:00Z"],
    ["30 1 * * *", "America/New_York", "2026-11-01T04:00:00Z"],
    ["*/15 1,2 * * *", "America/New_York", "2026-11-01T04:00:00Z"],
  ];

  it.each(cases)(
    "matches slotFor and previousFireTime to the fire times of %j in %s around %s",
    (expr, tz, dayStart) => {
      const schedule = cron(expr, tz);
      const start = at(dayStart).getTime();
      const fires = nextFireTimes(schedule, new Date(start - 2 * 86_400_000), 400).map((d) => d.getTime());
      const latestAtOrBefore = (t: number) => {
        let best: number | null = null;
        for (const f of fires) if (f <= t) best = f;
        return best;
      };
      let checked = 0;
      // Every 2 min 30 s for 24 hours, plus points just around each fire time.
      const probes: number[] = [];
      for (let t = start; t < start + 86_400_000; t += 150_000) probes.push(t);
      for (const f of fires) if (f >= start && f < start + 86_400_000) probes.push(f - 61_000, f - 20_000, f - 1, f, f + 1);
      for (const t of probes) {
        const prev = previousFireTime(schedule, new Date(t));
        expect(prev?.getTime() ?? null).toBe(latestAtOrBefore(t));
        const tol = slotToleranceMs(schedule, new Date(t));
        const slot = slotFor(schedule, new Date(t));
        expect(slot?.getTime() ?? null).toBe(latestAtOrBefore(t + tol));
        if (slot) {
          expect(fires).toContain(slot.getTime());
          const next = nextSlotAfter(schedule, slot).getTime();
          expect(next).toBe(fires[fires.indexOf(slot.getTime()) + 1]);
        }
        checked++;
      }
      expect(checked).toBeGreaterThan(500);
    },
  );

  it("gives the same answers whatever order the questions are asked in", () => {
    const schedule = cron("*/5 * * * *", "Europe/Berlin");
    const times: Date[] = [];
    for (let t = at("2026-03-29T00:40:00Z").getTime(); t < at("2026-03-29T01:20:00Z").getTime(); t += 37_000) times.push(new Date(t));
    const forward = times.map((t) => slotFor(schedule, t)?.toISOString());
    const backward = [...times].reverse().map((t) => slotFor(schedule, t)?.toISOString()).reverse();
    const interleaved = times.map((t, i) => {
      slotFor(schedule, times[times.length - 1 - i]);
      return slotFor(schedule, t)?.toISOString();
    });
    expect(backward).toEqual(forward);
    expect(interleaved).toEqual(forward);
    expect(new Set(forward).size).toBeGreaterThan(5);
  });
});

describe("slotFor", () => {
  const daily2am = cron("0 2 * * *");

  it("counts a claim 20 s early for the coming slot", () => {
    expect(slotFor(daily2am, at("2026-05-10T01:59:40Z"))?.toISOString()).toBe("2026-05-10T02:00:00.000Z");
  });

  it("counts a claim 5 minutes late for the slot it is late for", () => {
    expect(slotFor(daily2am, at("2026-05-10T02:05:00Z"))?.toISOString()).toBe("2026-05-10T02:00:00.000Z");
  });

  it("counts a claim exactly on the slot for that slot", () => {
    expect(slotFor(daily2am, at("2026-05-10T02:00:00Z"))?.toISOString()).toBe("2026-05-10T02:00:00.000Z");
  });

  it("counts a claim exactly 60 s early for the coming slot but 61 s early for the previous one", () => {
    expect(slotFor(daily2am, at("2026-05-10T01:59:00Z"))?.toISOString()).toBe("2026-05-10T02:00:00.000Z");
    expect(slotFor(daily2am, at("2026-05-10T01:58:59Z"))?.toISOString()).toBe("2026-05-09T02:00:00.000Z");
  });

  it("uses a 15 s tolerance for an every-minute cron, so a claim 20 s early belongs to the previous minute", () => {
    const everyMinute = cron("* * * * *");
    expect(slotToleranceMs(everyMinute, at("2026-05-10T12:00:40Z"))).toBe(15_000);
    expect(slotFor(everyMinute, at("2026-05-10T12:00:40Z"))?.toISOString()).toBe("2026-05-10T12:00:00.000Z");
    expect(slotFor(everyMinute, at("2026-05-10T12:00:45Z"))?.toISOString()).toBe("2026-05-10T12:01:00.000Z");
    expect(slotFor(everyMinute, at("2026-05-10T12:00:50Z"))?.toISOString()).toBe("2026-05-10T12:01:00.000Z");
  });

  it("takes the latest fire time within the tolerance, even past the coming one, for a bunched schedule", () => {
    // Fires at hh:00:00 and hh:00:30. At 11:59:50 the period is 59.5 min, so the tolerance is
    // 60 s and 11:59:50 + 60 s = 12:00:50 covers both 12:00:00 and 12:00:30.
    const bunched = cron("0,30 0 * * * *");
    expect(slotFor(bunched, at("2026-05-10T11:59:50Z"))?.toISOString()).toBe("2026-05-10T12:00:30.000Z");
    expect(slotFor(bunched, at("2026-05-10T11:59:20Z"))?.toISOString()).toBe("2026-05-10T12:00:00.000Z");
  });

  it("counts an early claim for the slot of the schedule's zone, not UTC", () => {
    // 0 9 * * * in New York in summer is 13:00Z.
    expect(slotFor(cron("0 9 * * *", "America/New_York"), at("2026-07-15T12:59:30Z"))?.toISOString()).toBe(
      "2026-07-15T13:00:00.000Z",
    );
  });

  it("works at millisecond precision around a slot", () => {
    const hourly = cron("0 * * * *");
    expect(slotFor(hourly, at("2026-05-10T01:59:00.000Z"))?.toISOString()).toBe("2026-05-10T02:00:00.000Z");
    expect(slotFor(hourly, at("2026-05-10T01:58:59.999Z"))?.toISOString()).toBe("2026-05-10T01:00:00.000Z");
  });

  it("puts every-300-second claims in epoch-aligned slots with a 60 s tolerance", () => {
    const fiveMin = every(300);
    expect(slotFor(fiveMin, at("2026-01-01T00:04:40Z"))?.toISOString()).toBe("2026-01-01T00:05:00.000Z");
    expect(slotFor(fiveMin, at("2026-01-01T00:04:00Z"))?.toISOString()).toBe("2026-01-01T00:05:00.000Z");
    expect(slotFor(fiveMin, at("2026-01-01T00:03:59.999Z"))?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(slotFor(fiveMin, at("2026-01-01T00:07:30Z"))?.toISOString()).toBe("2026-01-01T00:05:00.000Z");
  });

  it("uses period/4 as the tolerance for a short every schedule", () => {
    // every 20 s: tolerance 5 s.
    expect(slotFor(every(20), at("2026-01-01T00:00:15Z"))?.toISOString()).toBe("2026-01-01T00:00:20.000Z");
    expect(slotFor(every(20), at("2026-01-01T00:00:14.999Z"))?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
  });

  it("returns null when the schedule has no fire time at or before the claim (cron schedules begin in 1970)", () => {
    expect(slotFor(cron("0 * * * *"), at("1969-06-01T00:00:00Z"))).toBeNull();
    expect(slotFor(cron("0 9 * * *"), at("1970-01-01T05:00:00Z"))).toBeNull();
  });

  it("counts a claim just before the very first fire time for that fire time", () => {
    expect(slotFor(cron("0 * * * *"), at("1969-12-31T23:59:30Z"))?.toISOString()).toBe("1970-01-01T00:00:00.000Z");
  });

  it("answers at once, with null, for an absurdly early claim such as one in the year 50", () => {
    expect(slotFor(cron("0 * * * *", "Europe/Berlin"), at("0050-06-01T00:00:00Z"))).toBeNull();
    expect(nextFireTimes(cron("0 * * * *"), at("0050-06-01T00:00:00Z"), 1)[0].toISOString()).toBe("1970-01-01T00:00:00.000Z");
  });

  it("returns the slot before the year 3000 for a claim after croner's last fire time", () => {
    expect(slotFor(cron("0 * * * *"), at("3000-06-01T00:30:00Z"))?.toISOString()).toBe("3000-06-01T00:00:00.000Z");
    expect(periodSecondsAt(cron("0 * * * *"), at("3000-06-01T00:30:00Z"))).toBe(3600);
  });
});

describe("slotToleranceMs", () => {
  it("caps the tolerance at 60 s for an hourly schedule", () => {
    expect(slotToleranceMs(cron("0 * * * *"), at("2026-05-10T12:34:00Z"))).toBe(60_000);
    expect(slotToleranceMs(cron("@hourly", "Europe/Berlin"), at("2026-05-10T12:34:00Z"))).toBe(60_000);
  });

  it("uses a quarter of the period when that is under 60 s", () => {
    expect(slotToleranceMs(cron("* * * * *"), at("2026-05-10T12:34:00Z"))).toBe(15_000);
    expect(slotToleranceMs(cron("*/10 * * * * *"), at("2026-05-10T12:34:00Z"))).toBe(2_500);
    expect(slotToleranceMs(every(120), at("2026-05-10T12:34:00Z"))).toBe(30_000);
    expect(slotToleranceMs(every(300), at("2026-05-10T12:34:00Z"))).toBe(60_000);
  });
});

describe("nextSlotAfter", () => {
  it("returns the next day's run after a daily slot", () => {
    expect(nextSlotAfter(cron("0 2 * * *"), at("2026-05-10T02:00:00Z")).toISOString()).toBe("2026-05-11T02:00:00.000Z");
  });

  it("returns the first fire time after a time that is not itself a slot", () => {
    expect(nextSlotAfter(cron("0 2 * * *"), at("2026-05-10T01:59:59Z")).toISOString()).toBe("2026-05-10T02:00:00.000Z");
  });

  it("returns the next epoch-aligned slot for an every schedule", () => {
    expect(nextSlotAfter(every(300), at("2026-01-01T00:05:00Z")).toISOString()).toBe("2026-01-01T00:10:00.000Z");
    expect(nextSlotAfter(every(300), at("2026-01-01T00:07:12Z")).toISOString()).toBe("2026-01-01T00:10:00.000Z");
  });
});

describe("periodSecondsAt", () => {
  it("is 3600 for an hourly cron, mid-hour and exactly on the hour", () => {
    expect(periodSecondsAt(cron("0 * * * *"), at("2026-05-10T12:34:56Z"))).toBe(3600);
    expect(periodSecondsAt(cron("0 * * * *"), at("2026-05-10T12:00:00Z"))).toBe(3600);
  });

  it("is everySeconds for an every schedule", () => {
    expect(periodSecondsAt(every(300), at("2026-05-10T12:34:56Z"))).toBe(300);
    expect(periodSecondsAt(every(7), at("2026-05-10T12:34:56Z"))).toBe(7);
  });

  it("measures from the previous fire time to the next for an uneven schedule", () => {
    // Fires at 00:00 and 00:10 each hour: 10 minutes, then 50.
    const uneven = cron("0,10 * * * *");
    expect(periodSecondsAt(uneven, at("2026-05-10T12:05:00Z"))).toBe(600);
    expect(periodSecondsAt(uneven, at("2026-05-10T12:30:00Z"))).toBe(3000);
    expect(slotToleranceMs(uneven, at("2026-05-10T12:05:00Z"))).toBe(60_000);
  });

  it("uses the first two fire times when nothing has fired yet", () => {
    expect(previousFireTime(cron("*/20 * * * *"), at("1969-12-31T12:00:00Z"))).toBeNull();
    expect(periodSecondsAt(cron("*/20 * * * *"), at("1969-12-31T12:00:00Z"))).toBe(1200);
    // Uneven at the start: 09:00 and 09:10 are the first two fire times.
    expect(periodSecondsAt(cron("0,10 9 * * *"), at("1970-01-01T05:00:00Z"))).toBe(600);
  });
});

describe("previousFireTime", () => {
  it("includes a fire time exactly at the reference", () => {
    expect(previousFireTime(cron("0 * * * *"), at("2026-05-10T12:00:00Z"))?.toISOString()).toBe("2026-05-10T12:00:00.000Z");
    expect(previousFireTime(cron("0 * * * *"), at("2026-05-10T12:00:00.500Z"))?.toISOString()).toBe("2026-05-10T12:00:00.000Z");
    expect(previousFireTime(cron("0 * * * *"), at("2026-05-10T11:59:59.999Z"))?.toISOString()).toBe("2026-05-10T11:00:00.000Z");
  });

  it("floors to the epoch-aligned slot for an every schedule", () => {
    expect(previousFireTime(every(300), at("2026-01-01T00:07:12Z"))?.toISOString()).toBe("2026-01-01T00:05:00.000Z");
    expect(previousFireTime(every(300), at("2026-01-01T00:05:00Z"))?.toISOString()).toBe("2026-01-01T00:05:00.000Z");
  });
});
