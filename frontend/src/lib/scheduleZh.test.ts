// The schedule field in Chinese: common phrases become cron, like their English counterparts.
import { describe, expect, it } from "vitest";
import { parseSchedule } from "./schedule";
import { parseChineseTime } from "./scheduleZh";

const cronOf = (text: string) => {
  const parsed = parseSchedule(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.cron;
};

describe("Chinese schedules", () => {
  it.each([
    ["每个工作日 9:00", "0 9 * * 1-5"],
    ["工作日 17:30", "30 17 * * 1-5"],
    ["每天早上8点", "0 8 * * *"],
    ["每天晚上 8 点半", "30 20 * * *"],
    ["每天中午12点", "0 12 * * *"],
    ["每天", "0 0 * * *"],
    ["每周一 10:30", "30 10 * * 1"],
    ["每周一和周五上午10点", "0 10 * * 1,5"],
    ["每星期二、星期四下午6点05分", "5 18 * * 2,4"],
    ["每周日 9 点", "0 9 * * 0"],
    ["周末 10:00", "0 10 * * 0,6"],
    ["每小时", "0 * * * *"],
    ["每 3 小时", "0 */3 * * *"],
    ["每15分钟", "*/15 * * * *"],
    ["每分钟。", "* * * * *"],
  ])("reads %j as %j", (text, cron) => {
    expect(cronOf(text)).toBe(cron);
  });

  it("refuses what it cannot read, saying why", () => {
    expect(parseSchedule("每 90 分钟")).toMatchObject({ ok: false, error: "Every N minutes needs N between 1 and 59." });
    expect(parseSchedule("每天 25 点")).toMatchObject({ ok: false });
    expect(parseSchedule("有空的时候")).toMatchObject({ ok: false });
  });

  it("reads times of day with their part of the day", () => {
    expect(parseChineseTime("下午5点半")).toEqual([17, 30]);
    expect(parseChineseTime("中午1点")).toEqual([13, 0]);
    expect(parseChineseTime("凌晨12点")).toEqual([0, 0]);
    expect(parseChineseTime("9：15")).toEqual([9, 15]);
    expect(parseChineseTime("九点")).toBeUndefined();
  });
});
