// Small pieces of a thread session: stream parts, frame timing, what a new run clears,
// checkpoint references and values read from a history.
import type { ThreadState, ThreadValues } from "../api/types";
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

/** The values of the checkpoint `id` in a history read. */
export const valuesAt = (history: ThreadState[], id: string | undefined): ThreadValues | undefined =>
  id ? history.find((h) => h.checkpoint?.checkpoint_id === id)?.values : undefined;

