import { describe, expect, it } from "vitest";
import { groupMessages } from "./grouping";
import type { Message } from "./messages";
import { withAttachments } from "./uploads";

const run: Message[] = [
  { type: "human", id: "h1", content: withAttachments("make a skill", ["/mnt/user-data/uploads/notes.txt"]) },
  {
    type: "ai",
    id: "a1",
    content: "",
    additional_kwargs: { reasoning_content: "Read the skill first." },
    tool_calls: [{ name: "read_file", id: "c1", args: { path: "/mnt/skills/public/skill-creator/SKILL.md" } }],
  },
  { type: "tool", id: "t1", tool_call_id: "c1", name: "read_file", content: "---\nname: x\n---", status: "success" },
  {
    type: "ai",
    id: "a2",
    content: "",
    tool_calls: [{ name: "present_files", id: "c2", args: { filepaths: ["/mnt/user-data/outputs/x.skill"] } }],
  },
  {
    type: "tool",
    id: "t2",
    tool_call_id: "c2",
    name: "present_files",
    content: "ok",
    status: "success",
    artifact: { filepaths: ["/mnt/user-data/outputs/x.skill"] },
  },
  { type: "ai", id: "a3", content: "Done." },
];

describe("groupMessages", () => {
  it("says which messages a reply holds, its last answer, and the item each message shows first", () => {
    const reply = groupMessages(run)[1];
    expect(reply?.kind).toBe("assistant");
    if (reply?.kind !== "assistant") return;
    expect(reply.key).toBe("a1");
    expect(reply.messageIds).toEqual(["a1", "t1", "a2", "t2", "a3"]);
    expect(reply.lastAi).toBe("a3");
    expect(reply.itemOf).toEqual({ a1: "a1-r", t1: "a1-c1", a2: "a2-c2", t2: "a2-c2", a3: "a3-t" });
  });

  it("puts one reply's messages in one assistant block, pairing calls with results", () => {
    const blocks = groupMessages(run);
    expect(blocks.map((b) => b.kind)).toEqual(["human", "assistant"]);
    const human = blocks[0];
    expect(human).toMatchObject({ kind: "human", text: "make a skill", files: ["/mnt/user-data/uploads/notes.txt"] });
    const assistant = blocks[1];
    if (assistant?.kind !== "assistant") throw new Error("expected assistant");
    expect(assistant.items.map((i) => i.kind)).toEqual(["reasoning", "tool", "tool", "files", "text"]);
    const read = assistant.items[1];
    expect(read?.kind === "tool" && read.result?.id).toBe("t1");
    const files = assistant.items[3];
    expect(files?.kind === "files" && files.paths).toEqual(["/mnt/user-data/outputs/x.skill"]);
  });

  it("shows a call without a result as running, and marks streaming text", () => {
    const blocks = groupMessages(
      [
        { type: "human", id: "h", content: "go" },
        { type: "ai", id: "a", content: "working", tool_calls: [{ name: "bash", id: "c", args: { command: "ls" } }] },
      ],
      new Set(["a"]),
    );
    const items = blocks[1]?.kind === "assistant" ? blocks[1].items : [];
    expect(items[0]).toMatchObject({ kind: "text", text: "working", streaming: true });
    expect(items[1]).toMatchObject({ kind: "tool" });
    expect(items[1]?.kind === "tool" && items[1].result).toBeFalsy();
  });

  it("turns ask_clarification into a question card that is answered once the person replies", () => {
    const messages: Message[] = [
      { type: "human", id: "h", content: "export it" },
      {
        type: "ai",
        id: "a",
        content: "",
        tool_calls: [{ name: "ask_clarification", id: "c", args: { question: "CSV or JSON?", clarification_type: "approach_choice" } }],
      },
      {
        type: "tool",
        id: "t",
        tool_call_id: "c",
        name: "ask_clarification",
        content: "CSV or JSON?\n1. CSV\n2. JSON",
        status: "success",
        artifact: { question: "CSV or JSON?", clarification_type: "approach_choice", context: null, options: ["CSV", "JSON"] },
      },
    ];
    let items = groupMessages(messages)[1];
    expect(items?.kind === "assistant" && items.items).toEqual([
      {
        kind: "clarification",
        key: "a-c",
        answered: false,
        clarification: { question: "CSV or JSON?", options: ["CSV", "JSON"], clarificationType: "approach_choice" },
      },
    ]);
    items = groupMessages([...messages, { type: "human", id: "h2", content: "CSV" }])[1];
    expect(items?.kind === "assistant" && items.items[0]).toMatchObject({ answered: true });
  });

  it("pairs results with the closest call when providers reuse call ids", () => {
    const blocks = groupMessages([
      { type: "human", id: "h", content: "go" },
      { type: "ai", id: "a1", content: "", tool_calls: [{ name: "read_file", id: "call_0", args: { path: "/a" } }] },
      { type: "tool", id: "t1", tool_call_id: "call_0", name: "read_file", content: "A", status: "success" },
      { type: "ai", id: "a2", content: "", tool_calls: [{ name: "bash", id: "call_0", args: { command: "ls" } }] },
      { type: "tool", id: "t2", tool_call_id: "call_0", name: "bash", content: "B\n[exit code: 0]", status: "success" },
    ]);
    const items = blocks[1]?.kind === "assistant" ? blocks[1].items : [];
    expect(items.map((i) => (i.kind === "tool" ? [i.call.name, i.result?.id] : i.kind))).toEqual([
      ["read_file", "t1"],
      ["bash", "t2"],
    ]);
    expect(new Set(items.map((i) => i.key)).size).toBe(2);
  });

  it("keeps invalid tool calls and orphan tool results visible", () => {
    const blocks = groupMessages([
      { type: "human", id: "h", content: "go" },
      { type: "ai", id: "a", content: "", invalid_tool_calls: [{ name: "ls", args: '{"path": ', id: "bad", error: "bad json" }] },
      { type: "tool", id: "t", tool_call_id: "bad", name: "ls", content: "Error: invalid", status: "error" },
      { type: "tool", id: "t2", tool_call_id: "unknown", name: "grep", content: "orphan", status: "success" },
    ]);
    const items = blocks[1]?.kind === "assistant" ? blocks[1].items : [];
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({ kind: "tool", invalid: "bad json" });
    expect(items[0]?.kind === "tool" && items[0].result?.id).toBe("t");
    expect(items[1]).toMatchObject({ kind: "tool", call: { name: "grep" } });
  });
});

describe("usage per reply", () => {
  it("adds up the usage of a reply's model calls and counts its reasoning tokens", () => {
    const usage = (input: number, output: number, reasoning = 0) => ({
      input_tokens: input,
      output_tokens: output,
      total_tokens: input + output,
      ...(reasoning ? { output_token_details: { reasoning } } : {}),
    });
    const messages: Message[] = [
      { type: "human", id: "h", content: "go" },
      { type: "ai", id: "a1", content: "", additional_kwargs: { reasoning_content: "hmm" }, tool_calls: [{ name: "ls", id: "c", args: {} }], usage_metadata: usage(100, 20, 15), response_metadata: { model_name: "o4", cost_usd: 0.001 } },
      { type: "tool", id: "t", tool_call_id: "c", name: "ls", content: "x", status: "success" },
      { type: "ai", id: "a2", content: "done", usage_metadata: usage(150, 10), response_metadata: { model_name: "o4", cost_usd: 0.002 } },
      { type: "human", id: "h2", content: "again" },
      { type: "ai", id: "a3", content: "no usage" },
    ];
    const [, first, , second] = groupMessages(messages);
    expect(first?.kind === "assistant" && first.usage).toMatchObject({ calls: 2, input: 250, output: 30, reasoning: 15, models: ["o4"] });
    expect(first?.kind === "assistant" && first.usage?.cost).toBeCloseTo(0.003);
    expect(first?.kind === "assistant" && first.items[0]).toMatchObject({ kind: "reasoning", tokens: 15 });
    expect(second?.kind === "assistant" && second.usage).toBeUndefined();
  });
});
