// @vitest-environment jsdom
// Subagents' `task_*` events on a run's stream: each `task` call's card follows its own task,
// and what streamed stays after the run.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MessageList } from "../chat/MessageList";
import type { AIMessage, ToolMessage } from "../lib/messages";
import { human } from "../test/history";
import { serveRun } from "../test/runStream";
import { ThreadSession } from "./session";
import { useStore } from "./store";

const delegating: AIMessage = {
  type: "ai",
  id: "a1",
  content: "Two things at once.",
  tool_calls: [
    { id: "c1", name: "task", args: { description: "Read the logs", prompt: "…", subagent_type: "bash" } },
    { id: "c2", name: "task", args: { description: "Write the report", prompt: "…", subagent_type: "general-purpose" } },
  ],
};
const answer = (call: string, content: string, status: "success" | "error" = "success"): ToolMessage => ({
  type: "tool",
  id: `r-${call}`,
  tool_call_id: call,
  name: "task",
  content,
  status,
});
const started = (task: string, description: string) => ({
  type: "task_started",
  task_id: task,
  run_id: `child-${task}`,
  description,
  subagent_type: task === "c1" ? "bash" : "general-purpose",
});
const token = (task: string, content: string) => ({
  type: "task_event",
  task_id: task,
  event: "messages",
  data: [{ type: "AIMessageChunk", id: `m-${task}`, content }, { langgraph_node: "agent" }],
});
const usage = { input_tokens: 10, output_tokens: 5, model_calls: 1 };

function Chat({ session }: { session: ThreadSession }) {
  const state = useStore(session.store);
  return (
    <MessageList state={state} actions={{ onOpenFile: () => undefined, onAnswer: () => undefined, busy: false }} onRetry={() => undefined} />
  );
}

const cards = () => screen.getAllByTestId("subtask-card");
const statuses = () => cards().map((c) => c.getAttribute("data-task-status"));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("subagent tasks on the stream", () => {
  it("updates each task's card on its own, streams long transcripts, and keeps them after the run", async () => {
    const stored: unknown[] = [];
    const wire = serveRun({ messages: stored });
    const session = new ThreadSession("t-tasks");
    session.markFresh();
    render(<Chat session={session} />);
    act(() => session.send("go"));
    // The message as sent (the server keeps its id).
    const sent = human(session.store.get().conversation.live[0]?.message.id ?? "", "go");
    stored.push(sent, delegating, answer("c1", "The logs are clean."), answer("c2", "Error: the subagent failed: no model", "error"));
    const w = await wire;
    w.send("values", { messages: [sent, delegating] });
    await waitFor(() => expect(cards()).toHaveLength(2));
    // Not started yet: a task card, never a plain tool card.
    expect(screen.queryByTestId("tool-card")).toBeNull();
    expect(statuses()).toEqual(["running", "running"]);

    w.send("custom", started("c1", "Read the logs"));
    w.send("custom", { type: "task_queued", task_id: "c2", description: "Write the report", subagent_type: "general-purpose" });
    await waitFor(() => expect(statuses()).toEqual(["running", "queued"]));
    w.send("custom", token("c1", "Reading "));
    w.send("custom", started("c2", "Write the report"));
    w.send("custom", token("c2", "Drafting"));
    w.send("custom", token("c1", "the logs."));
    w.send("custom", { type: "task_completed", task_id: "c1", run_id: "child-c1", result: "The logs are clean.", usage, duration_ms: 3200 });
    w.send("messages", [answer("c1", "The logs are clean."), { langgraph_node: "tools" }]);
    await waitFor(() => expect(statuses()).toEqual(["completed", "running"]));
    expect(within(cards()[0] as HTMLElement).getByTestId("subtask-status").textContent).toBe("completed · 3.2 s");

    // The second card opens on what its subagent wrote so far, and follows it.
    const second = cards()[1] as HTMLElement;
    fireEvent.click(within(second).getAllByRole("button")[0] as HTMLElement);
    const transcript = within(second).getByTestId("subtask-transcript");
    expect(transcript.textContent).toContain("Drafting");
    const expected = ["Drafting"];
    for (let i = 0; i < 2000; i++) {
      w.send("custom", token("c2", ` w${i}`));
      expected.push(` w${i}`);
    }
    await waitFor(() => expect(session.store.get().subtasks["c2"]?.transcript[0]).toEqual(expect.objectContaining({ text: expected.join("") })), {
      timeout: 5000,
    });
    await waitFor(() => expect(transcript.textContent).toContain("w1999"));
    // The first card stayed folded and as it was.
    expect(within(cards()[0] as HTMLElement).queryByTestId("subtask-transcript")).toBeNull();

    w.send("custom", { type: "task_failed", task_id: "c2", run_id: "child-c2", error: "no model", usage, duration_ms: 9000 });
    await waitFor(() => expect(statuses()).toEqual(["completed", "failed"]));
    expect(within(cards()[1] as HTMLElement).getByTestId("subtask-error").textContent).toBe("no model");
    w.end();
    await waitFor(() => expect(session.store.get().streaming).toBe(false));
    // The stored state is read again after the run: the transcripts stay.
    await waitFor(() => expect(screen.getAllByTestId("subtask-card")).toHaveLength(2));
    expect(statuses()).toEqual(["completed", "failed"]);
    expect(screen.getByTestId("subtask-transcript").textContent).toContain("w1999");
  });
});
