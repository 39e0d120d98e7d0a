// @vitest-environment jsdom
// `tool_progress` stream events: kept per call while the call runs, shown on its tool card,
// and dropped when its result arrives or the run ends.
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MessageList } from "../chat/MessageList";
import type { AIMessage, ToolMessage } from "../lib/messages";
import { human } from "../test/history";
import { serveRun } from "../test/runStream";
import { ThreadSession } from "./session";
import { useStore } from "./store";

/** Serves one thread whose run streams what the test sends; the stored messages are `final`. */
const serve = (final: unknown[] = []) => serveRun({ messages: final });

const asking: AIMessage = {
  type: "ai",
  id: "a1",
  content: "",
  tool_calls: [
    { id: "c1", name: "mcp__many__slow", args: { seconds: 3 } },
    { id: "c2", name: "mcp__many__count", args: {} },
  ],
};
const result = (call: string, id: string): ToolMessage => ({
  type: "tool",
  id,
  tool_call_id: call,
  name: "mcp__many__slow",
  content: "done",
  status: "success",
  artifact: { mcp: { server: "many", tool: "slow" } },
});
const progress = (call: string, value: number, extra: { total?: number; message?: string } = {}) => ({
  type: "tool_progress",
  tool_call_id: call,
  progress: value,
  ...extra,
});

function Chat({ session }: { session: ThreadSession }) {
  const state = useStore(session.store);
  return (
    <MessageList state={state} actions={{ onOpenFile: () => undefined, onAnswer: () => undefined, busy: false }} onRetry={() => undefined} />
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("tool progress", () => {
  it("keeps each running call's latest report and drops it when its result streams in", async () => {
    const wire = serve();
    const session = new ThreadSession("t1");
    session.markFresh();
    render(<Chat session={session} />);
    act(() => session.send("go slow"));
    const w = await wire;
    w.send("values", { messages: [human("h1", "go slow"), asking] });
    w.send("custom", progress("c1", 1, { total: 4, message: "first" }));
    w.send("custom", progress("c1", 2, { total: 4, message: "second" }));
    w.send("custom", progress("c2", 5));
    await waitFor(() =>
      expect(session.store.get().toolProgress).toEqual({
        c1: { progress: 2, total: 4, message: "second" },
        c2: { progress: 5 },
      }),
    );
    // Each card shows its own call's report.
    await waitFor(() => expect(screen.getAllByTestId("tool-progress")).toHaveLength(2));
    const [slow, count] = screen.getAllByTestId("tool-progress") as [HTMLElement, HTMLElement];
    expect(slow.textContent).toBe("2 / 4 (50%)second");
    expect(count.textContent).toBe("5 so far");
    expect(screen.getAllByTestId("tool-origin").map((e) => e.textContent)).toEqual(["MCP · many", "MCP · many"]);

    // The first call's result, as a token stream event: its progress goes, the other's stays.
    w.send("messages", [result("c1", "t1"), { langgraph_node: "tools" }]);
    await waitFor(() => expect(session.store.get().toolProgress).toEqual({ c2: { progress: 5 } }));
    await waitFor(() => expect(screen.getAllByTestId("tool-progress")).toHaveLength(1));
    w.end();
    await waitFor(() => expect(session.store.get().streaming).toBe(false));
  });

  it("drops reports whose results arrive in state values, and all of them when the run ends", async () => {
    const wire = serve([human("h1", "go"), asking, result("c1", "t1")]);
    const session = new ThreadSession("t2");
    session.markFresh();
    act(() => session.send("go"));
    const w = await wire;
    w.send("values", { messages: [human("h1", "go"), asking] });
    w.send("custom", progress("c1", 1));
    w.send("custom", progress("c2", 1));
    await waitFor(() => expect(Object.keys(session.store.get().toolProgress)).toEqual(["c1", "c2"]));
    // A report that cannot be shown is ignored (events arrive in order: it is read before the values).
    w.send("custom", { type: "tool_progress", tool_call_id: "", progress: 3 });
    w.send("values", { messages: [human("h1", "go"), asking, result("c1", "t1")] });
    await waitFor(() => expect(session.store.get().toolProgress).toEqual({ c2: { progress: 1 } }));
    w.end();
    await waitFor(() => expect(session.store.get().streaming).toBe(false));
    expect(session.store.get().toolProgress).toEqual({});
  });
});
