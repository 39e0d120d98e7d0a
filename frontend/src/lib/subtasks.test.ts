import { describe, expect, it } from "vitest";
import { NO_SUBTASKS, type TaskEvent, type TranscriptEntry, withTaskEvents } from "./subtasks";

const queued = (id: string): TaskEvent => ({ type: "task_queued", task_id: id, description: `Do ${id}`, subagent_type: "bash" });
const started = (id: string): TaskEvent => ({
  type: "task_started",
  task_id: id,
  run_id: `child-${id}`,
  description: `Do ${id}`,
  subagent_type: "general-purpose",
});
/** A child's `messages` event, forwarded. */
const child = (id: string, message: Record<string, unknown>): TaskEvent => ({
  type: "task_event",
  task_id: id,
  event: "messages",
  data: [message, { langgraph_node: "agent" }] as unknown as Record<string, unknown>,
});
const token = (id: string, msg: string, content: string, extra: Record<string, unknown> = {}) =>
  child(id, { type: "AIMessageChunk", id: msg, content, ...extra });
const usage = { input_tokens: 1200, output_tokens: 300, model_calls: 2 };

const texts = (entries: readonly TranscriptEntry[]) => entries.map((e) => (e.kind === "text" ? e.text : `[${e.name}]`));

describe("subtasks", () => {
  it("follows a task from queued to completed: its text per message, its tool calls and their results", () => {
    let map = withTaskEvents(NO_SUBTASKS, [queued("c1")]);
    expect(map["c1"]).toMatchObject({ status: "queued", description: "Do c1", subagentType: "bash" });
    map = withTaskEvents(map, [
      started("c1"),
      token("c1", "m1", "Let me "),
      token("c1", "m1", "look."),
      token("c1", "m1", "", { tool_call_chunks: [{ index: 0, id: "k1", name: "bash", args: '{"comm' }] }),
      token("c1", "m1", "", { tool_call_chunks: [{ index: 0, args: 'and": "ls"}' }] }),
    ]);
    map = withTaskEvents(map, [
      child("c1", { type: "tool", id: "r1", tool_call_id: "k1", name: "bash", content: "a.txt\n[exit code: 0]", status: "success" }),
      token("c1", "m2", "Found a.txt."),
      { type: "task_completed", task_id: "c1", run_id: "child-c1", result: "Found a.txt.", usage, duration_ms: 4200 },
    ]);
    const t = map["c1"];
    expect(t).toMatchObject({ status: "completed", runId: "child-c1", result: "Found a.txt.", durationMs: 4200, usage });
    expect(texts(t?.transcript ?? [])).toEqual(["Let me look.", "[bash]", "Found a.txt."]);
    expect(t?.transcript[1]).toMatchObject({ id: "k1", rawArgs: '{"command": "ls"}', result: "a.txt\n[exit code: 0]", failed: false });
  });

  it("keeps parallel tasks apart, and never changes the state a batch started from", () => {
    const before = withTaskEvents(NO_SUBTASKS, [started("a"), started("b"), token("a", "m", "A1")]);
    const snapshot = JSON.stringify(before);
    const after = withTaskEvents(before, [token("b", "n", "B1"), token("a", "m", "A2"), token("b", "n", "B2")]);
    expect(JSON.stringify(before)).toBe(snapshot);
    expect(texts(after["a"]?.transcript ?? [])).toEqual(["A1A2"]);
    expect(texts(after["b"]?.transcript ?? [])).toEqual(["B1B2"]);
    // Nothing a task could use: the same map (no re-render).
    expect(withTaskEvents(after, [])).toBe(after);
  });

  it("starts a task over when its run's events are replayed (a client joining late)", () => {
    const events = [started("a"), token("a", "m", "once"), { ...started("b") }];
    const once = withTaskEvents(NO_SUBTASKS, events);
    const twice = withTaskEvents(once, events);
    expect(texts(twice["a"]?.transcript ?? [])).toEqual(["once"]);
  });

  it("reads failures, whole messages and the child's tool progress", () => {
    let map = withTaskEvents(NO_SUBTASKS, [
      started("a"),
      child("a", { type: "ai", id: "m", content: "Calling.", tool_calls: [{ id: "k", name: "mcp__many__slow", args: { n: 1 } }] }),
      { type: "task_event", task_id: "a", event: "custom", data: { type: "tool_progress", tool_call_id: "k", progress: 2, total: 4 } },
    ]);
    expect(map["a"]?.transcript[1]).toMatchObject({ name: "mcp__many__slow", rawArgs: '{"n":1}', progress: { progress: 2, total: 4 } });
    map = withTaskEvents(map, [
      child("a", { type: "tool", id: "r", tool_call_id: "k", content: "Error: boom", status: "error" }),
      { type: "task_failed", task_id: "a", run_id: "child-a", error: "model refused", usage, duration_ms: 10 },
    ]);
    expect(map["a"]?.transcript[1]).toMatchObject({ failed: true, result: "Error: boom" });
    expect(map["a"]?.transcript[1]).not.toHaveProperty("progress");
    expect(map["a"]).toMatchObject({ status: "failed", error: "model refused" });
  });

  it("appends thousands of chunks in frame-sized batches without rebuilding the transcript per chunk", () => {
    let map = withTaskEvents(NO_SUBTASKS, [started("a"), started("b")]);
    const expected: string[] = [];
    for (let frame = 0; frame < 100; frame++) {
      const batch: TaskEvent[] = [];
      for (let i = 0; i < 40; i++) {
        const n = frame * 40 + i;
        batch.push(token(n % 2 ? "a" : "b", n % 2 ? "ma" : "mb", `${n} `));
        if (n % 2) expected.push(`${n} `);
      }
      map = withTaskEvents(map, batch);
    }
    expect(map["a"]?.transcript).toHaveLength(1);
    expect(texts(map["a"]?.transcript ?? [])).toEqual([expected.join("")]);
  });
});
