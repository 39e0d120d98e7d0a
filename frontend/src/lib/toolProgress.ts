// Progress of running tool calls (MCP servers report it), from the run's `tool_progress`
// stream events, keyed by call id, until the call's result arrives.
import { t } from "../i18n";
import { formatDecimal } from "./format";

/** The latest progress a call reported. */
export interface ToolProgress {
  progress: number;
  /** Out of (when the server knows). */
  total?: number;
  /** What it is doing. */
  message?: string;
}

/** Progress by call id (`tool_calls[].id`). */
export type ToolProgressMap = Readonly<Record<string, ToolProgress>>;

/** A `tool_progress` event as the stream carries it. */
export interface ToolProgressEvent {
  tool_call_id: string;
  progress: number;
  total?: number | null;
  message?: string | null;
}

export const NO_PROGRESS: ToolProgressMap = {};

/** `map` with the call's latest progress; unchanged for an event that cannot be shown. */
export function withProgress(map: ToolProgressMap, event: ToolProgressEvent): ToolProgressMap {
  if (!event.tool_call_id || typeof event.progress !== "number" || !Number.isFinite(event.progress)) return map;
  const p: ToolProgress = { progress: event.progress };
  if (typeof event.total === "number" && Number.isFinite(event.total) && event.total > 0) p.total = event.total;
  if (typeof event.message === "string" && event.message.trim()) p.message = event.message.trim();
  return { ...map, [event.tool_call_id]: p };
}

/** The call a tool message answers, for a message or a `messages` stream event (`[chunk, metadata]`). */
function answeredCall(data: unknown): string | undefined {
  const m: unknown = Array.isArray(data) ? data[0] : data;
  if (!m || typeof m !== "object") return undefined;
  const { type, tool_call_id: id } = m as { type?: unknown; tool_call_id?: unknown };
  return type === "tool" && typeof id === "string" ? id : undefined;
}

/** `map` without the calls that `messages` answer; the same map when none is (so no re-render). */
export function withoutAnswered(map: ToolProgressMap, messages: readonly unknown[]): ToolProgressMap {
  if (Object.keys(map).length === 0) return map;
  const done = new Set(messages.map(answeredCall).filter((id): id is string => !!id && id in map));
  if (done.size === 0) return map;
  return Object.fromEntries(Object.entries(map).filter(([id]) => !done.has(id)));
}

const num = (n: number): string => formatDecimal(n, 2);

/** "3 / 10 (30%)" when the total is known, else "3 so far". */
export function progressText(p: ToolProgress): string {
  if (p.total === undefined) return t("lib.tool.progressSoFar", { n: num(p.progress) });
  const percent = Math.round((Math.min(p.progress, p.total) / p.total) * 100);
  return t("lib.tool.progressOf", { n: num(p.progress), total: num(p.total), percent });
}
