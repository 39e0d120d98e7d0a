// @vitest-environment jsdom
// Follow-up suggestions: chips under the latest answer, from the run's stream or (late) the
// thread's stream; clicking one sends it; they go when a new run starts.
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import i18next from "i18next";
import { MemoryRouter } from "react-router-dom";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Message } from "../lib/messages";
import { ThreadSession } from "../state/session";
import { useStore } from "../state/store";
import { json } from "../test/agents";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { ai } from "../test/history";
import { MessageList } from "./MessageList";
import { SuggestionChips } from "./SuggestionChips";
import { shownSuggestions, suggestedOf } from "./suggestions";

const sse = (events: [string, unknown][]) =>
  new Response(events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join(""), {
    status: 200,
    headers: { "Content-Type": "text/event-stream" },
  });

/** Where a run's suggestions come from: its own stream, the thread's stream, or nowhere. */
type Via = "run" | "thread" | "none";

/** A thread whose runs answer "Answer N"; suggestions come `via` the given stream. */
function serve(via: Via[]) {
  const messages: Message[] = [];
  const asked: string[] = [];
  let run = 0;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = requestOf(input, init);
      const path = pathOf(input);
      asked.push(`${methodOf(input, init)} ${path}${new URL(request.url).search}`);
      const suggestion = (n: number) => ({
        type: "suggestions",
        run_id: `run-${n}`,
        message_id: `a-${n}`,
        suggestions: [`Follow-up ${n}a`, `Follow-up ${n}b`],
      });
      if (path.endsWith("/runs/stream")) {
        run += 1;
        const body = (await request.json()) as { input: { messages: { id: string; content: string }[] } };
        const sent = body.input.messages[0] as { id: string; content: string };
        messages.push({ type: "human", id: sent.id, content: sent.content });
        const answer = ai(`a-${run}`, `Answer ${run}`);
        messages.push(answer);
        return sse([
          ["metadata", { run_id: `run-${run}`, thread_id: "t-1", attempt: 1 }],
          ["values", { messages: [...messages] }],
          ...(via[run - 1] === "run" ? ([["custom", suggestion(run)]] as [string, unknown][]) : []),
          ["end", null],
        ]);
      }
      if (path === "/api/threads/t-1/stream") {
        return sse([...(via[run - 1] === "thread" ? ([["custom", suggestion(run)]] as [string, unknown][]) : []), ["end", null]]);
      }
      if (path.endsWith("/state")) return json({ values: { messages }, next: [], checkpoint: null });
      if (path.endsWith("/history")) return json([]);
      if (path === "/api/threads/search") return json([]);
      if (path === "/api/threads/t-1") return json({ thread_id: "t-1", metadata: {}, values: {}, status: "idle" });
      return json({ error: { code: "not_found", message: path } }, 404);
    }),
  );
  return asked;
}

function Chat({ session }: { session: ThreadSession }) {
  const state = useStore(session.store);
  return (
    <MemoryRouter>
      <MessageList
        state={state}
        actions={{ onOpenFile: () => undefined, onAnswer: (text) => session.send(text), busy: state.streaming }}
        onRetry={() => undefined}
      />
    </MemoryRouter>
  );
}

const chips = () => screen.queryAllByRole("button", { name: /^Follow-up/ }).map((b) => b.textContent);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("follow-up suggestions", () => {
  it("come with the run or later on the thread's stream, and clicking one sends it", async () => {
    const asked = serve(["run", "thread", "none"]);
    const session = new ThreadSession("t-1");
    session.markFresh();
    render(<Chat session={session} />);
    act(() => session.send("First question"));
    await waitFor(() => expect(chips()).toEqual(["Follow-up 1a", "Follow-up 1b"]));
    expect(screen.getByRole("group", { name: "Suggested follow-ups" })).toBeTruthy();
    // Brought by the run: the thread's stream is not asked.
    expect(asked.filter((a) => a.includes("/api/threads/t-1/stream"))).toEqual([]);

    fireEvent.click(screen.getByRole("button", { name: "Follow-up 1b" }));
    // The chips go while the next run streams, and the chip's text was sent.
    expect(chips()).toEqual([]);
    await waitFor(() => expect(chips()).toEqual(["Follow-up 2a", "Follow-up 2b"]));
    expect(screen.getByText("Follow-up 1b")).toBeTruthy();
    expect(asked.filter((a) => a.startsWith("GET /api/threads/t-1/stream"))).toEqual([
      "GET /api/threads/t-1/stream",
    ]);

    // None for the third answer: the older ones are not shown under it.
    act(() => session.send("Third question"));
    await waitFor(() => expect(screen.getByText("Answer 3")).toBeTruthy());
    await waitFor(() => expect(session.store.get().streaming).toBe(false));
    expect(chips()).toEqual([]);
  });

  it("show only under the answer they follow, and not while a run streams", () => {
    const conversation = { base: [ai("a-1", "One"), ai("a-2", "Two")] as Message[], live: [] };
    const suggested = suggestedOf({ run_id: "r", message_id: "a-2", suggestions: ["x", "", 3, "y", "z", "w"] });
    expect(suggested?.items).toEqual(["x", "y", "z"]);
    expect(shownSuggestions(conversation, false, suggested)).toEqual(["x", "y", "z"]);
    expect(shownSuggestions(conversation, true, suggested)).toEqual([]);
    expect(shownSuggestions(conversation, false, { ...suggested!, messageId: "a-1" })).toEqual([]);
    expect(suggestedOf({ message_id: "a", suggestions: "nope" })).toBeUndefined();
    expect(suggestedOf(null)).toBeUndefined();
  });

  it("label their group in Chinese", async () => {
    await i18next.changeLanguage("zh-CN");
    try {
      render(<SuggestionChips items={["继续"]} onPick={() => undefined} />);
      expect(screen.getByRole("group", { name: "推荐的后续问题" })).toBeTruthy();
    } finally {
      await i18next.changeLanguage("en");
    }
  });
});
