// LangChain message JSON as the server sends it (the generated OpenAPI types), plus helpers.
import type { components } from "../api/schema";

type Schemas = components["schemas"];

export type MessageContent = string;
export type ToolCall = Schemas["ToolCall"];
export type InvalidToolCall = Schemas["InvalidToolCall"];
export type HumanMessage = Schemas["HumanMessage"] & { type: "human" };
export type AIMessage = Schemas["AiMessage"] & { type: "ai" };
export type ToolMessage = Schemas["ToolMessage"] & { type: "tool" };
/** The messages a thread holds (system messages are never stored). */
export type Message = HumanMessage | AIMessage | ToolMessage;
/** A streamed fragment of an AI message (`messages` events in stream mode messages-tuple). */
export type AIMessageChunk = Schemas["AiMessageChunk"];
export type ToolCallChunk = Schemas["ToolCallChunk"];

/** The reasoning the model streamed (`additional_kwargs.reasoning_content`), if any. */
export function reasoningOf(kwargs: Record<string, unknown> | undefined): string {
  const reasoning = kwargs?.["reasoning_content"];
  return typeof reasoning === "string" ? reasoning : "";
}

/**
 * The plain text of message content: the server stores strings, but a message can arrive as a
 * list of parts (LangChain clients send those), so any shape is read defensively.
 */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) => {
      const text = part && typeof part === "object" ? (part as { text?: unknown }).text : undefined;
      return typeof text === "string" ? text : "";
    })
    .join("");
}

/**
 * The images of message content, as addresses an `<img>` can show: LangChain image blocks
 * (`{type: "image", mimeType, data}` or `{type: "image", url}`) and OpenAI `image_url` parts.
 */
export function imagesOf(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  const out: string[] = [];
  for (const part of content as unknown[]) {
    if (!part || typeof part !== "object") continue;
    const p = part as { type?: unknown; mimeType?: unknown; data?: unknown; url?: unknown; image_url?: unknown };
    if (p.type === "image" && typeof p.mimeType === "string" && typeof p.data === "string") {
      if (p.mimeType.startsWith("image/")) out.push(`data:${p.mimeType};base64,${p.data}`);
    } else if (p.type === "image" && typeof p.url === "string") {
      out.push(p.url);
    } else if (p.type === "image_url") {
      const url = typeof p.image_url === "string" ? p.image_url : (p.image_url as { url?: unknown } | null)?.url;
      if (typeof url === "string") out.push(url);
    }
  }
  // Only pictures: never a `javascript:` or other scheme from a stored message.
  return out.filter((u) => /^(data:image\/|https?:\/\/)/i.test(u));
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
