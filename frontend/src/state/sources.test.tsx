// @vitest-environment jsdom
// `sources` stream events: the web pages a run's calls searched up or read (a subagent's
// inside its task's `task_event`s) show in the reply's Sources list while the run streams,
// its citations link to them, and they stay after the run.
import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MessageList } from "../chat/MessageList";
import type { AIMessage } from "../lib/messages";
import type { WebSource } from "../lib/webSources";
import { human } from "../test/history";
import { serveRun } from "../test/runStream";
import { ThreadSession } from "./session";
import { useStore } from "./store";

const page = (index: number, kind: "search" | "fetch" = "search", title = `Page ${index}`): WebSource => ({
  index,
  url: `https://p${index}.example/`,
  title,
  domain: `p${index}.example`,
  kind,
});

const searching: AIMessage = {
  type: "ai",
  id: "a1",
  content: "",
  tool_calls: [
    { id: "s1", name: "web_search", args: { query: "pages" } },
    { id: "task-1", name: "task", args: { description: "Read more", prompt: "…", subagent_type: "general-purpose" } },
  ],
};
const answer: AIMessage = { type: "ai", id: "a2", content: "One [1], two [2], three [3]." };

function Chat({ session }: { session: ThreadSession }) {
  const state = useStore(session.store);
  return (
    <MessageList state={state} actions={{ onOpenFile: () => undefined, onAnswer: () => undefined, busy: false }} onRetry={() => undefined} />
  );
}

const items = () => screen.queryAllByTestId("source-item").map((i) => i.textContent);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("sources on the stream", () => {
  it("keeps each call's sources, a subagent's under its task, and shows them under the reply", async () => {
    const wire = serveRun({ messages: [human("h1", "research"), searching, answer] });
    const session = new ThreadSession("t-sources");
    session.markFresh();
    render(<Chat session={session} />);
    act(() => session.send("research"));
    const w = await wire;
    w.send("values", { messages: [human("h1", "research"), searching] });
    w.send("custom", { type: "sources", tool_call_id: "s1", sources: [page(1), page(2)] });
    // A subagent's read of a page the lead's search found (numbered for the whole run), and a new one.
    w.send("custom", {
      type: "task_event",
      task_id: "task-1",
      event: "custom",
      data: { type: "sources", tool_call_id: "child-call", sources: [page(2, "fetch", "Page Two, read")] },
    });
    w.send("custom", {
      type: "task_event",
      task_id: "task-1",
      event: "custom",
      data: { type: "sources", tool_call_id: "child-call-2", sources: [page(3, "fetch")] },
    });
    // Malformed entries are ignored.
    w.send("custom", { type: "sources", tool_call_id: "s1", sources: [{ index: "x" }, null] });
    await waitFor(() =>
      expect(session.store.get().sources).toEqual({
        s1: [page(1), page(2)],
        "task-1": [page(2, "fetch", "Page Two, read"), page(3, "fetch")],
      }),
    );
    await waitFor(() => expect(items()).toEqual(["[1] Page 1 — p1.example", "[2] Page Two, read — p2.example", "[3] Page 3 — p3.example"]));

    w.send("values", { messages: [human("h1", "research"), searching, answer] });
    await waitFor(() => expect(screen.getAllByTestId("citation")).toHaveLength(3));
    const list = screen.getByRole("region", { name: "Sources" });
    expect(screen.getAllByTestId("citation").map((c) => c.getAttribute("href"))).toEqual(
      within(list).getAllByTestId("source-item").map((i) => `#${i.id}`),
    );
    w.end();
    await waitFor(() => expect(session.store.get().streaming).toBe(false));
    // What streamed stays after the run (the subagent's sources are in no stored message).
    expect(Object.keys(session.store.get().sources)).toEqual(["s1", "task-1"]);
    await waitFor(() => expect(screen.getAllByTestId("citation")).toHaveLength(3));
    expect(items()).toHaveLength(3);
  });

  it("ignores other tasks' custom events and sources events without sources", async () => {
    const wire = serveRun({ messages: [] });
    const session = new ThreadSession("t-sources-2");
    session.markFresh();
    act(() => session.send("research"));
    const w = await wire;
    w.send("custom", { type: "task_event", task_id: "task-1", event: "custom", data: { type: "tool_progress", tool_call_id: "x", progress: 1 } });
    w.send("custom", { type: "sources", tool_call_id: "s1", sources: [] });
    w.send("custom", { type: "title", title: "Research" });
    w.end();
    await waitFor(() => expect(session.store.get().streaming).toBe(false));
    expect(session.store.get().sources).toEqual({});
  });
});
