// @vitest-environment jsdom
// The runs console's list: filters read from and written to the URL query and sent to the
// API, "load more" with the total, refresh and auto-refresh, the empty and error states.
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router-dom";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BUILT_IN_ID } from "../test/agents";
import { consoleRun, serveConsole } from "./fixtures";
import { AUTO_REFRESH_MS, RunsConsolePage } from "./RunsConsolePage";

function Search() {
  return <p data-testid="search">{useLocation().search}</p>;
}

function renderPage(url = "/admin/runs") {
  render(
    <MemoryRouter initialEntries={[url]}>
      <Routes>
        <Route
          path="/admin/runs"
          element={
            <>
              <RunsConsolePage />
              <Search />
            </>
          }
        />
      </Routes>
    </MemoryRouter>,
  );
}

const rows = () => screen.queryAllByTestId("run-row");
const search = () => screen.getByTestId("search").textContent;
const select = (name: string) => screen.getByLabelText(name) as HTMLSelectElement;

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("the runs console", () => {
  it("takes its filters from the URL and asks the API for them", async () => {
    const server = serveConsole([consoleRun("a", { user_id: "u2", status: "error" }), consoleRun("b")]);
    renderPage("/admin/runs?status=error&user=u2&from=2026-03-01&to=2026-03-02&junk=1");
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(select("Status").value).toBe("error");
    await waitFor(() => expect(select("User").value).toBe("u2"));
    expect((screen.getByLabelText("From") as HTMLInputElement).value).toBe("2026-03-01");
    expect((screen.getByLabelText("To") as HTMLInputElement).value).toBe("2026-03-02");
    // The days are the browser's: from the start of the first to the start of the day after the last.
    expect(server.listCalls()[0]?.query).toEqual({
      user: "u2",
      status: "error",
      from: new Date(2026, 2, 1).toISOString(),
      to: new Date(2026, 2, 3).toISOString(),
      limit: "50",
      offset: "0",
    });
  });

  it("writes each filter change to the URL and loads the runs again", async () => {
    const server = serveConsole([consoleRun("a", { status: "error" }), consoleRun("b")]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(2));
    fireEvent.change(select("Status"), { target: { value: "error" } });
    expect(search()).toBe("?status=error");
    await waitFor(() => expect(rows()).toHaveLength(1));
    // The agent menu names the agents it knows.
    await waitFor(() => expect([...select("Agent").options].map((o) => o.textContent)).toContain("Antler"));
    fireEvent.change(select("Agent"), { target: { value: BUILT_IN_ID } });
    fireEvent.change(screen.getByLabelText("From"), { target: { value: "2026-02-01" } });
    expect(search()).toBe(`?assistant_id=${BUILT_IN_ID}&status=error&from=2026-02-01`);
    await waitFor(() => expect(server.listCalls().at(-1)?.query["from"]).toBe(new Date(2026, 1, 1).toISOString()));
    expect(server.listCalls().at(-1)?.query).toMatchObject({ assistant_id: BUILT_IN_ID, status: "error" });
    // The users menu lists the accounts; clearing empties the query.
    expect([...select("User").options].map((o) => o.textContent)).toEqual(["All users", "ada@example.com", "bob@example.com"]);
    fireEvent.click(screen.getByRole("button", { name: "Clear filters" }));
    expect(search()).toBe("");
    await waitFor(() => expect(rows()).toHaveLength(2));
  });

  it("loads more runs until all of them are shown, with how many there are", async () => {
    const runs = Array.from({ length: 60 }, (_, i) => consoleRun(`r${i}`));
    const server = serveConsole(runs);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(50));
    expect(screen.getByTestId("run-count").textContent).toBe("50 of 60 runs");
    fireEvent.click(screen.getByRole("button", { name: "Load more" }));
    await waitFor(() => expect(rows()).toHaveLength(60));
    expect(screen.getByTestId("run-count").textContent).toBe("60 of 60 runs");
    expect(screen.queryByRole("button", { name: "Load more" })).toBeNull();
    expect(server.listCalls().at(-1)?.query).toMatchObject({ offset: "50", limit: "50" });
    // A refresh reloads every run shown in one request.
    fireEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() => expect(server.listCalls().at(-1)?.query).toMatchObject({ offset: "0", limit: "60" }));
    expect(rows()).toHaveLength(60);
  });

  it("refreshes by itself while auto-refresh is on", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = serveConsole([consoleRun("a")]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(1));
    const toggle = screen.getByRole("button", { name: "Auto-refresh" });
    expect(toggle.getAttribute("aria-pressed")).toBe("false");
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
    const before = server.listCalls().length;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(AUTO_REFRESH_MS * 2 + 100);
    });
    expect(server.listCalls().length).toBe(before + 2);
    fireEvent.click(toggle);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(AUTO_REFRESH_MS * 2);
    });
    expect(server.listCalls().length).toBe(before + 2);
  });

  it("names the built-in agent however a run spells it", async () => {
    serveConsole([consoleRun("a", { assistant_id: "lead_agent" }), consoleRun("b")]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(2));
    await waitFor(() => expect(rows().map((r) => r.children[2]?.textContent)).toEqual(["Antler", "Antler"]));
  });

  it("says when there are no runs, and when none match the filters", async () => {
    serveConsole([]);
    renderPage();
    expect(await screen.findByText("No runs yet")).toBeTruthy();
    cleanup();
    serveConsole([consoleRun("a")]);
    renderPage("/admin/runs?status=timeout");
    expect(await screen.findByText("No runs match these filters")).toBeTruthy();
  });

  it("shows the server's message when the runs cannot be loaded, and loads them on retry", async () => {
    const server = serveConsole([consoleRun("a")]);
    server.failNext(403, "Only admins can see everyone's runs.");
    renderPage();
    expect((await screen.findByText("Only admins can see everyone's runs.")).closest("[role=alert]")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
