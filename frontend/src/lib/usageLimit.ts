// A run refused because its user reached a daily limit: 429 with the envelope's code
// `usage_limit_exceeded` and `details.resets_at`, whether the SDK (`status`, `text`) or this
// app's own client (`ApiError`) reported it.
import { ApiError } from "../api/http";
import { errorText } from "../api/errorText";
import { t } from "../i18n";
import { formatDecimal, formatLocale } from "./format";
import { formatCost } from "./usage";

export interface UsageLimit {
  /** The server's explanation (which limit). */
  message: string;
  /** When the limit resets (RFC 3339), when the server said. */
  resetsAt?: string;
  /** Which limit, how high and how much was used today (`details.limit`, `limit_value`,
   * `used`), when the server said. */
  reached?: { kind: "tokens" | "cost"; limit: number; used: number };
}

const CODE = "usage_limit_exceeded";

function fromEnvelope(body: unknown): UsageLimit | undefined {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (!error || error.code !== CODE) return undefined;
  return fromParts(errorText(CODE, typeof error.message === "string" ? error.message : ""), error.details);
}

function fromParts(message: unknown, details: unknown): UsageLimit {
  const d = (details && typeof details === "object" ? details : {}) as Record<string, unknown>;
  const resets = d["resets_at"];
  const kind = d["limit"] === "tokens_per_day" ? "tokens" : d["limit"] === "cost_usd_per_day" ? "cost" : undefined;
  const limit = d["limit_value"];
  const used = d["used"];
  return {
    message: typeof message === "string" && message ? message : t("errors.usage_limit_exceeded"),
    ...(typeof resets === "string" && !Number.isNaN(Date.parse(resets)) ? { resetsAt: resets } : {}),
    ...(kind && typeof limit === "number" && typeof used === "number" ? { reached: { kind, limit, used } } : {}),
  };
}

/** Which limit was reached, for people: "You have used 1,200 of your 1,000 tokens for today." */
export function describeLimit(limit: UsageLimit): string {
  const r = limit.reached;
  if (!r) return limit.message;
  if (r.kind === "tokens") {
    return t("lib.usage.limitTokens", { used: formatDecimal(r.used), limit: formatDecimal(r.limit) });
  }
  return t("lib.usage.limitCost", { used: formatCost(r.used), limit: formatCost(r.limit) });
}

/** The limit a failed request ran into; undefined for any other failure. */
export function usageLimitOf(e: unknown): UsageLimit | undefined {
  if (e instanceof ApiError) return e.status === 429 && e.code === CODE ? fromParts(e.message, e.details) : undefined;
  if (!e || typeof e !== "object" || !("status" in e) || (e as { status: unknown }).status !== 429) return undefined;
  const text = (e as { text?: unknown }).text;
  if (typeof text !== "string") return undefined;
  try {
    return fromEnvelope(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** When a limit resets, in the reader's local time: "14:00" today, else "Tue 02:00". */
export function formatResetTime(iso: string, now: Date = new Date()): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "";
  const locale = formatLocale();
  const time = at.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit" });
  if (at.toDateString() === now.toDateString()) return t("format.todayAt", { time });
  const tomorrow = new Date(now);
  tomorrow.setDate(now.getDate() + 1);
  if (at.toDateString() === tomorrow.toDateString()) return t("format.tomorrowAt", { time });
  return at.toLocaleString(locale, { weekday: "short", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}
