// The console's filters, kept in the page's URL query (so a filtered view can be bookmarked,
// shared and reloaded) under the names the API takes.
import type { ConsoleQuery, RunStatus } from "./types";

/** What the runs are filtered by; an empty string means "any". */
export interface RunFilters {
  /** The owner's user id. */
  user: string;
  assistant_id: string;
  status: RunStatus | "";
  /** YYYY-MM-DD, the first day shown. */
  from: string;
  /** YYYY-MM-DD, the last day shown. */
  to: string;
  /** Runs rated up, down, or either ("any"). */
  feedback: FeedbackFilter | "";
}

/** The ratings runs can be filtered by, in the order the feedback menu lists them. */
export const FEEDBACK_FILTERS = ["any", "up", "down"] as const;
/** One of [`FEEDBACK_FILTERS`]. */
export type FeedbackFilter = (typeof FEEDBACK_FILTERS)[number];
const isFeedback = (v: string): v is FeedbackFilter => (FEEDBACK_FILTERS as readonly string[]).includes(v);

/** Every status a run can have, in the order the status menu lists them. */
export const RUN_STATUSES: RunStatus[] = ["pending", "running", "success", "error", "interrupted", "timeout"];

const KEYS = ["user", "assistant_id", "status", "from", "to", "feedback"] as const;

export const NO_FILTERS: RunFilters = { user: "", assistant_id: "", status: "", from: "", to: "", feedback: "" };

const isStatus = (v: string): v is RunStatus => (RUN_STATUSES as string[]).includes(v);
const isDay = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v);

/** The filters a URL query names (unknown statuses and malformed days are dropped). */
export function filtersFromSearch(search: URLSearchParams): RunFilters {
  const get = (key: string) => search.get(key)?.trim() ?? "";
  const status = get("status");
  const from = get("from");
  const to = get("to");
  return {
    user: get("user"),
    assistant_id: get("assistant_id"),
    status: isStatus(status) ? status : "",
    from: isDay(from) ? from : "",
    to: isDay(to) ? to : "",
    feedback: isFeedback(get("feedback")) ? (get("feedback") as FeedbackFilter) : "",
  };
}

/** The URL query of `filters`: only the ones set, in a fixed order. */
export function searchOfFilters(filters: RunFilters): URLSearchParams {
  const search = new URLSearchParams();
  for (const key of KEYS) {
    const value = filters[key].trim();
    if (value) search.set(key, value);
  }
  return search;
}

/** Whether any filter is set. */
export const hasFilters = (filters: RunFilters) => KEYS.some((k) => filters[k].trim() !== "");

/** The start of a local day (YYYY-MM-DD) as an RFC 3339 instant: the days people pick are
 * theirs, not UTC's. `next` gives the start of the day after (the API's `to` is exclusive). */
export function dayStart(day: string, next = false): string {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(y ?? 1970, (m ?? 1) - 1, (d ?? 1) + (next ? 1 : 0)).toISOString();
}

/** The API query of `filters`: `from` and `to` as instants covering the days picked. */
export function queryOfFilters(filters: RunFilters): ConsoleQuery {
  const query: ConsoleQuery = {};
  if (filters.user) query.user = filters.user;
  if (filters.assistant_id) query.assistant_id = filters.assistant_id;
  if (filters.status) query.status = filters.status;
  if (filters.from) query.from = dayStart(filters.from);
  if (filters.to) query.to = dayStart(filters.to, true);
  if (filters.feedback) query.feedback = filters.feedback;
  return query;
}
