// @vitest-environment jsdom
// A summarized conversation: the messages the summary covers fold behind a marker.
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Summary } from "../api/types";
import { groupMessages } from "../lib/grouping";
import { splitSummarized } from "../lib/summarized";
import { ThreadSession } from "../state/session";
import { useStore } from "../state/store";
import { ai, human, tool } from "../test/history";
import { serveRun } from "../test/runStream";
import { MessageList } from "./MessageList";

const messages = [
  human("h1", "First question"),
  ai("a1", "First answer"),
  human("h2", "Second question"),
  ai("a2", "Second answer"),
  human("h3", "Third question"),
  ai("a3", "Third answer"),
];
const summary: Summary = { content: "They **talked** about CSV files.", up_to: "a2", summarized: 4 };

function Chat({ session }: { session: ThreadSession }) {
  const state = useStore(session.store);
  return (
    <MessageList state={state} actions={{ onOpenFile: () => undefined, onAnswer: () => undefined, busy: false }} onRetry={() => undefined} />
  );
}

/** A thread loaded as GET …/state answers it. */
async function loaded(values: Record<string, unknown>): Promise<ThreadSession> {
  void serveRun(values);
  const session = new ThreadSession(`t-${Math.random()}`);
  await act(() => session.load());
  render(<Chat session={session} />);
  return session;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("summary marker", () => {
  it("folds the summarized messages behind a marker that shows them again in place, and the summary", async () => {
    const session = await loaded({ messages, summary });
    expect(session.store.get().summary).toEqual(summary);
    const marker = screen.getByTestId("summary-marker");
    expect(marker.textContent).toContain("4 earlier messages were summarized for the agent");
    expect(screen.queryByText("First question")).toBeNull();
    expect(screen.queryByText("Second answer")).toBeNull();
    expect(screen.getByText("Third question")).toBeTruthy();
    expect(screen.getByText("Third answer")).toBeTruthy();

    const toggle = within(marker).getByRole("button", { name: "Show" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    expect(toggle.textContent).toBe("Hide");
    const earlier = screen.getByTestId("summarized-messages");
    expect(toggle.getAttribute("aria-controls")).toBe(earlier.id);
    expect(within(earlier).getByText("First question")).toBeTruthy();
    expect(within(earlier).getByText("Second answer")).toBeTruthy();
    expect(within(earlier).queryByText("Third question")).toBeNull();
    // In place: between the marker and the rest.
    const order = Array.from(document.querySelectorAll("[data-testid=summary-marker], .msg")).map((e) => e.textContent ?? "");
    expect(order[0]).toContain("summarized");
    expect(order[1]).toContain("First question");
    expect(order.at(-1)).toContain("Third answer");
    fireEvent.click(toggle);
    expect(screen.queryByText("First question")).toBeNull();

    // What the agent remembers of them, as markdown.
    const remembers = within(marker).getByText("What the agent remembers of them");
    expect(remembers.tagName).toBe("SUMMARY");
    expect(within(screen.getByTestId("summary-content")).getByText("talked").tagName).toBe("STRONG");
  });

  it("changes nothing without a summary, or with one of another version's messages", async () => {
    await loaded({ messages });
    expect(screen.queryByTestId("summary-marker")).toBeNull();
    expect(screen.getByText("First question")).toBeTruthy();
    cleanup();
    await loaded({ messages, summary: { ...summary, up_to: "elsewhere" } });
    expect(screen.queryByTestId("summary-marker")).toBeNull();
    expect(screen.getByText("First question")).toBeTruthy();
  });

  it("says one message, and keeps a reply the summary cuts through shown", async () => {
    await loaded({ messages: [human("h1", "Only question"), ai("a1", "", ["c1"]), tool("t1", "c1"), ai("a2", "Done")], summary: { content: "x", up_to: "h1", summarized: 1 } });
    expect(screen.getByTestId("summary-marker").textContent).toContain("1 earlier message was summarized for the agent");
    const cut = [human("h1", "q"), ai("a1", "", ["c1"]), tool("t1", "c1"), ai("a2", "Done")];
    const split = splitSummarized(groupMessages(cut), cut, { content: "x", up_to: "t1", summarized: 3 });
    expect(split?.earlier.map((b) => b.key)).toEqual(["h1"]);
    expect(split?.later.map((b) => b.key)).toEqual(["a1"]);
    expect(split?.count).toBe(3);
  });
});
