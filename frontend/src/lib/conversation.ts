// The conversation as the UI holds it while runs stream: `base` is the last full state from
// the server (a `values` event or GET …/state); `live` holds what streamed since and is not
// in `base` yet (AI messages assembled from chunks, tool results, the message just sent).
import {
  type AIMessage,
  type AIMessageChunk,
  type Message,
  type ToolCall,
  type ToolMessage,
  isMessage,
  reasoningOf,
  textOf,
  tryParseArgs,
} from "./messages";

/** Streaming-only details of an AI message being assembled. */
export interface LiveExtra {
  /** Raw argument text per tool-call index, while the JSON is incomplete. */
  rawArgs: Record<number, string>;
  /** The model finished this message. */
  done: boolean;
}

export interface LiveMessage {
  message: Message;
  /** Sent by this browser and not yet confirmed by a `values` event. */
  optimistic?: boolean;
  extra?: LiveExtra;
}

export interface Conversation {
  base: Message[];
  live: LiveMessage[];
}

export const emptyConversation: Conversation = { base: [], live: [] };

function ids(messages: Message[]): Set<string> {
  return new Set(messages.map((m) => m.id));
}

/** A full state arrived: it replaces `base`; live entries it now contains are dropped. */
export function applyValues(conv: Conversation, messages: unknown): Conversation {
  const base = Array.isArray(messages) ? messages.filter(isMessage) : [];
  const known = ids(base);
  return { base, live: conv.live.filter((l) => !known.has(l.message.id)) };
}

/** The person sent a message (shown at once, confirmed by the next `values`). */
export function addOptimistic(conv: Conversation, message: Message): Conversation {
  return { ...conv, live: [...conv.live, { message, optimistic: true }] };
}

function mergeChunk(prev: AIMessage | undefined, extra: LiveExtra, chunk: AIMessageChunk): AIMessage {
  const content = textOf(prev?.content) + textOf(chunk.content);
  const reasoning = reasoningOf(prev?.additional_kwargs) + reasoningOf(chunk.additional_kwargs);
  const calls: ToolCall[] = [...(prev?.tool_calls ?? [])];
  for (const c of chunk.tool_call_chunks ?? []) {
    const index = c.index ?? calls.length;
    const raw = (extra.rawArgs[index] ?? "") + (c.args ?? "");
    extra.rawArgs[index] = raw;
    const existing = calls[index];
    calls[index] = {
      name: c.name || existing?.name || "",
      id: c.id || existing?.id || `${chunk.id}-${index}`,
      // Arguments arrive in fragments: parse only what may be complete (an object closes).
      args: (raw.trimEnd().endsWith("}") ? tryParseArgs(raw) : undefined) ?? existing?.args ?? {},
    };
  }
  const msg: AIMessage = {
    type: "ai",
    id: chunk.id,
    content,
    tool_calls: calls.filter(Boolean),
  };
  if (reasoning) msg.additional_kwargs = { reasoning_content: reasoning };
  // The last chunk carries what the call used (tokens, cost, model): the usage line and the
  // context meter read it before the stored message arrives.
  const usage = chunk.usage_metadata ?? prev?.usage_metadata;
  if (usage) msg.usage_metadata = usage;
  const meta = { ...prev?.response_metadata, ...chunk.response_metadata };
  if (Object.keys(meta).length > 0) msg.response_metadata = meta;
  return msg;
}

/** A `messages` event: `[chunk, metadata]`, a token chunk or a finished tool message. */
export function applyMessageEvent(conv: Conversation, data: unknown): Conversation {
  const chunk = Array.isArray(data) ? data[0] : data;
  if (!chunk || typeof chunk !== "object") return conv;
  const type = (chunk as { type?: unknown }).type;
  const id = (chunk as { id?: unknown }).id;
  if (typeof id !== "string" || !id) return conv;
  if (conv.base.some((m) => m.id === id)) return conv;

  if (type === "AIMessageChunk" || type === "ai") {
    const c = chunk as AIMessageChunk;
    const index = conv.live.findIndex((l) => l.message.id === id);
    const prev = index >= 0 ? conv.live[index] : undefined;
    const extra: LiveExtra = prev?.extra
      ? { rawArgs: { ...prev.extra.rawArgs }, done: prev.extra.done }
      : { rawArgs: {}, done: false };
    const message =
      type === "ai"
        ? (chunk as AIMessage)
        : mergeChunk(prev?.message.type === "ai" ? prev.message : undefined, extra, c);
    if (type === "ai" || c.response_metadata?.finish_reason) extra.done = true;
    const entry: LiveMessage = { message, extra };
    const live = [...conv.live];
    if (index >= 0) live[index] = entry;
    else live.push(entry);
    return { ...conv, live };
  }
  if (type === "tool" && isMessage(chunk)) {
    if (conv.live.some((l) => l.message.id === id)) return conv;
    return { ...conv, live: [...conv.live, { message: chunk as ToolMessage }] };
  }
  return conv;
}

/** Everything to show, in order. */
export function visibleMessages(conv: Conversation): Message[] {
  return [...conv.base, ...conv.live.map((l) => l.message)];
}

/** Ids of AI messages still streaming. */
export function streamingIds(conv: Conversation): Set<string> {
  return new Set(
    conv.live.filter((l) => l.extra && !l.extra.done).map((l) => l.message.id),
  );
}

/** The stored conversation ends with the person's message and no answer (its run failed or
 * was stopped before the model replied): Retry can run again without sending it twice. */
export function endsUnanswered(conv: Conversation): boolean {
  return conv.base.at(-1)?.type === "human";
}

/** The text of the last message the person sent (for Retry). */
export function lastHumanText(conv: Conversation): string | undefined {
  const all = visibleMessages(conv);
  for (let i = all.length - 1; i >= 0; i--) {
    const m = all[i];
    if (m?.type === "human") return textOf(m.content);
  }
  return undefined;
}
