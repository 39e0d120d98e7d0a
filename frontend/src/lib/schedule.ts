// Schedules for people: simple English ("every weekday at 9:00") or a raw cron expression
// becomes cron; a cron expression becomes words ("Weekdays at 09:00", "工作日 09:00") and its
// next run times. The English → cron mapping is ours (small on purpose); the general
// description comes from cronstrue (in the UI's language) and the run times from croner, both
// in the schedule's own timezone.
import { Cron } from "croner";
import cronstrue from "cronstrue";
// Registers cronstrue's Simplified Chinese descriptions (`locale: "zh_CN"`).
import "cronstrue/locales/zh_CN";
import { currentLanguage, t } from "../i18n";
import { formatLocale } from "./format";
import { hasChinese, parseChineseSchedule } from "./scheduleZh";

/** What the schedule field understood: a cron expression, or why it could not. */
export type ParsedSchedule = { ok: true; cron: string } | { ok: false; error: string };

const DAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] as const;
/** The catalogue keys of the days' plural names ("Mondays"), Sunday first as cron counts. */
const DAY_KEYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] as const;

/** The examples the field understands (English phrases and cron, whatever the UI's language). */
const help = (): string => t("lib.schedule.help");

/** The day index (0 = Sunday) of an English day name or its abbreviation ("mon", "tues"). */
function dayIndex(word: string): number | undefined {
  const w = word.replace(/s$/, "");
  if (w.length < 3) return undefined;
  const i = DAYS.findIndex((d) => d.startsWith(w) || d === `${w}s`);
  return i < 0 ? undefined : i;
}

/** "9", "9:30", "09:30", "8am", "8 pm", "12:15am", "noon", "midnight" → [hour, minute]. */
export function parseTime(text: string): [number, number] | undefined {
  const t = text.trim().toLowerCase().replace(/\./g, "");
  if (t === "noon" || t === "midday") return [12, 0];
  if (t === "midnight") return [0, 0];
  const m = /^(\d{1,2})(?:[:h](\d{2}))?\s*(am|pm|a|p)?$/.exec(t);
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = m[2] ? Number(m[2]) : 0;
  const meridiem = m[3]?.[0];
  if (meridiem) {
    if (hour < 1 || hour > 12) return undefined;
    if (meridiem === "a") hour = hour === 12 ? 0 : hour;
    else hour = hour === 12 ? 12 : hour + 12;
  }
  if (hour > 23 || minute > 59) return undefined;
  return [hour, minute];
}

/** Whether `text` looks like a cron expression (5 fields, or 6 with leading seconds). */
function looksLikeCron(text: string): boolean {
  const fields = text.split(/\s+/);
  return (fields.length === 5 || fields.length === 6) && fields.every((f) => /^[\d*/,\-?LW#A-Za-z]+$/.test(f)) && /[\d*]/.test(fields[0] ?? "");
}

/** Why croner refuses `cron`, or undefined when it reads it. */
function cronError(cron: string): string | undefined {
  try {
    new Cron(cron, { paused: true });
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** The days part ("weekday", "monday and friday", "weekend") → a cron day-of-week field. */
function daysField(text: string): string | undefined {
  const t = text.trim();
  if (/^(day|days|daily)$/.test(t)) return "*";
  if (/^(weekday|weekdays|work ?day|work ?days|business day|business days)$/.test(t)) return "1-5";
  if (/^(weekend|weekends|weekend day|weekend days)$/.test(t)) return "0,6";
  const words = t.split(/\s*(?:,|\band\b|&|\+)\s*/).filter(Boolean);
  const days = words.map(dayIndex);
  if (days.length === 0 || days.some((d) => d === undefined)) return undefined;
  return [...new Set(days as number[])].sort((a, b) => a - b).join(",");
}

/**
 * Reads the schedule field: simple English or Chinese, or a raw cron expression. Times are read in the
 * schedule's timezone (the cron expression carries none).
 */
export function parseSchedule(input: string): ParsedSchedule {
  const raw = input.trim().replace(/\s+/g, " ");
  if (!raw) return { ok: false, error: `${t("lib.schedule.empty")} ${help()}` };
  if (looksLikeCron(raw)) {
    const error = cronError(raw);
    return error ? { ok: false, error: t("lib.schedule.badCron", { error }) } : { ok: true, cron: raw };
  }
  if (hasChinese(raw)) {
    const zh = parseChineseSchedule(raw);
    if (zh) return zh;
  }
  const phrase = raw
    .toLowerCase()
    .replace(/[.!]+$/, "")
    .replace(/^(run |do it |repeat )/, "")
    .replace(/\bo'?clock\b/, "")
    .trim();

  if (/^(every minute|each minute)$/.test(phrase)) return { ok: true, cron: "* * * * *" };
  if (/^(every hour|each hour|hourly)$/.test(phrase)) return { ok: true, cron: "0 * * * *" };
  let m = /^every (\d+) ?(minutes?|mins?|m)$/.exec(phrase);
  if (m) {
    const n = Number(m[1]);
    if (n < 1 || n > 59) return { ok: false, error: t("lib.schedule.minutesRange") };
    return { ok: true, cron: n === 1 ? "* * * * *" : `*/${n} * * * *` };
  }
  m = /^every (\d+) ?(hours?|hrs?|h)$/.exec(phrase);
  if (m) {
    const n = Number(m[1]);
    if (n < 1 || n > 23) return { ok: false, error: t("lib.schedule.hoursRange") };
    return { ok: true, cron: n === 1 ? "0 * * * *" : `0 */${n} * * *` };
  }
  // "every day at 8am", "weekdays at 9:00", "on mondays and fridays at 10:30", "daily".
  m = /^(?:every |each |on )?(.+?)(?: (?:at|@) (.+))?$/.exec(phrase);
  const days = m?.[1] ? daysField(m[1]) : undefined;
  if (m && days !== undefined) {
    const time = m[2] === undefined ? ([0, 0] as [number, number]) : parseTime(m[2]);
    if (!time) return { ok: false, error: t("lib.schedule.badTime", { time: m[2] }) };
    return { ok: true, cron: `${time[1]} ${time[0]} * * ${days}` };
  }
  // "at 9:00" alone: every day.
  m = /^at (.+)$/.exec(phrase);
  const alone = m?.[1] ? parseTime(m[1]) : undefined;
  if (alone) return { ok: true, cron: `${alone[1]} ${alone[0]} * * *` };
  return { ok: false, error: `${t("lib.schedule.unclear", { text: raw })} ${help()}` };
}

const pad = (n: number) => String(n).padStart(2, "0");

/** The days of a day-of-week field we name ourselves ("1-5", "0,6", "1,3"), else undefined. */
function daysLabel(field: string): string | undefined {
  if (field === "*") return t("lib.schedule.everyDay");
  if (field === "1-5" || field === "MON-FRI") return t("lib.schedule.weekdays");
  if (field === "0,6" || field === "6,0") return t("lib.schedule.weekends");
  if (!/^[0-7](,[0-7])*$/.test(field)) return undefined;
  const names = [...new Set(field.split(",").map((d) => Number(d) % 7))].map((d) =>
    t(`lib.schedule.days.${DAY_KEYS[d] ?? "sunday"}`),
  );
  if (names.length === 1) return names[0];
  return t("lib.schedule.dayList", { first: names.slice(0, -1).join(t("lib.schedule.listSeparator")), last: names.at(-1) });
}

/** cronstrue's name of each UI language. */
const CRONSTRUE_LOCALES: Record<ReturnType<typeof currentLanguage>, string> = { en: "en", "zh-CN": "zh_CN" };

/** Words for a cron expression: ours for the common shapes, cronstrue's for the rest. */
export function describeCron(cron: string): string {
  const fields = cron.trim().split(/\s+/);
  if (fields.length === 5) {
    const [minute = "", hour = "", dom = "", month = "", dow = ""] = fields;
    if (dom === "*" && month === "*" && dow === "*") {
      if (minute === "*" && hour === "*") return t("lib.schedule.everyMinute");
      if (minute === "0" && hour === "*") return t("lib.schedule.everyHour");
      const every = /^\*\/(\d+)$/.exec(minute);
      if (every && hour === "*") return t("lib.schedule.everyMinutes", { count: Number(every[1]) });
      const hours = /^\*\/(\d+)$/.exec(hour);
      if (minute === "0" && hours) return t("lib.schedule.everyHours", { count: Number(hours[1]) });
    }
    if (/^\d+$/.test(minute) && /^\d+$/.test(hour) && dom === "*" && month === "*") {
      const days = daysLabel(dow);
      if (days) return t("lib.schedule.daysAt", { days, time: `${pad(Number(hour))}:${pad(Number(minute))}` });
    }
  }
  try {
    return cronstrue.toString(cron, {
      use24HourTimeFormat: true,
      verbose: false,
      throwExceptionOnParseError: true,
      locale: CRONSTRUE_LOCALES[currentLanguage()],
    });
  } catch {
    return cron;
  }
}

/** "Weekdays at 09:00 (Europe/Paris)": the schedule with its timezone. */
export function describeSchedule(cron: string, timezone: string | null | undefined): string {
  return t("lib.schedule.withTimezone", { schedule: describeCron(cron), timezone: timezone || "UTC" });
}

/** The next `count` run times of `cron` in `timezone` after `from` (none when it cannot run). */
export function nextRuns(cron: string, timezone: string, count: number, from: Date = new Date()): Date[] {
  try {
    return new Cron(cron, { paused: true, timezone: timezone || "UTC" }).nextRuns(count, from);
  } catch {
    return [];
  }
}

/** Whether the browser knows `timezone` as an IANA name. */
export function isTimezone(timezone: string): boolean {
  if (!timezone.trim()) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** The browser's timezone (UTC when it says none). */
export function browserTimezone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** The IANA timezones the browser knows (for the timezone field's suggestions). */
export function timezones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  try {
    return intl.supportedValuesOf?.("timeZone") ?? [];
  } catch {
    return [];
  }
}

/** "Mon, 3 Mar, 09:00": a run time in the reader's locale, in `timezone` when given. */
export function formatRunTime(date: Date | string, timezone?: string): string {
  const d = typeof date === "string" ? new Date(date) : date;
  if (Number.isNaN(d.getTime())) return "";
  return d.toLocaleString(formatLocale(), {
    weekday: "short",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    ...(timezone ? { timeZone: timezone } : {}),
  });
}

/** "in 5 min", "in 3 h", "in 2 days" (or "now" when due). */
export function formatUntil(date: Date | string, now: Date = new Date()): string {
  const d = typeof date === "string" ? new Date(date) : date;
  const ms = d.getTime() - now.getTime();
  if (!Number.isFinite(ms)) return "";
  if (ms < 60_000) return t("format.now");
  const min = Math.round(ms / 60_000);
  if (min < 60) return t("format.inMinutes", { count: min });
  const hours = Math.round(min / 60);
  if (hours < 48) return t("format.inHours", { count: hours });
  return t("format.inDays", { count: Math.round(hours / 24) });
}
