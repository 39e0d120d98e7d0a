import { describe, expect, it } from "vitest";
import { human, ai } from "../test/history";
import { type Conversation, addOptimistic, applyMessageEvent } from "./conversation";
import { NO_RUN_MEMORY, type RunMemory, memoryIdsOf, memoryOf, runStarted, withAnswerMemory } from "./runMemory";

const at = (conversation: Conversation, remembered: RunMemory) => ({ conversation, remembered });
const chunk = (id: string, content: string) => [{ type: "AIMessageChunk", id, content }, {}];

describe("run memory", () => {
  it("reads the fact ids of a metadata event, ignoring what is not one", () => {
    expect(memoryIdsOf({ run_id: "r", memory: ["f-1", 2, "", "f-2"] })).toEqual(["f-1", "f-2"]);
    expect(memoryIdsOf({ run_id: "r" })).toEqual([]);
    expect(memoryIdsOf(null)).toEqual([]);
  });

  it("binds a run's facts to the first AI message it streams, not to one shown before", () => {
    const before: Conversation = { base: [human("h1", "hi"), ai("a1", "hello")], live: [] };
    const sent = addOptimistic(before, human("h2", "again"));
    const started = runStarted(NO_RUN_MEMORY, { run_id: "r2", memory: ["f-1"] }, sent);
    expect(started.pending?.ids).toEqual(["f-1"]);
    // Nothing new yet: the same state back.
    const waiting = at(sent, started);
    expect(withAnswerMemory(waiting)).toBe(waiting);
    const streamed = withAnswerMemory(at(applyMessageEvent(sent, chunk("a2", "Hel")), started));
    expect(streamed.remembered).toEqual({ byMessage: { a2: ["f-1"] } });
    // Bound once: later chunks change nothing.
    const more = at(applyMessageEvent(streamed.conversation, chunk("a2", "lo")), streamed.remembered);
    expect(withAnswerMemory(more)).toBe(more);
  });

  it("drops what a run without facts would have bound, and keeps earlier runs' facts", () => {
    const conv: Conversation = { base: [human("h1", "hi")], live: [] };
    const first: RunMemory = { byMessage: { a0: ["f-9"] }, pending: { ids: ["f-1"], before: new Set(["h1"]) } };
    const next = runStarted(first, { run_id: "r3" }, conv);
    expect(next).toEqual({ byMessage: { a0: ["f-9"] } });
    expect(runStarted(next, { run_id: "r4", memory: [] }, conv)).toBe(next);
  });

  it("finds a reply's facts by any of its messages, the latest run's first", () => {
    const memory: RunMemory = { byMessage: { a1: ["f-1"], a3: ["f-2", "f-3"] } };
    expect(memoryOf(memory, ["a1", "t1", "a2"])).toEqual(["f-1"]);
    // A Regenerate inside the reply (a3, after a1's tool calls) ran last.
    expect(memoryOf(memory, ["a1", "t1", "a3"])).toEqual(["f-2", "f-3"]);
    expect(memoryOf(memory, ["a2"])).toBeUndefined();
  });
});
