import { describe, expect, it } from "vitest";
import { FakeThread, ai, human, tool } from "../test/history";
import { type Branch, branchTo, branchView, newestCheckpoint } from "./branches";

const ids = (history: Parameters<typeof branchView>[0], branch?: Branch) =>
  branchView(history, branch).messages.map((m) => m.id);
/** The checkpoint Edit or Regenerate of a message runs from, as the SDK finds it. */
const parentOf = (t: FakeThread, messageId: string) => t.firstHolding(messageId)?.parent_checkpoint?.checkpoint_id;

/** H1 → A1 (calls bash) → T1 → A2; then H2 → A3. */
function linear(): FakeThread {
  const t = new FakeThread();
  t.run({ human: human("h1", "list files"), replies: [ai("a1", "", ["c1"]), tool("t1", "c1"), ai("a2", "two files")] });
  t.run({ human: human("h2", "thanks"), replies: [ai("a3", "you're welcome")] });
  return t;
}

describe("branchView on a linear thread", () => {
  it("shows the newest state's messages with no switcher, and where each message's Edit/Regenerate runs from", () => {
    const t = linear();
    const view = branchView(t.history());
    expect(view.messages.map((m) => m.id)).toEqual(["h1", "a1", "t1", "a2", "h2", "a3"]);
    expect(view.supported).toBe(true);
    expect(view.head).toBe(newestCheckpoint(t.history()));
    expect(view.headIsNewest).toBe(true);
    expect(view.branch).toEqual([]);
    for (const m of view.messages) expect(view.byMessage.get(m.id)?.options).toBeUndefined();
    // The first message runs from the thread's first input checkpoint (step -1, no messages).
    const first = t.states[0];
    expect(first?.metadata).toMatchObject({ source: "input", step: -1 });
    expect(view.byMessage.get("h1")?.parentCheckpoint).toBe(first?.checkpoint?.checkpoint_id);
    // An answer after tool calls runs from the state holding the tool result.
    const afterTool = t.firstHolding("t1")?.checkpoint?.checkpoint_id;
    expect(view.byMessage.get("a2")?.parentCheckpoint).toBe(afterTool);
    expect(view.byMessage.get("a1")?.parentCheckpoint).toBe(t.firstHolding("h1")?.checkpoint?.checkpoint_id);
    // The second turn's message runs from its own input checkpoint.
    const h2From = t.get(view.byMessage.get("h2")?.parentCheckpoint ?? "");
    expect(h2From.metadata["source"]).toBe("input");
    expect(h2From.values.messages?.map((m) => m.id)).toEqual(["h1", "a1", "t1", "a2"]);
  });

  it("has nothing to show for an empty history or states without checkpoints", () => {
    expect(branchView([])).toMatchObject({ messages: [], headIsNewest: false, supported: false });
    expect(branchView([{ values: { messages: [human("h", "x")] } }]).messages).toEqual([]);
  });
});

describe("an edit of the first message", () => {
  function edited() {
    const t = new FakeThread();
    t.run({ human: human("h1", "hi"), replies: [ai("a1", "hello")] });
    const from = parentOf(t, "h1") ?? "";
    t.run({ from, human: human("h1b", "hi there"), replies: [ai("a1b", "hello there")] });
    return { t, from };
  }

  it("forks at the step -1 input checkpoint and shows the newest version, 2 / 2", () => {
    const { t, from } = edited();
    expect(t.get(from).metadata["step"]).toBe(-1);
    const view = branchView(t.history());
    expect(view.messages.map((m) => m.id)).toEqual(["h1b", "a1b"]);
    const options = view.byMessage.get("h1b")?.options;
    expect(options).toMatchObject({ index: 1, count: 2 });
    expect(options?.next).toBeUndefined();
    // Only the message where the versions diverge carries the switcher.
    expect(view.byMessage.get("a1b")?.options).toBeUndefined();
    expect(view.headIsNewest).toBe(true);
  });

  it("switches to the original with ‹ and back with ›", () => {
    const { t } = edited();
    const h = t.history();
    const previous = branchView(h).byMessage.get("h1b")?.options?.previous ?? [];
    const old = branchView(h, previous);
    expect(old.messages.map((m) => m.id)).toEqual(["h1", "a1"]);
    expect(old.branch).toEqual(previous);
    expect(old.headIsNewest).toBe(false);
    expect(old.byMessage.get("h1")?.options).toMatchObject({ index: 0, count: 2, next: branchView(h).branch });
    expect(old.byMessage.get("h1")?.options?.previous).toBeUndefined();
    expect(ids(h, old.byMessage.get("h1")?.options?.next)).toEqual(["h1b", "a1b"]);
  });
});

describe("an edit of the second message", () => {
  it("keeps the first exchange and offers the two versions on the edited message", () => {
    const t = new FakeThread();
    t.run({ human: human("h1", "one"), replies: [ai("a1", "1")] });
    t.run({ human: human("h2", "two"), replies: [ai("a2", "2")] });
    const from = parentOf(t, "h2") ?? "";
    t.run({ from, human: human("h2b", "deux"), replies: [ai("a2b", "2!")] });

    const view = branchView(t.history());
    expect(view.messages.map((m) => m.id)).toEqual(["h1", "a1", "h2b", "a2b"]);
    expect(view.byMessage.get("h1")?.options).toBeUndefined();
    expect(view.byMessage.get("a1")?.options).toBeUndefined();
    expect(view.byMessage.get("h2b")?.options).toMatchObject({ index: 1, count: 2 });
    // The edit's own Edit runs from the new input checkpoint, which holds h1 and a1.
    const again = t.get(view.byMessage.get("h2b")?.parentCheckpoint ?? "");
    expect(again.values.messages?.map((m) => m.id)).toEqual(["h1", "a1"]);
    expect(ids(t.history(), view.byMessage.get("h2b")?.options?.previous)).toEqual(["h1", "a1", "h2", "a2"]);
  });
});

describe("a regenerate of an answer that followed tool calls", () => {
  it("forks after the tool result: the calls stay, the answer has two versions", () => {
    const t = new FakeThread();
    t.run({ human: human("h1", "list"), replies: [ai("a1", "", ["c1"]), tool("t1", "c1"), ai("a2", "two files")] });
    const from = parentOf(t, "a2") ?? "";
    expect(t.get(from).values.messages?.at(-1)?.type).toBe("tool");
    t.run({ from, replies: [ai("a2b", "2 files")] });

    const h = t.history();
    const view = branchView(h);
    expect(view.messages.map((m) => m.id)).toEqual(["h1", "a1", "t1", "a2b"]);
    // Its run is the regenerate's, not the first answer's.
    const regenerated = t.firstHolding("a2b")?.metadata["run_id"];
    expect(regenerated).not.toBe(t.firstHolding("a2")?.metadata["run_id"]);
    expect(view.byMessage.get("a2b")).toEqual({
      parentCheckpoint: from,
      options: expect.objectContaining({ index: 1, count: 2 }),
      runId: regenerated,
    });
    for (const id of ["h1", "a1", "t1"]) expect(view.byMessage.get(id)?.options).toBeUndefined();
    expect(ids(h, view.byMessage.get("a2b")?.options?.previous)).toEqual(["h1", "a1", "t1", "a2"]);
  });

  it("adds a third version on a second regenerate", () => {
    const t = new FakeThread();
    t.run({ human: human("h1", "hi"), replies: [ai("a1", "hello")] });
    const from = parentOf(t, "a1") ?? "";
    t.run({ from, replies: [ai("a1b", "hey")] });
    t.run({ from, replies: [ai("a1c", "howdy")] });
    const h = t.history();
    const view = branchView(h);
    expect(view.byMessage.get("a1c")?.options).toMatchObject({ index: 2, count: 3 });
    const middle = branchView(h, view.byMessage.get("a1c")?.options?.previous);
    expect(middle.messages.map((m) => m.id)).toEqual(["h1", "a1b"]);
    expect(middle.byMessage.get("a1b")?.options).toMatchObject({ index: 1, count: 3 });
  });
});

describe("nested forks", () => {
  it("gives each fork its own switcher when the outer version added messages before the inner fork", () => {
    const t = new FakeThread();
    t.run({ human: human("h1", "hi"), replies: [ai("a1", "hello")] });
    t.run({ from: parentOf(t, "h1"), human: human("h1b", "hey"), replies: [ai("a1b", "hey!")] });
    t.run({ from: parentOf(t, "a1b"), replies: [ai("a1c", "hey you")] });

    const h = t.history();
    const view = branchView(h);
    expect(view.messages.map((m) => m.id)).toEqual(["h1b", "a1c"]);
    expect(view.byMessage.get("h1b")?.options).toMatchObject({ index: 1, count: 2 });
    expect(view.byMessage.get("a1c")?.options).toMatchObject({ index: 1, count: 2 });

    // The inner ‹ keeps the outer choice.
    const inner = branchView(h, view.byMessage.get("a1c")?.options?.previous);
    expect(inner.messages.map((m) => m.id)).toEqual(["h1b", "a1b"]);
    expect(inner.byMessage.get("h1b")?.options).toMatchObject({ index: 1, count: 2 });
    // The outer ‹ shows the original, which has no inner fork.
    const outer = branchView(h, view.byMessage.get("h1b")?.options?.previous);
    expect(outer.messages.map((m) => m.id)).toEqual(["h1", "a1"]);
    expect(outer.byMessage.get("a1")?.options).toBeUndefined();
    // Back to the edit: its newest answer again.
    expect(ids(h, outer.byMessage.get("h1")?.options?.next)).toEqual(["h1b", "a1c"]);
  });

  it("lists every edit of one message on one switcher (an edit's input checkpoint adds no message)", () => {
    const t = new FakeThread();
    t.run({ human: human("h1", "v1"), replies: [ai("a1", "r1")] });
    t.run({ from: parentOf(t, "h1"), human: human("h1b", "v2"), replies: [ai("a1b", "r2")] });
    // Editing the edit runs from its own input checkpoint: a fork nested under the first.
    t.run({ from: parentOf(t, "h1b"), human: human("h1c", "v3"), replies: [ai("a1c", "r3")] });

    const h = t.history();
    const view = branchView(h);
    expect(view.messages.map((m) => m.id)).toEqual(["h1c", "a1c"]);
    const options = view.byMessage.get("h1c")?.options;
    expect(options).toMatchObject({ index: 2, count: 3 });
    const second = branchView(h, options?.previous);
    expect(second.messages.map((m) => m.id)).toEqual(["h1b", "a1b"]);
    const first = branchView(h, second.byMessage.get("h1b")?.options?.previous);
    expect(first.messages.map((m) => m.id)).toEqual(["h1", "a1"]);
    expect(first.byMessage.get("h1")?.options).toMatchObject({ index: 0, count: 3 });
  });
});

describe("switching branches", () => {
  it("follows the newest child at forks the branch does not name, and ignores unknown ids", () => {
    const t = new FakeThread();
    t.run({ human: human("h1", "hi"), replies: [ai("a1", "hello")] });
    const from = parentOf(t, "a1") ?? "";
    t.run({ from, replies: [ai("a1b", "hey")] });
    expect(ids(t.history(), ["nope"])).toEqual(["h1", "a1b"]);
    expect(ids(t.history(), [])).toEqual(["h1", "a1b"]);
  });

  it("continues an older version from its head, and branchTo finds the way back to it", () => {
    const t = new FakeThread();
    t.run({ human: human("h1", "hi"), replies: [ai("a1", "hello")] });
    t.run({ from: parentOf(t, "h1"), human: human("h1b", "hey"), replies: [ai("a1b", "hey!")] });
    const h = t.history();
    const old = branchView(h, branchView(h).byMessage.get("h1b")?.options?.previous);
    expect(old.headIsNewest).toBe(false);
    // A send on the older version continues from its head.
    t.run({ from: old.head ?? "", human: human("h2", "more"), replies: [ai("a2", "sure")] });

    const after = t.history();
    const newest = newestCheckpoint(after) ?? "";
    const back = branchView(after, branchTo(after, newest));
    expect(back.messages.map((m) => m.id)).toEqual(["h1", "a1", "h2", "a2"]);
    expect(back.headIsNewest).toBe(true);
    expect(back.byMessage.get("h1")?.options).toMatchObject({ index: 0, count: 2 });
    expect(back.byMessage.get("h2")?.options).toBeUndefined();
    // The SDK's default still follows the newest child at the fork.
    expect(ids(after)).toEqual(["h1b", "a1b"]);
    expect(branchTo(after, "unknown")).toEqual([]);
  });

  it("works on a page of history that starts mid-thread", () => {
    const t = new FakeThread();
    t.run({ human: human("h1", "hi"), replies: [ai("a1", "hello")] });
    t.run({ human: human("h2", "more"), replies: [ai("a2", "sure")] });
    t.run({ from: parentOf(t, "a2"), replies: [ai("a2b", "ok")] });
    const page = t.history().slice(0, 4);
    const view = branchView(page);
    expect(view.messages.map((m) => m.id)).toEqual(["h1", "a1", "h2", "a2b"]);
    expect(view.byMessage.get("a2b")?.options).toMatchObject({ index: 1, count: 2 });
    // Messages older than the page: where they first appeared is unknown, so no Edit or Regenerate.
    expect(view.byMessage.get("h1")?.parentCheckpoint).toBeUndefined();
    expect(view.byMessage.get("a1")?.parentCheckpoint).toBeUndefined();
    expect(view.byMessage.get("h2")?.parentCheckpoint).toBe(parentOf(t, "h2"));
  });
});

describe("older servers", () => {
  it("shows the newest state but offers no Edit, Regenerate or switcher without checkpoint metadata", () => {
    const t = linear();
    const bare = t.history().map((s) => ({ ...s, metadata: { step: s.metadata["step"], run_id: "r" } }));
    const view = branchView(bare);
    expect(view.supported).toBe(false);
    expect(view.messages.map((m) => m.id)).toEqual(["h1", "a1", "t1", "a2", "h2", "a3"]);
    expect(view.byMessage.size).toBe(0);
  });

  it("offers no Edit where the first-seen state has no parent", () => {
    const t = new FakeThread();
    t.run({ human: human("h1", "hi"), replies: [ai("a1", "hello")] });
    // A checkpoint saved before metadata was recorded: the first one already holds h1.
    const h = t.history().filter((s) => s.metadata["source"] !== "input");
    const first = h.at(-1);
    if (first) first.parent_checkpoint = null;
    const view = branchView(h);
    expect(view.supported).toBe(true);
    expect(view.byMessage.get("h1")?.parentCheckpoint).toBeUndefined();
    expect(view.byMessage.get("a1")?.parentCheckpoint).toBe(first?.checkpoint?.checkpoint_id);
  });
});
