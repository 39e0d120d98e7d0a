// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolCall, ToolMessage } from "../lib/messages";
import { NO_SUBTASKS, type Subtask, withTaskEvents } from "../lib/subtasks";
import { shortResult, statusOfResult, subtaskView } from "../lib/subtaskView";
import { formatDuration } from "../lib/format";
import { SubtaskCard } from "./SubtaskCard";

afterEach(cleanup);

const call: ToolCall = {
  id: "c1",
  name: "task",
  args: { description: "Count the CSV rows", prompt: "Count the rows of /mnt/data.csv", subagent_type: "bash" },
};
const result = (content: string, status: "success" | "error" = "success"): ToolMessage => ({
  type: "tool",
  id: "r1",
  tool_call_id: "c1",
  name: "task",
  content,
  status,
});
const usage = { input_tokens: 1200, output_tokens: 300, model_calls: 2 };

/** A task that started and streamed some text and a tool call. */
function running(): Subtask {
  const map = withTaskEvents(NO_SUBTASKS, [
    { type: "task_started", task_id: "c1", run_id: "child", description: "Count the CSV rows", subagent_type: "bash" },
    {
      type: "task_event",
      task_id: "c1",
      event: "messages",
      data: [{ type: "AIMessageChunk", id: "m", content: "Counting **now**.", tool_call_chunks: [{ index: 0, id: "k", name: "bash", args: '{"command":"wc -l data.csv"}' }] }, {}] as unknown as Record<string, unknown>,
    },
    {
      type: "task_event",
      task_id: "c1",
      event: "messages",
      data: [{ type: "tool", id: "t", tool_call_id: "k", name: "bash", content: "42 data.csv\n[exit code: 0]", status: "success" }, {}] as unknown as Record<string, unknown>,
    },
  ]);
  return map["c1"] as Subtask;
}

const card = () => screen.getByTestId("subtask-card");
const head = () => within(card()).getAllByRole("button")[0] as HTMLElement;

describe("SubtaskCard", () => {
  it("shows a running task folded, with its description, type and a spinner; opened, what the subagent did", () => {
    render(<SubtaskCard call={call} task={running()} />);
    expect(card().getAttribute("data-task-status")).toBe("running");
    expect(head().getAttribute("aria-expanded")).toBe("false");
    expect(head().textContent).toContain("Count the CSV rows");
    expect(screen.getByTestId("subtask-type").textContent).toBe("bash");
    expect(screen.getByTestId("subtask-status").textContent).toBe("running…");
    expect(card().querySelector(".spinner")).not.toBeNull();
    expect(screen.queryByTestId("subtask-transcript")).toBeNull();

    fireEvent.click(head());
    expect(head().getAttribute("aria-expanded")).toBe("true");
    const body = screen.getByTestId("subtask-transcript");
    expect(head().getAttribute("aria-controls")).toBe(body.id);
    // The text as markdown, the tool call in a line with the start of its result.
    expect(within(body).getByText("now").tagName).toBe("STRONG");
    const tool = within(body).getByTestId("subtask-tool");
    expect(tool.textContent).toContain("Run command");
    expect(tool.textContent).toContain("$ wc -l data.csv");
    expect(tool.textContent).toContain("done");
    expect(tool.textContent).toContain("42 data.csv …");
    expect(within(body).getByText("The task it was given")).toBeTruthy();
  });

  it("says when a task waits for a slot", () => {
    const task = withTaskEvents(NO_SUBTASKS, [
      { type: "task_queued", task_id: "c1", description: "Queued one", subagent_type: "general-purpose" },
    ])["c1"];
    render(<SubtaskCard call={call} task={task} />);
    expect(card().getAttribute("data-task-status")).toBe("queued");
    expect(screen.getByTestId("subtask-status").textContent).toBe("queued");
    fireEvent.click(head());
    expect(screen.getByTestId("subtask-transcript").textContent).toContain("Waiting for a free subagent");
  });

  it("shows how long a task ran and what it used, and a timed-out task's error unopened", () => {
    const map = withTaskEvents({ c1: running() }, [
      { type: "task_timed_out", task_id: "c1", run_id: "child", error: "the subagent ran past its limit of 900s", usage, duration_ms: 900_000 },
    ]);
    render(<SubtaskCard call={call} task={map["c1"]} result={result("Error: the subagent did not finish within 900s", "error")} />);
    expect(card().getAttribute("data-task-status")).toBe("timed_out");
    expect(screen.getByTestId("subtask-status").textContent).toBe("timed out · 15 min");
    expect(screen.getByTestId("subtask-error").textContent).toBe("the subagent ran past its limit of 900s");
    expect(card().querySelector(".spinner")).toBeNull();
    fireEvent.click(head());
    expect(screen.getByTestId("subtask-transcript").textContent).toContain("1,200 tokens in, 300 out, 2 model calls");
  });

  it("after a reload reads the status and answer from the call's result alone", () => {
    render(<SubtaskCard call={call} result={result("There are **42** rows.")} />);
    expect(card().getAttribute("data-task-status")).toBe("completed");
    expect(head().textContent).toContain("Count the CSV rows");
    expect(screen.getByTestId("subtask-type").textContent).toBe("bash");
    fireEvent.click(head());
    const body = screen.getByTestId("subtask-transcript");
    expect(within(body).getByText("42").tagName).toBe("STRONG");
    cleanup();

    render(<SubtaskCard call={call} result={result("Error: the subagent failed: no model", "error")} />);
    expect(card().getAttribute("data-task-status")).toBe("failed");
    expect(screen.getByTestId("subtask-error").textContent).toBe("the subagent failed: no model");
  });
});

describe("subtask view", () => {
  it("tells the endings apart from a result's text", () => {
    expect(statusOfResult(result("ok"))).toBe("completed");
    expect(statusOfResult(result("Error: the subagent was cancelled", "error"))).toBe("cancelled");
    expect(statusOfResult(result("Error: the run was stopped", "error"))).toBe("cancelled");
    expect(statusOfResult(result("Error: the subagent did not finish within 60s (agent.subagents.timeout_secs)", "error"))).toBe("timed_out");
    expect(statusOfResult(result("Error: 'prompt' is required", "error"))).toBe("failed");
  });

  it("reads the ending the server recorded in the result's artifact first", () => {
    const kept = { ...result("Error: something else", "error"), artifact: { task: { status: "timed_out", duration_ms: 61000 } } };
    expect(statusOfResult(kept)).toBe("timed_out");
    expect(subtaskView(call, kept, undefined).durationMs).toBe(61000);
  });

  it("prefers an ending the events reported, and falls back on the arguments for what it is", () => {
    const cancelled = withTaskEvents({ c1: running() }, [{ type: "task_cancelled", task_id: "c1", run_id: "child", usage, duration_ms: 1500 }]);
    expect(subtaskView(call, result("Error: x", "error"), cancelled["c1"])).toMatchObject({ status: "cancelled", durationMs: 1500 });
    expect(subtaskView({ id: "c", name: "task", args: {} }, undefined, undefined)).toEqual({
      status: "running",
      description: "Subtask",
      subagentType: "",
    });
  });

  it("shortens results and durations", () => {
    expect(shortResult("one line")).toBe("one line");
    expect(shortResult("\nfirst\nsecond")).toBe("first …");
    expect(shortResult("x".repeat(200), 10)).toBe(`${"x".repeat(9)}…`);
    expect(formatDuration(420)).toBe("0.4 s");
    expect(formatDuration(42_000)).toBe("42 s");
    expect(formatDuration(185_000)).toBe("3 min 5 s");
  });
});
