// Turns the flat message list into what the chat shows: the person's messages, and for each
// reply one assistant block of reasoning, text, tool cards, questions and file chips.
import { t } from "../i18n";
import type { AIMessage, Message, ToolCall, ToolMessage } from "./messages";
import { imagesOf, textOf } from "./messages";
import { splitAttachments } from "./uploads";
import { type Usage, addUsage, messageUsage } from "./usage";

export interface Clarification {
  question: string;
  context?: string;
  clarificationType?: string;
  options: string[];
}

export type AssistantItem =
  | { kind: "reasoning"; key: string; text: string; streaming: boolean; tokens?: number }
  | { kind: "text"; key: string; text: string; streaming: boolean }
  | { kind: "tool"; key: string; call: ToolCall; result?: ToolMessage; invalid?: string }
  | { kind: "clarification"; key: string; clarification: Clarification; answered: boolean }
  | { kind: "files"; key: string; paths: string[] };

/** One reply: its items, and which messages they come from (for Regenerate and versions). */
export interface AssistantGroup {
  kind: "assistant";
  key: string;
  items: AssistantItem[];
  /** The messages grouped here, in order. */
  messageIds: string[];
  /** The last AI message: the answer Regenerate runs again. */
  lastAi?: string;
  /** The key of the item each message shows first (a tool result: its call's item). */
  itemOf: Record<string, string>;
  /** What its model calls used, summed (none when no message reports usage). */
  usage?: Usage;
}

/** The key of a human block is its message's id. */
export type Block = { kind: "human"; key: string; text: string; files: string[]; images: string[] } | AssistantGroup;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The clarification a tool result carries (its artifact, else the call's arguments). */
export function clarificationOf(call: ToolCall | undefined, result: ToolMessage | undefined): Clarification | undefined {
  const art = (result?.artifact ?? null) as Record<string, unknown> | null;
  const src = art && typeof art["question"] === "string" ? art : call?.args;
  if (!src || typeof src["question"] !== "string") return undefined;
  const c: Clarification = { question: src["question"], options: strings(src["options"]) };
  if (typeof src["context"] === "string" && src["context"]) c.context = src["context"];
  if (typeof src["clarification_type"] === "string") c.clarificationType = src["clarification_type"];
  return c;
}

/** Files a present_files call showed. */
export function presentedFiles(call: ToolCall, result: ToolMessage | undefined): string[] {
  if (!result || result.status === "error") return [];
  const art = (result.artifact ?? null) as Record<string, unknown> | null;
  const fromArtifact = art ? strings(art["filepaths"]) : [];
  return fromArtifact.length ? fromArtifact : strings(call.args["filepaths"]);
}

/**
 * Groups messages for display. A tool result belongs to the call with its `tool_call_id` in the
 * closest AI message before it (ids are only unique per message with some providers).
 */
export function groupMessages(messages: Message[], streaming: Set<string> = new Set()): Block[] {
  const blocks: Block[] = [];
  let current: AssistantGroup | undefined;
  /** Calls of the latest AI message still waiting for their result. */
  let pending = new Map<string, { item: Extract<AssistantItem, { kind: "tool" }>; block: AssistantGroup }>();
  const questions: { item: Extract<AssistantItem, { kind: "clarification" }>; index: number }[] = [];
  let lastHuman = -1;

  const assistant = (key: string) => {
    if (!current) {
      current = { kind: "assistant", key, items: [], messageIds: [], itemOf: {} };
      blocks.push(current);
    }
    return current;
  };

  messages.forEach((m, index) => {
    if (m.type === "human") {
      current = undefined;
      pending = new Map();
      lastHuman = index;
      const { text, files } = splitAttachments(textOf(m.content));
      blocks.push({ kind: "human", key: m.id, text, files, images: imagesOf(m.content) });
    } else if (m.type === "tool") {
      const waiting = pending.get(m.tool_call_id);
      if (!waiting) {
        const call: ToolCall = { name: m.name ?? "tool", args: {}, id: m.tool_call_id };
        const block = assistant(m.id);
        block.items.push({ kind: "tool", key: m.id, call, result: m });
        block.messageIds.push(m.id);
        block.itemOf[m.id] = m.id;
        return;
      }
      pending.delete(m.tool_call_id);
      waiting.block.messageIds.push(m.id);
      waiting.block.itemOf[m.id] = waiting.item.key;
      attachResult(waiting.block, waiting.item, m, index);
    } else {
      pending = new Map();
      addAi(assistant(m.id), m);
    }
  });

  for (const q of questions) q.item.answered = lastHuman > q.index;
  return blocks;

  function attachResult(
    block: AssistantGroup,
    item: Extract<AssistantItem, { kind: "tool" }>,
    result: ToolMessage,
    index: number,
  ) {
    item.result = result;
    const at = block.items.indexOf(item);
    if (item.call.name === "ask_clarification") {
      const clarification = clarificationOf(item.call, result);
      if (clarification) {
        const question: Extract<AssistantItem, { kind: "clarification" }> = {
          kind: "clarification",
          key: item.key,
          clarification,
          answered: false,
        };
        block.items.splice(at, 1, question);
        questions.push({ item: question, index });
      }
    } else if (item.call.name === "present_files") {
      const paths = presentedFiles(item.call, result);
      if (paths.length) block.items.splice(at + 1, 0, { kind: "files", key: `${item.key}-f`, paths });
    }
  }

  function addAi(block: AssistantGroup, m: AIMessage) {
    block.messageIds.push(m.id);
    block.lastAi = m.id;
    const usage = addUsage(block.usage, messageUsage(m));
    if (usage) block.usage = usage;
    const first = block.items.length;
    addAiItems(block, m);
    const item = block.items[first];
    if (item) block.itemOf[m.id] = item.key;
  }

  function addAiItems(block: AssistantGroup, m: AIMessage) {
    const live = streaming.has(m.id);
    const reasoning = m.additional_kwargs?.reasoning_content;
    if (typeof reasoning === "string" && reasoning) {
      const stillThinking = live && !textOf(m.content) && !(m.tool_calls ?? []).length;
      const tokens = messageUsage(m)?.reasoning;
      block.items.push({ kind: "reasoning", key: `${m.id}-r`, text: reasoning, streaming: stillThinking, ...(tokens ? { tokens } : {}) });
    }
    const text = textOf(m.content);
    if (text) block.items.push({ kind: "text", key: `${m.id}-t`, text, streaming: live });
    for (const call of m.tool_calls ?? []) {
      const item: Extract<AssistantItem, { kind: "tool" }> = { kind: "tool", key: `${m.id}-${call.id}`, call };
      block.items.push(item);
      pending.set(call.id, { item, block });
    }
    for (const [i, bad] of (m.invalid_tool_calls ?? []).entries()) {
      const id = bad.id || `${m.id}-invalid-${i}`;
      const item: Extract<AssistantItem, { kind: "tool" }> = {
        kind: "tool",
        key: `${m.id}-${id}`,
        call: { name: bad.name || "tool", args: { arguments: bad.args ?? "" }, id },
        invalid: bad.error || t("lib.invalidToolArgs"),
      };
      block.items.push(item);
      pending.set(id, { item, block });
    }
  }
}
