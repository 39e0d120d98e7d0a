// @vitest-environment jsdom
// A run's `metadata` event lists the remembered facts it was given: its answer gets a
// "Remembered N things" chip whose popover lists them as they are now.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Fact } from "../api/types";
import type { Message } from "../lib/messages";
import { ThreadSession } from "../state/session";
import { useStore } from "../state/store";
import { json } from "../test/agents";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { ai } from "../test/history";
import { MessageList } from "./MessageList";

const fact = (id: string, content: string, category: Fact["category"]): Fact => ({
  fact_id: id,
  content,
  category,
  confidence: 0.9,
  confirmations: 1,
  created_at: "2026-01-05T10:00:00Z",
  updated_at: "2026-01-05T10:00:00Z",
});
const stored = [fact("f-1", "Prefers tea", "preference"), fact("f-2", "Works on Antler", "knowledge")];

/** One scripted run: the fact ids its `metadata` event lists (none: no `memory` field) and
 * the answer it streams. */
interface Script {
  memory?: string[];
  answer: string;
}

/**
 * A thread whose runs follow `scripts` in turn: each streams its metadata, its answer as a
 * token chunk, then the full state; `/api/memory` lists `stored`. Answers the URLs asked for.
 */
function serve(scripts: Script[]) {
  const messages: Message[] = [];
  const asked: string[] = [];
  let run = 0;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = requestOf(input, init);
      const path = pathOf(input);
      asked.push(`${methodOf(input, init)} ${path}${new URL(request.url).search}`);
      if (path.endsWith("/runs/stream")) {
        const script = scripts[run++] as Script;
        const body = (await request.json()) as { input: { messages: { id: string; content: string }[] } };
        const sent = body.input.messages[0] as { id: string; content: string };
        messages.push({ type: "human", id: sent.id, content: sent.content });
        const answer = ai(`a-${run}`, script.answer);
        const events: [string, unknown][] = [
          ["metadata", { run_id: `run-${run}`, thread_id: "t-1", attempt: 1, ...(script.memory ? { memory: script.memory } : {}) }],
          ["messages", [{ type: "AIMessageChunk", id: answer.id, content: script.answer }, { langgraph_node: "agent" }]],
          ["values", { messages: [...messages, answer] }],
          ["end", null],
        ];
        messages.push(answer);
        const text = events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
        return new Response(text, { status: 200, headers: { "Content-Type": "text/event-stream" } });
      }
      if (path.endsWith("/state")) return json({ values: { messages }, next: [], checkpoint: null });
      if (path.endsWith("/history")) return json([]);
      if (path === "/api/threads/search") return json([]);
      if (path === "/api/memory") return json({ facts: stored, total: stored.length, summary: null, enabled: true });
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
        actions={{ onOpenFile: () => undefined, onAnswer: () => undefined, busy: false }}
        onRetry={() => undefined}
      />
    </MemoryRouter>
  );
}

/** Sends `text` and waits for its run to end. */
async function ask(session: ThreadSession, text: string) {
  act(() => session.send(text));
  await waitFor(() => expect(session.store.get().streaming).toBe(false));
}

const answers = () => screen.getAllByRole("article", { name: "Assistant" });

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the Remembered chip", () => {
  it("shows how many facts the run was given on its answer, and lists them when opened", async () => {
    const asked = serve([{ memory: ["f-1", "f-2", "f-gone"], answer: "Tea it is." }]);
    const session = new ThreadSession("t-1");
    session.markFresh();
    render(<Chat session={session} />);
    await ask(session, "What should I drink?");
    expect(session.store.get().remembered.byMessage).toEqual({ "a-1": ["f-1", "f-2", "f-gone"] });

    const [answer] = answers() as [HTMLElement];
    const chip = await within(answer).findByRole("button", { name: "Remembered 3 things" });
    expect(chip.getAttribute("aria-expanded")).toBe("false");
    // Nothing is read until it is opened.
    expect(asked.filter((a) => a.startsWith("GET /api/memory"))).toEqual([]);

    fireEvent.click(chip);
    expect(chip.getAttribute("aria-expanded")).toBe("true");
    const popover = screen.getByRole("dialog", { name: "What the agent remembered" });
    const items = await within(popover).findAllByRole("listitem");
    expect(items.map((i) => i.textContent)).toEqual(["Prefers tea Preference", "Works on Antler Knowledge", "(forgotten)"]);
    expect(asked.filter((a) => a.startsWith("GET /api/memory"))).toEqual(["GET /api/memory?limit=1000"]);
    expect(within(popover).getByRole("link", { name: "Manage in Settings → Memory" }).getAttribute("href")).toBe(
      "/settings/memory",
    );

    // Escape closes it and gives the focus back to the chip.
    fireEvent.keyDown(document, { key: "Escape" });
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.activeElement).toBe(chip);
  });

  it("belongs to its own run: an answer given no facts has none, and one fact reads singular", async () => {
    serve([{ memory: ["f-2"], answer: "Antler is in Rust." }, { answer: "Hello!" }, { memory: [], answer: "Bye." }]);
    const session = new ThreadSession("t-2");
    session.markFresh();
    render(<Chat session={session} />);
    await ask(session, "What do I work on?");
    await ask(session, "Hi");
    await ask(session, "Bye");
    await waitFor(() => expect(answers()).toHaveLength(3));
    const chips = answers().map((a) => within(a).queryByTestId("remembered-chip")?.textContent?.trim() ?? null);
    expect(chips).toEqual(["Remembered 1 thing", null, null]);
  });
});
