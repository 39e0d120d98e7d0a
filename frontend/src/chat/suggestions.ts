// Follow-up suggestions after an answer: read from a `custom` event of type `suggestions`
// (the run's stream when they were ready before its end, else the thread's stream, which
// waits for them) or from the thread's `metadata.suggestions` (a conversation opened later).
// Each names the answer it follows; only the latest answer, once the run is over, shows them.
import { api } from "../api/client";
import { langgraph } from "../api/langgraph";
import { type Conversation, visibleMessages } from "../lib/conversation";

/** Suggestions for one answer. */
export interface Suggested {
  runId: string;
  messageId: string;
  items: string[];
}

/** The suggestions a `custom` event or the thread's metadata carries, if well formed. */
export function suggestedOf(data: unknown): Suggested | undefined {
  if (!data || typeof data !== "object") return undefined;
  const d = data as { run_id?: unknown; message_id?: unknown; suggestions?: unknown };
  if (typeof d.message_id !== "string" || !Array.isArray(d.suggestions)) return undefined;
  const texts = d.suggestions.filter((s): s is string => typeof s === "string" && s.trim() !== "");
  // Each once (a chip per text), at most three.
  const items = [...new Set(texts)].slice(0, 3);
  if (items.length === 0) return undefined;
  return { runId: typeof d.run_id === "string" ? d.run_id : "", messageId: d.message_id, items };
}

/** What to show under the conversation: the suggestions, when they follow its last message
 * and no run is going. */
export function shownSuggestions(conversation: Conversation, streaming: boolean, suggested?: Suggested): string[] {
  if (streaming || !suggested) return [];
  const last = visibleMessages(conversation).at(-1);
  return last?.type === "ai" && last.id === suggested.messageId ? suggested.items : [];
}

/**
 * After a run that brought none: waits on the thread's stream for suggestions still being
 * written (it ends at once when none are), then reads the ones kept in the thread's metadata
 * (written before the stream is told, so none are missed between the two).
 */
export async function lateSuggestions(threadId: string, signal: AbortSignal): Promise<Suggested | undefined> {
  try {
    const stream = langgraph().threads.joinStream(threadId, { signal });
    for await (const part of stream) {
      if (signal.aborted) return undefined;
      const found = part.event === "custom" ? suggestedOf(part.data) : undefined;
      if (found) return found;
      if (part.event === "end") break;
    }
    if (signal.aborted) return undefined;
    const thread = await api.thread(threadId, signal);
    return suggestedOf(thread.metadata["suggestions"]);
  } catch {
    return undefined; // nothing to show: the conversation is unaffected
  }
}
