// The schedule field: simple English and raw cron become cron, unclear text says why, and a
// cron expression reads as words with its next run times in the schedule's timezone.
import { describe, expect, it } from "vitest";
import { describeCron, describeSchedule, formatUntil, isTimezone, nextRuns, parseSchedule, parseTime } from "./schedule";

const cronOf = (text: string) => {
  const parsed = parseSchedule(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.cron;
};

describe("parseSchedule", () => {
  it.each([
    ["every weekday at 9:00", "0 9 * * 1-5"],
    ["Every weekday at 9:00.", "0 9 * * 1-5"],
    ["weekdays at 17:30", "30 17 * * 1-5"],
    ["every day at 8am", "0 8 * * *"],
    ["daily at 8 pm", "0 20 * * *"],
    ["every day at noon", "0 12 * * *"],
    ["every day at 12am", "0 0 * * *"],
    ["every day", "0 0 * * *"],
    ["every monday at 10:30", "30 10 * * 1"],
    ["on mondays at 7", "0 7 * * 1"],
    ["every monday and friday at 10:30", "30 10 * * 1,5"],
    ["every tue, thurs and sat at 6:05pm", "5 18 * * 2,4,6"],
    ["every sunday at 9 o'clock", "0 9 * * 0"],
    ["every weekend at 10:00", "0 10 * * 0,6"],
    ["every hour", "0 * * * *"],
    ["hourly", "0 * * * *"],
    ["every 3 hours", "0 */3 * * *"],
    ["every 15 minutes", "*/15 * * * *"],
    ["every 5 mins", "*/5 * * * *"],
    ["every minute", "* * * * *"],
    ["at 7:45", "45 7 * * *"],
  ])("reads %j as %j", (text, cron) => {
    expect(cronOf(text)).toBe(cron);
  });

  it("keeps a valid cron expression of 5 fields, or 6 with leading seconds", () => {
    expect(cronOf("0 9 * * 1-5")).toBe("0 9 * * 1-5");
    expect(cronOf("  */10   8-18 * * MON-FRI ")).toBe("*/10 8-18 * * MON-FRI");
    expect(cronOf("* * * * * *")).toBe("* * * * * *");
  });

  it("refuses a cron expression with a field out of range, saying so", () => {
    const parsed = parseSchedule("0 25 * * *");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(/^Not a valid cron expression/);
  });

  it("explains what it understands when the text is unclear", () => {
    for (const text of ["whenever you like", "every blursday at 9", "every 0 minutes", "every 90 minutes"]) {
      const parsed = parseSchedule(text);
      expect(parsed.ok, text).toBe(false);
    }
    const parsed = parseSchedule("whenever you like");
    if (!parsed.ok) expect(parsed.error).toContain("every weekday at 9:00");
  });

  it("says a time is not a time of day", () => {
    const parsed = parseSchedule("every day at 25:00");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain('"25:00" is not a time of day');
  });

  it("asks for a schedule when the field is empty", () => {
    expect(parseSchedule("  ").ok).toBe(false);
  });
});

describe("parseTime", () => {
  it("reads 24-hour, am/pm and named times", () => {
    expect(parseTime("9")).toEqual([9, 0]);
    expect(parseTime("09:05")).toEqual([9, 5]);
    expect(parseTime("9h30")).toEqual([9, 30]);
    expect(parseTime("12pm")).toEqual([12, 0]);
    expect(parseTime("12:30 a.m.")).toEqual([0, 30]);
    expect(parseTime("midnight")).toEqual([0, 0]);
    expect(parseTime("13pm")).toBeUndefined();
    expect(parseTime("9:60")).toBeUndefined();
  });
});

describe("describeCron", () => {
  it("names the common shapes in a few words", () => {
    expect(describeCron("0 9 * * 1-5")).toBe("Weekdays at 09:00");
    expect(describeCron("0 8 * * *")).toBe("Every day at 08:00");
    expect(describeCron("30 10 * * 1")).toBe("Mondays at 10:30");
    expect(describeCron("30 10 * * 1,5")).toBe("Mondays and Fridays at 10:30");
    expect(describeCron("0 10 * * 0,6")).toBe("Weekends at 10:00");
    expect(describeCron("0 * * * *")).toBe("Every hour");
    expect(describeCron("*/15 * * * *")).toBe("Every 15 minutes");
    expect(describeCron("0 */3 * * *")).toBe("Every 3 hours");
  });

  it("falls back to a general description for other expressions", () => {
    expect(describeCron("0 9 1 * *")).toBe("At 09:00, on day 1 of the month");
    expect(describeCron("* * * * * *")).toBe("Every second");
  });

  it("adds the timezone, UTC when there is none", () => {
    expect(describeSchedule("0 9 * * 1-5", "Europe/Paris")).toBe("Weekdays at 09:00 (Europe/Paris)");
    expect(describeSchedule("0 9 * * 1-5", null)).toBe("Weekdays at 09:00 (UTC)");
  });
});

describe("nextRuns", () => {
  it("answers the next run times in the schedule's timezone", () => {
    // Friday 2026-03-06 12:00 UTC: the next weekdays at 09:00 in Paris (UTC+1) are Mon, Tue, Wed 08:00 UTC.
    const from = new Date("2026-03-06T12:00:00Z");
    expect(nextRuns("0 9 * * 1-5", "Europe/Paris", 3, from).map((d) => d.toISOString())).toEqual([
      "2026-03-09T08:00:00.000Z",
      "2026-03-10T08:00:00.000Z",
      "2026-03-11T08:00:00.000Z",
    ]);
    expect(nextRuns("*/15 * * * *", "UTC", 2, from).map((d) => d.toISOString())).toEqual([
      "2026-03-06T12:15:00.000Z",
      "2026-03-06T12:30:00.000Z",
    ]);
  });

  it("answers none for an expression it cannot read", () => {
    expect(nextRuns("not cron", "UTC", 3)).toEqual([]);
  });
});

describe("formatUntil and isTimezone", () => {
  it("says how long until a run", () => {
    const now = new Date("2026-03-06T12:00:00Z");
    expect(formatUntil("2026-03-06T12:00:20Z", now)).toBe("now");
    expect(formatUntil("2026-03-06T12:05:00Z", now)).toBe("in 5 min");
    expect(formatUntil("2026-03-06T15:00:00Z", now)).toBe("in 3 h");
    expect(formatUntil("2026-03-10T12:00:00Z", now)).toBe("in 4 days");
  });

  it("knows IANA timezones", () => {
    expect(isTimezone("Europe/Paris")).toBe(true);
    expect(isTimezone("UTC")).toBe(true);
    expect(isTimezone("Mars/Olympus")).toBe(false);
    expect(isTimezone("")).toBe(false);
  });
});
