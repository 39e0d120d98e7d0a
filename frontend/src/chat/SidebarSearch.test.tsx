// @vitest-environment jsdom
// Searching conversations from the sidebar: the query goes to the server once typing pauses,
// the hits replace the list with their matches in <mark> (as text, never as HTML), arrows and
// Enter open a result, and clearing the box brings the list back.
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { json } from "../test/agents";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { DEBOUNCE_MS, SidebarSearch } from "./SidebarSearch";

const hit = (id: string, title: string, parts: [string, boolean][]) => ({
  thread_id: id,
  updated_at: "2026-01-01T00:00:00Z",
  metadata: { title },
  search: {
    title: [{ text: title, match: false }],
    snippet: parts.map(([text, match]) => ({ text, match })),
  },
});

let bodies: Record<string, unknown>[] = [];
let answer: (body: Record<string, unknown>) => Response = () => json([]);

function renderSearch(onNavigate = vi.fn()) {
  render(
    <MemoryRouter initialEntries={["/"]}>
      <SidebarSearch onNavigate={onNavigate}>
        <nav data-testid="normal-list">the usual list</nav>
      </SidebarSearch>
      <Routes>
        <Route path="/" element={<p>home</p>} />
        <Route path="/threads/:id" element={<p data-testid="opened">opened</p>} />
      </Routes>
    </MemoryRouter>,
  );
  return onNavigate;
}

async function type(text: string) {
  fireEvent.change(screen.getByTestId("sidebar-search"), { target: { value: text } });
  await act(async () => {
    vi.advanceTimersByTime(DEBOUNCE_MS + 10);
  });
}

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  bodies = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      if (pathOf(input) === "/api/threads/search" && methodOf(input, init) === "POST") {
        const body = (await requestOf(input, init).json()) as Record<string, unknown>;
        bodies.push(body);
        return answer(body);
      }
      return json({ error: { code: "not_found", message: "no" } }, 404);
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("SidebarSearch", () => {
  it("searches once typing pauses and marks the matches as text", async () => {
    answer = () =>
      json([hit("t1", "Birds", [["…brown ", false], ["pelicans", true], [" <b>dive</b>", false]])]);
    renderSearch();
    expect(screen.getByTestId("normal-list")).toBeTruthy();
    fireEvent.change(screen.getByTestId("sidebar-search"), { target: { value: "pel" } });
    await type("pelicans");
    await waitFor(() => expect(screen.getByTestId("search-results")).toBeTruthy());
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({ query: "pelicans" });
    expect(screen.queryByTestId("normal-list")).toBeNull();
    const snippet = screen.getByTestId("search-snippet");
    expect(snippet.querySelector("mark")?.textContent).toBe("pelicans");
    expect(snippet.textContent).toBe("…brown pelicans <b>dive</b>");
    expect(snippet.querySelector("b")).toBeNull();
  });

  it("says when nothing matches and clearing brings the list back", async () => {
    answer = () => json([]);
    renderSearch();
    await type("nothing");
    await waitFor(() => expect(screen.getByText("No conversations match “nothing”.")).toBeTruthy());
    fireEvent.click(screen.getByRole("button", { name: "Clear search" }));
    expect(screen.getByTestId("normal-list")).toBeTruthy();
    await type("again");
    await waitFor(() => expect(screen.getByText("No conversations match “again”.")).toBeTruthy());
    fireEvent.keyDown(screen.getByTestId("sidebar-search"), { key: "Escape" });
    expect(screen.getByTestId("normal-list")).toBeTruthy();
    expect((screen.getByTestId("sidebar-search") as HTMLInputElement).value).toBe("");
  });

  it("moves through results with the arrows and opens one with Enter", async () => {
    answer = () => json([hit("a", "First", [["one", true]]), hit("b", "Second", [["two", true]])]);
    const onNavigate = renderSearch();
    await type("o");
    await waitFor(() => expect(screen.getByTestId("search-results")).toBeTruthy());
    const box = screen.getByTestId("sidebar-search");
    fireEvent.keyDown(box, { key: "ArrowDown" });
    const links = screen.getAllByRole("link");
    expect(document.activeElement).toBe(links[0]);
    fireEvent.keyDown(links[0]!, { key: "ArrowDown" });
    expect(document.activeElement).toBe(links[1]);
    fireEvent.keyDown(links[1]!, { key: "ArrowUp" });
    fireEvent.keyDown(links[0]!, { key: "ArrowUp" });
    expect(document.activeElement).toBe(box);
    fireEvent.keyDown(box, { key: "Enter" });
    await waitFor(() => expect(screen.getByTestId("opened")).toBeTruthy());
    expect(onNavigate).toHaveBeenCalled();
  });

  it("shows the server's error and drops answers to older queries", async () => {
    answer = (body) =>
      body.query === "bad"
        ? json({ error: { code: "invalid_body", message: "query must be at most 200 characters" } }, 422)
        : json([hit("t", "Only", [["fresh", true]])]);
    renderSearch();
    await type("bad");
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("Search failed"));
    await type("fresh");
    await waitFor(() => expect(screen.getByTestId("search-snippet").textContent).toBe("fresh"));
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
