// LangChain message JSON as the server sends it, plus helpers.

export type ContentPart = { type: string; text?: string; [key: string]: unknown };
export type MessageContent = string | ContentPart[];

export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  id: string;
  type?: string;
}

export interface InvalidToolCall {
  name?: string | null;
  args?: string | null;
  id?: string | null;
  error?: string | null;
}

export interface HumanMessage {
  type: "human";
  id: string;
  content: MessageContent;
}

export interface AIMessage {
  type: "ai";
  id: string;
  content: MessageContent;
  tool_calls?: ToolCall[];
  invalid_tool_calls?: InvalidToolCall[];
  additional_kwargs?: { reasoning_content?: string | null; [key: string]: unknown };
  response_metadata?: Record<string, unknown>;
}

export interface ToolMessage {
  type: "tool";
  id: string;
  content: MessageContent;
  tool_call_id: string;
  name?: string | null;
  status?: "success" | "error" | null;
  artifact?: unknown;
}

export type Message = HumanMessage | AIMessage | ToolMessage;

/** A streamed fragment of an AI message (`messages` events in stream mode messages-tuple). */
export interface ToolCallChunk {
  name?: string | null;
  args?: string | null;
  id?: string | null;
  index?: number | null;
}

export interface AIMessageChunk {
  type: "AIMessageChunk";
  id: string;
  content?: MessageContent;
  tool_call_chunks?: ToolCallChunk[];
  additional_kwargs?: { reasoning_content?: string | null; [key: string]: unknown };
  response_metadata?: { finish_reason?: string | null; [key: string]: unknown };
}

/** The plain text of message content (string or a list of parts). */
export function textOf(content: MessageContent | null | undefined): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content
    .map((part) => (typeof part.text === "string" ? part.text : ""))
    .join("");
}

export function isMessage(value: unknown): value is Message {
  if (!value || typeof value !== "object") return false;
  const type = (value as { type?: unknown }).type;
  return type === "human" || type === "ai" || type === "tool";
}

/** Parses JSON that may still be arriving; answers `undefined` while it is incomplete. */
export function tryParseArgs(text: string): Record<string, unknown> | undefined {
  if (!text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
