import { describe, expect, it } from "vitest";
import { describeCron, describeEvery, describeSchedule, describeSeconds } from "../../lib/domain/describe-schedule.ts";

describe("interval schedules in words", () => {
  it("names the largest whole unit", () => {
    expect(describeEvery(300)).toBe("every 5 minutes");
    expect(describeEvery(3600)).toBe("every hour");
    expect(describeEvery(7200)).toBe("every 2 hours");
    expect(describeEvery(86_400)).toBe("every day");
    expect(describeEvery(60)).toBe("every minute");
  });

  it("keeps seconds when no larger unit divides the interval", () => {
    expect(describeEvery(90)).toBe("every 90 seconds");
    expect(describeEvery(1)).toBe("every second");
  });

  it("describes an interval schedule without a zone", () => {
    expect(describeSchedule({ kind: "every", everySeconds: 900 })).toBe("every 15 minutes");
  });
});

describe("cron schedules in words", () => {
  it("describes sub-hourly schedules without the zone, which does not change them", () => {
    expect(describeCron("* * * * *", "Europe/Berlin")).toBe("every minute");
    expect(describeCron("*/5 * * * *", "Europe/Berlin")).toBe("every 5 minutes");
    expect(describeCron("15 * * * *", "UTC")).toBe("every hour at :15");
    expect(describeCron("0,30 * * * *", "UTC")).toBe("every hour at :00 and :30");
  });

  it("names clock times with their zone", () => {
    expect(describeCron("30 2 * * *", "Europe/Berlin")).toBe("at 02:30, Europe/Berlin");
    expect(describeCron("0 9,17 * * *", "UTC")).toBe("at 09:00 and 17:00, UTC");
  });

  it("describes days of the week", () => {
    expect(describeCron("0 9 * * 1-5", "America/New_York")).toBe("at 09:00 on weekdays, America/New_York");
    expect(describeCron("0 9 * * MON-FRI", "UTC")).toBe("at 09:00 on weekdays, UTC");
    expect(describeCron("0 0 * * 0,6", "UTC")).toBe("at 00:00 on weekends, UTC");
    expect(describeCron("0 3 * * 1,3,5", "UTC")).toBe("at 03:00 on Monday, Wednesday and Friday, UTC");
    expect(describeCron("0 3 * * 7", "UTC")).toBe("at 03:00 on Sunday, UTC");
  });

  it("describes days of the month and months", () => {
    expect(describeCron("0 4 1 * *", "UTC")).toBe("at 04:00 on day 1 of the month, UTC");
    expect(describeCron("0 4 1,15 * *", "UTC")).toBe("at 04:00 on days 1 and 15 of the month, UTC");
    expect(describeCron("0 0 1 1 *", "UTC")).toBe("at 00:00 on day 1 of the month in January, UTC");
    expect(describeCron("0 6 L * *", "UTC")).toBe("at 06:00 on the last day of the month, UTC");
  });

  it("says either day field may match when both are restricted, as cron does", () => {
    expect(describeCron("0 8 1 * 1", "UTC")).toBe("at 08:00 on day 1 of the month or on Monday, UTC");
  });

  it("describes hour steps and ranges", () => {
    expect(describeCron("0 */6 * * *", "UTC")).toBe("every 6 hours at :00, UTC");
    expect(describeCron("*/15 9-17 * * 1-5", "Europe/London")).toBe("every 15 minutes from 09:00 to 17:59 on weekdays, Europe/London");
  });

  it("reads a leading seconds field", () => {
    expect(describeCron("*/10 * * * * *", "UTC")).toBe("every 10 seconds");
    expect(describeCron("0 30 2 * * *", "UTC")).toBe("at 02:30, UTC");
  });

  it("expands nicknames", () => {
    expect(describeCron("@daily", "Asia/Tokyo")).toBe("at 00:00, Asia/Tokyo");
    expect(describeCron("@hourly", "UTC")).toBe("every hour at :00");
    expect(describeCron("@weekly", "UTC")).toBe("at 00:00 on Sunday, UTC");
  });

  it("shows an expression it cannot describe as it is, rather than guessing", () => {
    expect(describeCron("5/15 * * * *", "UTC")).toBe("cron 5/15 * * * * (UTC)");
    expect(describeCron("0 0 * * 1#2", "UTC")).toBe("cron 0 0 * * 1#2 (UTC)");
    expect(describeCron("not a cron", "UTC")).toBe("cron not a cron (UTC)");
  });
});

describe("durations in words", () => {
  it("uses the largest units that fit", () => {
    expect(describeSeconds(45)).toBe("45 s");
    expect(describeSeconds(900)).toBe("15 min");
    expect(describeSeconds(5400)).toBe("1 h 30 min");
    expect(describeSeconds(172_800)).toBe("2 d");
  });
});
