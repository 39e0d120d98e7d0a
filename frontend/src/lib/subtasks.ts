// Subagents' tasks as the run's `custom` events report them (`task_queued`, `task_started`,
// `task_event`s carrying the child run's own events, then how it ended), keyed by task id:
// the `task` call's id (`tool_calls[].id`). Events come in batches (one per frame), and a
// task can stream thousands of chunks: each batch copies a task's transcript once, then
// changes only its own copies.
import type { CustomEvent, RunUsage, TaskStatus } from "../api/types";
import { textOf } from "./messages";
import { type ToolProgress, type ToolProgressEvent, withProgress } from "./toolProgress";

/** The events of a subagent's task. */
export type TaskEvent = Extract<CustomEvent, { type: `task_${string}` }>;

/** Where a task stands; the last four are how it ended (the server's `TaskStatus`). */
export type SubtaskStatus = TaskStatus;

/** What the subagent did, in order: its text, and its tool calls with their results. */
export type TranscriptEntry =
  | { kind: "text"; key: string; text: string }
  | {
      kind: "tool";
      key: string;
      /** The call's id ("" until its first chunk names it). */
      id: string;
      name: string;
      /** The argument JSON as streamed so far. */
      rawArgs: string;
      /** Its result's text, once it has answered. */
      result?: string;
      failed?: boolean;
      /** What it last reported while running (MCP tools). */
      progress?: ToolProgress;
    };

export type ToolEntry = Extract<TranscriptEntry, { kind: "tool" }>;

/** One task, from its events. */
export interface Subtask {
  status: SubtaskStatus;
  description?: string;
  subagentType?: string;
  /** The child run. */
  runId?: string;
  transcript: readonly TranscriptEntry[];
  /** Transcript positions: a message's text by `t:<message id>`, a call by `c:<call id>` and
   * by `s:<message id>:<chunk index>` (later chunks of a call name only their index). */
  at: Readonly<Record<string, number>>;
  /** Its final answer (completed). */
  result?: string;
  /** Why it did not complete. */
  error?: string;
  durationMs?: number;
  usage?: RunUsage;
}

/** Tasks by task id. */
export type SubtaskMap = Readonly<Record<string, Subtask>>;

export const NO_SUBTASKS: SubtaskMap = {};

const ENDINGS: Record<string, SubtaskStatus> = {
  task_completed: "completed",
  task_failed: "failed",
  task_cancelled: "cancelled",
  task_timed_out: "timed_out",
};

/** Whether a `custom` event is a task's. */
export function isTaskEvent(event: CustomEvent): event is TaskEvent {
  return event.type.startsWith("task_");
}

/** A task being changed by a batch: its own transcript and positions, and the entries it
 * already copied (changed in place from then on). */
interface Draft extends Subtask {
  transcript: TranscriptEntry[];
  at: Record<string, number>;
  owned: Set<TranscriptEntry>;
}

const fresh = (status: SubtaskStatus): Draft => ({ status, transcript: [], at: {}, owned: new Set() });

const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/** `map` with a batch of task events applied; the same map when none could be. */
export function withTaskEvents(map: SubtaskMap, events: readonly TaskEvent[]): SubtaskMap {
  const drafts = new Map<string, Draft>();
  const draft = (id: string): Draft => {
    let d = drafts.get(id);
    if (!d) {
      const t = map[id];
      // A client joining late gets the run's events from its start, so a task's first event
      // comes first; should it not, the task is running.
      d = t ? { ...t, transcript: [...t.transcript], at: { ...t.at }, owned: new Set() } : fresh("running");
      drafts.set(id, d);
    }
    return d;
  };
  for (const e of events) {
    if (typeof e.task_id !== "string" || !e.task_id) continue;
    switch (e.type) {
      case "task_queued":
        // Its first event when it waits for a slot: anything known before (a replay) starts over.
        drafts.set(e.task_id, { ...fresh("queued"), description: e.description, subagentType: e.subagent_type });
        break;
      case "task_started":
        // The child's events all come after this one: a replay starts over here too.
        drafts.set(e.task_id, {
          ...fresh("running"),
          description: e.description,
          subagentType: e.subagent_type,
          runId: e.run_id,
        });
        break;
      case "task_event":
        childEvent(draft(e.task_id), e.event, e.data as unknown);
        break;
      default: {
        const status = ENDINGS[e.type];
        if (!status) break; // a kind this UI does not know yet (a newer server)
        const d = draft(e.task_id);
        d.status = status;
        d.runId = e.run_id;
        d.durationMs = e.duration_ms;
        d.usage = e.usage;
        const result = str(e.result);
        const error = str(e.error);
        if (result) d.result = result;
        if (error) d.error = error;
      }
    }
  }
  if (drafts.size === 0) return map;
  const next: Record<string, Subtask> = { ...map };
  for (const [id, { owned: _owned, ...task }] of drafts) next[id] = task;
  return next;
}

/** An event of the child run, as its own stream has it. */
function childEvent(d: Draft, event: string, data: unknown): void {
  if (event === "messages" || event.startsWith("messages/")) {
    childMessage(d, Array.isArray(data) ? data[0] : data);
  } else if (event === "custom" && data && typeof data === "object") {
    const p = data as Partial<ToolProgressEvent> & { type?: unknown };
    if (p.type !== "tool_progress" || typeof p.tool_call_id !== "string") return;
    const i = d.at[`c:${p.tool_call_id}`];
    if (i === undefined) return;
    const entry = own(d, i) as ToolEntry;
    const progress = withProgress({}, p as ToolProgressEvent)[p.tool_call_id];
    if (progress) entry.progress = progress;
  }
}

/** The entry at `i`, copied once per batch so the state before it stays as it was. */
function own(d: Draft, i: number): TranscriptEntry {
  const entry = d.transcript[i] as TranscriptEntry;
  if (d.owned.has(entry)) return entry;
  const copy = { ...entry };
  d.transcript[i] = copy;
  d.owned.add(copy);
  return copy;
}

function add(d: Draft, entry: TranscriptEntry, ...keys: string[]): TranscriptEntry {
  for (const k of keys) d.at[k] = d.transcript.length;
  d.transcript.push(entry);
  d.owned.add(entry);
  return entry;
}

/** The tool entry of a call (made when first seen); `slot` names it by its chunk index. */
function toolEntry(d: Draft, id: string | undefined, slot: string | undefined, name: string | undefined): ToolEntry {
  const i = (id ? d.at[`c:${id}`] : undefined) ?? (slot ? d.at[`s:${slot}`] : undefined);
  const keys = [...(id ? [`c:${id}`] : []), ...(slot ? [`s:${slot}`] : [])];
  if (i === undefined) {
    return add(d, { kind: "tool", key: keys[0] ?? `c:${d.transcript.length}`, id: id ?? "", name: name ?? "tool", rawArgs: "" }, ...keys) as ToolEntry;
  }
  const entry = own(d, i) as ToolEntry;
  for (const k of keys) d.at[k] = i;
  if (id) entry.id = id;
  if (name) entry.name = name;
  return entry;
}

/** A message chunk (`AIMessageChunk`), a whole AI message, or a tool's result. */
function childMessage(d: Draft, m: unknown): void {
  if (!m || typeof m !== "object") return;
  const msg = m as Record<string, unknown>;
  const id = str(msg["id"]);
  if (msg["type"] === "tool") {
    const entry = toolEntry(d, str(msg["tool_call_id"]), undefined, str(msg["name"]));
    entry.result = textOf(msg["content"]);
    entry.failed = msg["status"] === "error";
    delete entry.progress;
    return;
  }
  const whole = msg["type"] === "ai";
  if (!id || (!whole && msg["type"] !== "AIMessageChunk")) return;
  const text = textOf(msg["content"]);
  if (text) {
    const i = d.at[`t:${id}`];
    if (i === undefined) add(d, { kind: "text", key: `t:${id}`, text }, `t:${id}`);
    else {
      const entry = own(d, i) as Extract<TranscriptEntry, { kind: "text" }>;
      // A whole message replaces what streamed of it.
      entry.text = whole ? text : entry.text + text;
    }
  }
  if (whole) {
    for (const c of Array.isArray(msg["tool_calls"]) ? (msg["tool_calls"] as unknown[]) : []) {
      const call = (c ?? {}) as { id?: unknown; name?: unknown; args?: unknown };
      const entry = toolEntry(d, str(call.id), undefined, str(call.name));
      if (call.args && typeof call.args === "object") entry.rawArgs = JSON.stringify(call.args);
    }
    return;
  }
  for (const c of Array.isArray(msg["tool_call_chunks"]) ? (msg["tool_call_chunks"] as unknown[]) : []) {
    const chunk = (c ?? {}) as { id?: unknown; name?: unknown; args?: unknown; index?: unknown };
    const slot = `${id}:${typeof chunk.index === "number" ? chunk.index : 0}`;
    const entry = toolEntry(d, str(chunk.id), slot, str(chunk.name));
    if (typeof chunk.args === "string") entry.rawArgs += chunk.args;
  }
}
