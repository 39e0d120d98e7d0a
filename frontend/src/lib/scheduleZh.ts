// Schedules in simple Chinese ("每个工作日 9:00", "每周一和周五上午10点半", "每 15 分钟"), the
// counterpart of schedule.ts's English phrases, for people using the Chinese interface.
import { t } from "../i18n";
import type { ParsedSchedule } from "./schedule";

/** Whether `text` is written (at least partly) in Chinese characters. */
export const hasChinese = (text: string): boolean => /[\u4e00-\u9fff]/.test(text);

/** Day characters after 周/星期/礼拜, as cron numbers them (Sunday 0). */
const DAY: Record<string, number> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 日: 0, 天: 0 };

const PERIOD = "凌晨|早上|早晨|上午|中午|下午|傍晚|晚上";

/** "9:00", "9点", "9点30分", "9点半", "下午5点", "晚上8:30" → [hour, minute]. */
export function parseChineseTime(text: string): [number, number] | undefined {
  const m = new RegExp(`^(${PERIOD})?(\\d{1,2})(?:[:：](\\d{2})|[点时](?:(\\d{1,2})分?|(半))?)$`).exec(text);
  if (!m) return undefined;
  let hour = Number(m[2]);
  const minute = m[5] ? 30 : Number(m[3] ?? m[4] ?? 0);
  const period = m[1];
  // Afternoon and evening hours count from noon ("下午5点" is 17:00); "中午1点" is 13:00.
  if (period && /下午|傍晚|晚上/.test(period) && hour < 12) hour += 12;
  else if (period === "中午" && hour < 11) hour += 12;
  else if (period && /凌晨|早上|早晨|上午/.test(period) && hour === 12) hour = 0;
  if (hour > 23 || minute > 59) return undefined;
  return [hour, minute];
}

/** "每天", "工作日", "周末", "每周一和周五", "星期二、星期四" → a cron day-of-week field. */
function daysField(text: string): string | undefined {
  const s = text.replace(/^在|在$/g, "");
  if (/^(每天|每日|天天)$/.test(s)) return "*";
  if (/^(每个?)?工作日$/.test(s)) return "1-5";
  if (/^(每个?)?周末$/.test(s)) return "0,6";
  const m = /^每?个?((?:(?:周|星期|礼拜)[一二三四五六日天][和、,，及与]?)+)$/.exec(s);
  if (!m?.[1]) return undefined;
  const days = [...m[1].matchAll(/(?:周|星期|礼拜)([一二三四五六日天])/g)].map((d) => DAY[d[1] ?? ""] ?? 0);
  return [...new Set(days)].sort((a, b) => a - b).join(",");
}

/** Reads a Chinese schedule; undefined when `input` is not one (the caller says it is unclear). */
export function parseChineseSchedule(input: string): ParsedSchedule | undefined {
  const s = input.replace(/\s+/g, "").replace(/[。.！!]+$/, "").replace(/的/g, "");
  if (/^每分钟$/.test(s)) return { ok: true, cron: "* * * * *" };
  if (/^每个?小时$/.test(s)) return { ok: true, cron: "0 * * * *" };
  let m = /^每(\d+)分钟$/.exec(s);
  if (m) {
    const n = Number(m[1]);
    if (n < 1 || n > 59) return { ok: false, error: t("lib.schedule.minutesRange") };
    return { ok: true, cron: n === 1 ? "* * * * *" : `*/${n} * * * *` };
  }
  m = /^每(\d+)个?小时$/.exec(s);
  if (m) {
    const n = Number(m[1]);
    if (n < 1 || n > 23) return { ok: false, error: t("lib.schedule.hoursRange") };
    return { ok: true, cron: n === 1 ? "0 * * * *" : `0 */${n} * * *` };
  }
  // The days, then the time of day when given (midnight otherwise, as in English).
  m = new RegExp(`^(.*?)((?:${PERIOD})?\\d.*)?$`).exec(s);
  const days = m?.[1] ? daysField(m[1]) : undefined;
  if (!m || days === undefined) return undefined;
  const time = m[2] ? parseChineseTime(m[2]) : ([0, 0] as [number, number]);
  if (!time) return { ok: false, error: t("lib.schedule.badTime", { time: m[2] }) };
  return { ok: true, cron: `${time[1]} ${time[0]} * * ${days}` };
}
