// Small pieces of a thread session: stream parts, frame timing and batches, what a new run
// clears, checkpoint references and values read from states and a history.
import type { Summary, ThreadState, ThreadValues } from "../api/types";
import { type Todo, sameTodos, todosOf } from "../lib/todos";
import type { SessionState } from "./session";

export interface StreamPart {
  event: string;
  data: unknown;
}

/** Runs `f` before the next paint (a timer where frames do not run, as in tests). */
export const nextFrame = (f: () => void): void => {
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(f);
  else setTimeout(f, 16);
};

/** Items applied together once per frame: tokens and subagents' events come by the thousand,
 * and one store update each would re-render the chat as often. */
export class FrameBatch<T> {
  private items: T[] = [];

  constructor(private readonly apply: (items: T[]) => void) {}

  /** Queues an item; the batch is applied before the next paint. */
  push(item: T): void {
    if (this.items.push(item) === 1) nextFrame(() => this.flush());
  }

  /** Applies what is queued now (what comes next must come after it). */
  flush(): void {
    const items = this.items;
    if (items.length === 0) return;
    this.items = [];
    this.apply(items);
  }
}

/** Checkpoints read per history load (as many as the SDK's useStream reads). */
export const HISTORY_LIMIT = 1000;

/** What a new run, or showing another version, clears: how the last run ended. */
export const NO_OUTCOME: Pick<SessionState, "error" | "stopped" | "notice"> = { error: undefined, stopped: false, notice: undefined };

/** A run's `checkpoint`: the SDK's type names every field; JSON drops the undefined map. */
export const checkpointRef = (checkpoint_id: string) => ({ checkpoint_id, checkpoint_ns: "", checkpoint_map: undefined });

/** The plan of a full state (`values.todos`; absent when empty), keeping `prev` when unchanged. */
export function todosFrom(values: { todos?: unknown } | undefined, prev: Todo[]): Todo[] {
  const todos = todosOf(values?.todos);
  return sameTodos(todos, prev) ? prev : todos;
}

/** The summary of a full state (`values.summary`), keeping `prev` when unchanged. */
export function summaryFrom(values: { summary?: Summary | null } | undefined, prev: Summary | undefined): Summary | undefined {
  const s = values?.summary;
  if (!s || typeof s.up_to !== "string" || typeof s.content !== "string") return undefined;
  const same = prev && prev.up_to === s.up_to && prev.content === s.content && prev.summarized === s.summarized;
  return same ? prev : s;
}

/** What a full state shows besides its messages: the plan and the summary (each the same
 * object when unchanged, so nothing re-renders for it). */
export function shownValues(
  values: ThreadValues | undefined,
  s: Pick<SessionState, "todos" | "summary">,
): Pick<SessionState, "todos" | "summary"> {
  return { todos: todosFrom(values, s.todos), summary: summaryFrom(values, s.summary) };
}

/** The values of the checkpoint `id` in a history read. */
export const valuesAt = (history: ThreadState[], id: string | undefined): ThreadValues | undefined =>
  id ? history.find((h) => h.checkpoint?.checkpoint_id === id)?.values : undefined;

