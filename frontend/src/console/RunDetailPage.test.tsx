// @vitest-environment jsdom
// A run's detail: its summary with a link to its conversation, and its timeline of model
// calls, tool calls and subagents (their own steps nested), each with a bar placed by time;
// failed steps red with their message.
import { cleanup, render, screen, within } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { afterEach, describe, expect, it, vi } from "vitest";
import { consoleRun, detailWithSubagent, serveConsole } from "./fixtures";
import { RunDetailPage } from "./RunDetailPage";

function renderDetail(runId: string, state?: unknown) {
  render(
    <MemoryRouter initialEntries={[{ pathname: `/admin/runs/${runId}`, state }]}>
      <Routes>
        <Route path="/admin/runs/:runId" element={<RunDetailPage />} />
      </Routes>
    </MemoryRouter>,
  );
}

const steps = (container: HTMLElement | Document = document) =>
  within(container as HTMLElement).getAllByTestId("step-row");

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("a run's detail", () => {
  it("sums the run up and links to its conversation and back to the filtered list", async () => {
    serveConsole([], [detailWithSubagent()]);
    renderDetail("run-1", { search: "?status=success" });
    const status = await screen.findByTestId("detail-status");
    expect(status.textContent).toBe("success");
    expect(screen.getByTestId("conversation-link").getAttribute("href")).toBe("/threads/thread-run-1");
    expect(screen.getByRole("link", { name: /All runs/ }).getAttribute("href")).toBe("/admin/runs?status=success");
    expect(screen.getByTestId("detail-tokens").textContent).toBe("1.2k in / 350 out · 2 calls");
    const summary = screen.getByRole("region", { name: "Run summary" });
    expect(within(summary).getByRole("list", { name: "Tools used" }).textContent).toContain("read_file");
  });

  it("shows each step in order with its bar on the run's time axis, subagents' steps nested", async () => {
    serveConsole([], [detailWithSubagent()]);
    renderDetail("run-1");
    const top = await screen.findByRole("list", { name: "Steps" });
    const own = [...top.children] as HTMLElement[];
    expect(own.map((li) => [li.dataset["kind"], within(li).getAllByTestId("step-name")[0]?.textContent])).toEqual([
      ["model_call", "gpt-4o-mini"],
      ["tool_call", "read_file"],
      ["subagent", "general-purpose"],
      ["model_call", "gpt-4o-mini"],
    ]);
    const bars = own.map((li) => (within(li).getAllByTestId("step-bar")[0] as HTMLElement).style);
    expect(bars.map((b) => [b.left, b.width])).toEqual([
      ["0%", "20%"],
      ["20%", "5%"],
      ["40%", "40%"],
      ["90%", "10%"],
    ]);
    // The model call's tokens, finish reason and time to first token.
    expect(within(own[0] as HTMLElement).getByTestId("step-facts").textContent).toBe(
      "900 in / 40 out · finish: tool_calls · first token 450 ms · 2.0 s",
    );
    // The subagent's own steps, on the same axis, with a link to its run.
    const sub = own[2] as HTMLElement;
    expect(within(sub).getByRole("link", { name: "run" }).getAttribute("href")).toBe("/admin/runs/child-1");
    const nested = within(sub).getByRole("list", { name: "Steps of subagent general-purpose" });
    expect(steps(nested).map((li) => [li.dataset["depth"], li.dataset["kind"]])).toEqual([
      ["1", "model_call"],
      ["1", "tool_call"],
    ]);
    expect((within(nested).getAllByTestId("step-bar")[1] as HTMLElement).style.left).toBe("50%");
  });

  it("shows a failed step in red with its message", async () => {
    serveConsole([], [detailWithSubagent()]);
    renderDetail("run-1");
    const failed = (await screen.findAllByTestId("step-row")).find((li) => li.dataset["status"] === "error") as HTMLElement;
    expect(failed.className).toContain("timeline-row-error");
    expect(within(failed).getByTestId("step-error").textContent).toBe("file not found: /mnt/x");
    expect(within(failed).getByTestId("step-bar").className).toContain("timeline-bar-error");
    expect(within(failed).getByText("error").className).toBe("badge badge-error");
  });

  it("says when a run has no timeline, and shows a failed run's error", async () => {
    serveConsole([], [{ run: consoleRun("old", { status: "error", error: "model unreachable" }), timeline: [], subagents: [] }]);
    renderDetail("old");
    expect((await screen.findByTestId("timeline-empty")).textContent).toContain("No steps recorded");
    expect(screen.getByTestId("detail-error").textContent).toBe("model unreachable");
  });

  it("shows the server's message for an unknown run", async () => {
    serveConsole([], []);
    renderDetail("nope");
    expect((await screen.findByText("run not found")).closest("[role=alert]")).toBeTruthy();
  });
});
