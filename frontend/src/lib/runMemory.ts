// Which remembered facts each run was given (the `memory` ids of its `metadata` event), kept
// by the first AI message of its answer so the chat can say so on that answer. Only in this
// page's session state: the server keeps no record of it to read back after a reload.
import { type Conversation, visibleMessages } from "./conversation";

/** The facts runs were given, by the id of the first AI message of their answer. */
export interface RunMemory {
  /** The streaming run was given facts and its answer has not shown yet: the fact ids, and
   * the messages shown when it started (its answer is the first AI message after them). */
  pending?: { ids: string[]; before: ReadonlySet<string> };
  byMessage: Readonly<Record<string, string[]>>;
}

export const NO_RUN_MEMORY: RunMemory = { byMessage: {} };

/** The fact ids a run's `metadata` event lists (none when it was given none). */
export function memoryIdsOf(metadata: unknown): string[] {
  const ids = (metadata as { memory?: unknown } | null)?.memory;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string" && id !== "") : [];
}

/** A run started (its `metadata` event): its facts wait for the first message of its answer. */
export function runStarted(memory: RunMemory, metadata: unknown, conversation: Conversation): RunMemory {
  const ids = memoryIdsOf(metadata);
  if (ids.length === 0) return memory.pending ? { byMessage: memory.byMessage } : memory;
  const before = new Set(visibleMessages(conversation).map((m) => m.id));
  return { byMessage: memory.byMessage, pending: { ids, before } };
}

/** `state` with the pending facts bound to the run's answer once its first AI message shows
 * (the same object when nothing changes, so stores do not notify). */
export function withAnswerMemory<S extends { conversation: Conversation; remembered: RunMemory }>(state: S): S {
  const { pending, byMessage } = state.remembered;
  if (!pending) return state;
  const answer = visibleMessages(state.conversation).find((m) => m.type === "ai" && !pending.before.has(m.id));
  if (!answer) return state;
  return { ...state, remembered: { byMessage: { ...byMessage, [answer.id]: pending.ids } } };
}

/** The facts given to the run that answered with these messages: the latest such run when
 * several did (a Regenerate inside a reply); none when it was given none. */
export function memoryOf(memory: RunMemory, messageIds: readonly string[]): string[] | undefined {
  let found: string[] | undefined;
  for (const id of messageIds) found = memory.byMessage[id] ?? found;
  return found;
}
