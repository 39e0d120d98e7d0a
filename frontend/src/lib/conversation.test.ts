import { describe, expect, it } from "vitest";
import {
  addOptimistic,
  applyMessageEvent,
  applyValues,
  emptyConversation,
  endsUnanswered,
  lastHumanText,
  streamingIds,
  visibleMessages,
} from "./conversation";
import type { AIMessage, Message } from "./messages";

const meta = { langgraph_node: "agent" };
const chunk = (extra: Record<string, unknown>) => [
  { type: "AIMessageChunk", id: "ai-1", content: "", tool_call_chunks: [], additional_kwargs: {}, ...extra },
  meta,
];

describe("streamed chunks", () => {
  it("concatenates content and reasoning of one message id", () => {
    let c = applyMessageEvent(emptyConversation, chunk({ additional_kwargs: { reasoning_content: "Let me " } }));
    c = applyMessageEvent(c, chunk({ additional_kwargs: { reasoning_content: "think." } }));
    c = applyMessageEvent(c, chunk({ content: "Hello, " }));
    c = applyMessageEvent(c, chunk({ content: "world" }));
    const [m] = visibleMessages(c) as AIMessage[];
    expect(m?.content).toBe("Hello, world");
    expect(m?.additional_kwargs?.reasoning_content).toBe("Let me think.");
    expect(streamingIds(c).has("ai-1")).toBe(true);
  });

  it("keeps the usage and cost the last chunk reports", () => {
    let c = applyMessageEvent(emptyConversation, chunk({ content: "Hi" }));
    const usage = { input_tokens: 10, output_tokens: 2, total_tokens: 12 };
    c = applyMessageEvent(c, chunk({ usage_metadata: usage, response_metadata: { finish_reason: "stop", cost_usd: 0.001 } }));
    const [m] = visibleMessages(c) as AIMessage[];
    expect(m?.usage_metadata).toEqual(usage);
    expect(m?.response_metadata).toEqual({ finish_reason: "stop", cost_usd: 0.001 });
  });

  it("assembles tool calls from fragments by index and parses the arguments when complete", () => {
    let c = applyMessageEvent(emptyConversation, chunk({ tool_call_chunks: [{ index: 0, id: "call_0", name: "ls", args: "" }] }));
    c = applyMessageEvent(c, chunk({ tool_call_chunks: [{ index: 0, id: null, name: null, args: '{"path":' }] }));
    let [m] = visibleMessages(c) as AIMessage[];
    expect(m?.tool_calls?.[0]).toEqual({ name: "ls", id: "call_0", args: {} });
    c = applyMessageEvent(c, chunk({ tool_call_chunks: [{ index: 0, args: '"/mnt/user-data"}' }] }));
    c = applyMessageEvent(c, chunk({ tool_call_chunks: [{ index: 1, id: "call_1", name: "bash", args: '{"command":"ls"}' }] }));
    [m] = visibleMessages(c) as AIMessage[];
    expect(m?.tool_calls).toEqual([
      { name: "ls", id: "call_0", args: { path: "/mnt/user-data" } },
      { name: "bash", id: "call_1", args: { command: "ls" } },
    ]);
  });

  it("marks a message done on its finish_reason chunk", () => {
    let c = applyMessageEvent(emptyConversation, chunk({ content: "hi" }));
    c = applyMessageEvent(c, chunk({ response_metadata: { finish_reason: "stop" } }));
    expect(streamingIds(c).size).toBe(0);
    expect(visibleMessages(c)).toHaveLength(1);
  });

  it("adds finished tool messages once", () => {
    const tool = { type: "tool", id: "t-1", tool_call_id: "call_0", content: "out", name: "ls", status: "success" };
    let c = applyMessageEvent(emptyConversation, [tool, { langgraph_node: "tools" }]);
    c = applyMessageEvent(c, [tool, { langgraph_node: "tools" }]);
    expect(visibleMessages(c).map((m) => m.id)).toEqual(["t-1"]);
  });

  it("ignores chunks of messages the full state already holds (replays after a reconnect)", () => {
    const base: Message[] = [{ type: "ai", id: "ai-1", content: "final" }];
    let c = applyValues(emptyConversation, base);
    c = applyMessageEvent(c, chunk({ content: "fin" }));
    expect(visibleMessages(c)).toEqual(base);
  });

  it("ignores events that are not messages", () => {
    expect(applyMessageEvent(emptyConversation, null)).toBe(emptyConversation);
    expect(applyMessageEvent(emptyConversation, [{ type: "AIMessageChunk" }])).toBe(emptyConversation);
    expect(applyMessageEvent(emptyConversation, [{ type: "system", id: "s" }])).toBe(emptyConversation);
  });
});

describe("values", () => {
  it("replace the base and drop live messages they now contain", () => {
    let c = addOptimistic(emptyConversation, { type: "human", id: "h-1", content: "hello" });
    c = applyMessageEvent(c, chunk({ content: "partial" }));
    c = applyValues(c, [{ type: "human", id: "h-1", content: "hello" }]);
    expect(c.base.map((m) => m.id)).toEqual(["h-1"]);
    expect(c.live.map((l) => l.message.id)).toEqual(["ai-1"]);
    c = applyValues(c, [
      { type: "human", id: "h-1", content: "hello" },
      { type: "ai", id: "ai-1", content: "partial answer" },
    ]);
    expect(c.live).toEqual([]);
    expect(visibleMessages(c).map((m) => m.id)).toEqual(["h-1", "ai-1"]);
  });

  it("tolerate a missing or malformed message list", () => {
    expect(applyValues(emptyConversation, undefined).base).toEqual([]);
    expect(applyValues(emptyConversation, [{ nope: 1 }, null]).base).toEqual([]);
  });

  it("keep the last human text for Retry", () => {
    const c = applyValues(emptyConversation, [
      { type: "human", id: "1", content: "first" },
      { type: "ai", id: "2", content: "answer" },
      { type: "human", id: "3", content: [{ type: "text", text: "second" }] },
    ]);
    expect(lastHumanText(c)).toBe("second");
    expect(lastHumanText(emptyConversation)).toBeUndefined();
  });

  it("retry an unanswered stored message without sending it again", () => {
    const answered = applyValues(emptyConversation, [
      { type: "human", id: "1", content: "first" },
      { type: "ai", id: "2", content: "answer" },
    ]);
    expect(endsUnanswered(answered)).toBe(false);
    const failed = applyValues(answered, [
      ...answered.base,
      { type: "human", id: "3", content: "second" },
    ]);
    expect(endsUnanswered(failed)).toBe(true);
    expect(endsUnanswered(emptyConversation)).toBe(false);
  });
});
