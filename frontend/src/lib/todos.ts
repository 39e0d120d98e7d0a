// Plan mode's checklist (`write_todos`): the items as the thread's values and the tool's
// arguments carry them, and how far along they are.
import type { Todo, TodoStatus } from "../api/types";
import { t } from "../i18n";

export type { Todo, TodoStatus };

const STATUSES: readonly string[] = ["pending", "in_progress", "completed"] satisfies TodoStatus[];

/** The well-formed items of a `todos` value (values or `write_todos` arguments); none otherwise. */
export function todosOf(value: unknown): Todo[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) => {
    if (!item || typeof item !== "object") return [];
    const { content, status } = item as { content?: unknown; status?: unknown };
    if (typeof content !== "string" || typeof status !== "string" || !STATUSES.includes(status)) return [];
    return [{ content, status: status as TodoStatus }];
  });
}

/** How many items are done, and of how many. */
export function todoProgress(todos: Todo[]): { done: number; total: number } {
  return { done: todos.filter((t) => t.status === "completed").length, total: todos.length };
}

/** "k of n done". */
export function progressLabel(todos: Todo[]): string {
  const { done, total } = todoProgress(todos);
  return t("lib.todos.progress", { done, total });
}

/** What each status is called, for people and screen readers. */
export const STATUS_LABELS: Readonly<Record<TodoStatus, string>> = {
  // Getters: read in the language in use when shown.
  get pending() {
    return t("lib.todos.pending");
  },
  get in_progress() {
    return t("lib.todos.inProgress");
  },
  get completed() {
    return t("lib.todos.completed");
  },
};

/** Keeps the same array when nothing changed (so the checklist does not redraw per event). */
export function sameTodos(a: Todo[], b: Todo[]): boolean {
  return a.length === b.length && a.every((t, i) => t.content === b[i]?.content && t.status === b[i]?.status);
}
