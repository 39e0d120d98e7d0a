// @vitest-environment jsdom
// The console's table: each run's time, owner, agent, status, duration, models, tokens, cost,
// tools (failures highlighted) and error; a row opens the run.
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router-dom";
import { afterEach, describe, expect, it } from "vitest";
import { consoleRun } from "./fixtures";
import { RunTable } from "./RunTable";
import type { ConsoleRun } from "./types";

function Where() {
  const location = useLocation();
  return <p data-testid="where">{location.pathname + JSON.stringify(location.state)}</p>;
}

function renderTable(runs: ConsoleRun[], agentName?: (id: string) => string | undefined) {
  render(
    <MemoryRouter initialEntries={["/admin/runs?status=error"]}>
      <Routes>
        <Route path="/admin/runs" element={<RunTable runs={runs} agentName={agentName} />} />
        <Route path="/admin/runs/:runId" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );
}

const cells = (row: HTMLElement) => within(row).getAllByRole("cell").map((c) => c.textContent);

afterEach(cleanup);

describe("the runs table", () => {
  it("shows what each run used: owner, agent, status, duration, models, tokens, cost and tools", () => {
    renderTable([consoleRun("r1")], (id) => (id === consoleRun("x").assistant_id ? "Antler" : undefined));
    expect(within(screen.getByRole("table", { name: "Runs" })).getAllByRole("columnheader").map((h) => h.textContent)).toEqual([
      "Time",
      "User",
      "Agent",
      "Status",
      "Duration",
      "Models",
      "Tokens",
      "Cost",
      "Tools",
      "Feedback",
      "Error",
    ]);
    const [row] = screen.getAllByTestId("run-row");
    expect(cells(row as HTMLElement).slice(1)).toEqual([
      "ada@example.com",
      "Antler",
      "success",
      "12 s",
      "gpt-4o-mini",
      "1.2k in / 350 out",
      "$0.0042",
      "bash×2",
      "", // no feedback
      "",
    ]);
    expect(within(row as HTMLElement).getByTestId("run-status").className).toBe("badge badge-ok");
    expect(within(row as HTMLElement).getByRole("link").getAttribute("href")).toBe("/admin/runs/r1");
  });

  it("shows the owner's id without an account, a working run's state, and an unknown agent's id", () => {
    renderTable([
      consoleRun("r2", {
        user_id: "local",
        user_email: null,
        assistant_id: "custom-agent",
        status: "running",
        duration_ms: null,
        models: [],
        tools: [],
        usage: { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, model_calls: 0, cost_usd: 0 },
      }),
    ]);
    const row = screen.getByTestId("run-row");
    expect(cells(row).slice(1, 9)).toEqual(["local", "custom-agent", "running", "running…", "—", "0 in / 0 out", "—", "—"]);
    expect(within(row).getByTestId("run-status").className).toBe("badge badge-public");
  });

  it("highlights tools whose calls failed and cuts a long error, keeping it whole in the tooltip", () => {
    const error = `The model provider answered 500: ${"upstream failure ".repeat(10)}`;
    renderTable([
      consoleRun("r3", {
        status: "error",
        error,
        tools: [
          { name: "web_fetch", calls: 3, errors: 2 },
          { name: "bash", calls: 1, errors: 0 },
        ],
        tool_errors: 2,
      }),
    ]);
    const row = screen.getByTestId("run-row");
    expect(within(row).getByTestId("run-status").className).toBe("badge badge-error");
    const [failing, fine] = within(row).getAllByTestId("tool-chip");
    expect(failing?.className).toContain("console-chip-error");
    expect(failing?.getAttribute("aria-label")).toBe("web_fetch: 3 calls, 2 failed");
    expect(fine?.className).not.toContain("console-chip-error");
    const shown = within(row).getByTestId("run-error");
    expect(shown.textContent?.length).toBe(80);
    expect(shown.textContent?.endsWith("…")).toBe(true);
    expect(shown.getAttribute("title")).toBe(error);
  });

  it("opens a run when its row is clicked, remembering the list's filters", () => {
    renderTable([consoleRun("r1"), consoleRun("r2")]);
    fireEvent.click(within(screen.getAllByTestId("run-row")[1] as HTMLElement).getByText("gpt-4o-mini"));
    expect(screen.getByTestId("where").textContent).toBe('/admin/runs/r2{"search":"?status=error"}');
  });
});
