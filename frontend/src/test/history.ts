// Thread histories as the server records them, for tests: every run with a new human message
// saves an input checkpoint (the state before it; the thread's first has step -1 and no
// messages), then a loop checkpoint per message added; a run from an older checkpoint hangs
// its checkpoints under that one, which makes a fork.
import type { ThreadState } from "../api/types";
import type { AIMessage, HumanMessage, Message, ToolMessage } from "../lib/messages";

/** A message as states hold it (the server's type, which also knows system messages). */
type StateMessage = NonNullable<ThreadState["values"]["messages"]>[number];

export const human = (id: string, content: string): HumanMessage => ({ type: "human", id, content });
export const ai = (id: string, content: string, calls: string[] = []): AIMessage => ({
  type: "ai",
  id,
  content,
  tool_calls: calls.map((call) => ({ id: call, name: "bash", args: { command: "ls" } })),
});
export const tool = (id: string, call: string, content = "out"): ToolMessage => ({
  type: "tool",
  id,
  tool_call_id: call,
  name: "bash",
  content,
  status: "success",
});

export class FakeThread {
  /** Oldest first. */
  readonly states: ThreadState[] = [];
  private count = 0;

  constructor(readonly threadId = "t-1") {}

  /** A run: from `from` (the newest checkpoint when not given), with a new human message or
   * none (Regenerate); answers the id of its last checkpoint. */
  run({ from, human, replies = [] }: { from?: string; human?: Message; replies?: Message[] }): string {
    let parent = from ? this.get(from) : this.states.at(-1);
    const runId = `run-${this.count + 1}`;
    if (human) {
      parent = this.save(parent, parent?.values.messages ?? [], "input", runId);
      parent = this.save(parent, [...(parent.values.messages ?? []), human], "loop", runId);
    }
    for (const m of replies) parent = this.save(parent, [...(parent?.values.messages ?? []), m], "loop", runId);
    return parent?.checkpoint?.checkpoint_id ?? "";
  }

  /** POST …/history: newest first. */
  history(): ThreadState[] {
    return [...this.states].reverse();
  }

  /** The checkpoint of the state holding a message first. */
  firstHolding(messageId: string): ThreadState | undefined {
    return this.states.find((s) => (s.values.messages ?? []).some((m) => m.id === messageId));
  }

  get(checkpointId: string): ThreadState {
    const s = this.states.find((x) => x.checkpoint?.checkpoint_id === checkpointId);
    if (!s) throw new Error(`no checkpoint ${checkpointId}`);
    return s;
  }

  /** Ids are time-ordered, like the server's UUIDv7. */
  private save(parent: ThreadState | undefined, messages: StateMessage[], source: string, runId: string): ThreadState {
    this.count += 1;
    const id = `0190a000-0000-7000-8000-${String(this.count).padStart(12, "0")}`;
    const ref = (checkpoint_id: string) => ({ thread_id: this.threadId, checkpoint_ns: "", checkpoint_id });
    const step = parent ? Number(parent.metadata["step"]) + 1 : -1;
    const state: ThreadState = {
      values: { messages, artifacts: [] },
      next: source === "input" ? ["__start__"] : [],
      tasks: [],
      metadata: { source, step, parents: {}, writes: null, run_id: runId },
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, this.count)).toISOString(),
      checkpoint: ref(id),
      parent_checkpoint: parent?.checkpoint ? ref(parent.checkpoint.checkpoint_id) : null,
    };
    this.states.push(state);
    return state;
  }
}
