// Sizes, dates and durations for people, in the language the UI is in: the words come from the
// `format` namespace of the catalogues, dates and numbers from `Intl` for the locale.
import { currentLanguage, t } from "../i18n";

/**
 * The locale dates and numbers are formatted for: the UI's language, refined by the browser's
 * region when it prefers a variant of that language (an English UI in a British browser shows
 * "28 Nov 2026"; a Chinese UI shows Chinese dates whatever the browser says).
 */
export function formatLocale(): string {
  const lang = currentLanguage();
  const preferred = typeof navigator === "undefined" ? [] : (navigator.languages ?? [navigator.language]);
  const base = lang.split("-")[0] ?? lang;
  const variant = preferred.find((tag) => typeof tag === "string" && tag.split("-")[0]?.toLowerCase() === base);
  if (!variant || lang.includes("-")) return lang;
  try {
    return Intl.getCanonicalLocales(variant)[0] ?? lang;
  } catch {
    return lang;
  }
}

/** A number with at most `digits` decimals (exactly `digits` when `fixed`), for the locale. */
export function formatDecimal(n: number, digits = 0, fixed = false): string {
  return new Intl.NumberFormat(formatLocale(), {
    maximumFractionDigits: digits,
    minimumFractionDigits: fixed ? digits : 0,
  }).format(n);
}

/** "512 B", "1.5 KB", "50 MB" (binary units, as file sizes are usually shown). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes < 1024) return `${formatDecimal(bytes)} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? formatDecimal(value, 1, true) : formatDecimal(Math.round(value))} ${units[unit]}`;
}

/** "just now", "5 min ago", "3 h ago", else a short date. */
export function formatRelative(iso: string, now: Date = new Date()): string {
  const date = new Date(iso);
  const ms = now.getTime() - date.getTime();
  if (!Number.isFinite(ms)) return "";
  const min = Math.round(ms / 60000);
  if (min < 1) return t("format.justNow");
  if (min < 60) return t("format.minutesAgo", { count: min });
  const hours = Math.round(min / 60);
  if (hours < 24) return t("format.hoursAgo", { count: hours });
  return formatDate(iso);
}

/** Date and time, short: "Nov 28, 2026, 02:41 PM" in English, "2026年11月28日 14:41" in Chinese. */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleString(formatLocale(), {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  });
}

/**
 * "3 files": English plurals only, kept for callers not yet moved to the catalogues; new code
 * uses `t("ns.key", { count })` with `_one`/`_other` keys instead.
 */
export function pluralize(n: number, word: string, plural = `${word}s`): string {
  return `${n} ${n === 1 ? word : plural}`;
}

/** "0.4 s", "12 s", "3 min 5 s": how long something ran. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "";
  if (ms < 10_000) return t("format.seconds", { n: formatDecimal(ms / 1000, 1, true) });
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return t("format.seconds", { n: formatDecimal(seconds) });
  const min = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest
    ? t("format.minutesSeconds", { min: formatDecimal(min), s: formatDecimal(rest) })
    : t("format.minutes", { min: formatDecimal(min) });
}
