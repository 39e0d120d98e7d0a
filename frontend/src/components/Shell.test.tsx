// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AppInfoProvider } from "../state/appInfo";
import { pathOf } from "../test/fetch";
import { Shell } from "./Shell";

function serve(models: unknown, sandbox = "docker") {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo) => {
      const body = pathOf(input) === "/health" ? { status: "ok", version: "0.1.0", sandbox, warnings: [] } : models;
      return new Response(JSON.stringify(body), { status: 200 });
    }),
  );
}

function renderShell() {
  render(
    <MemoryRouter>
      <AppInfoProvider>
        <Routes>
          <Route element={<Shell />}>
            <Route path="/" element={<p>page</p>} />
          </Route>
        </Routes>
      </AppInfoProvider>
    </MemoryRouter>,
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("Shell", () => {
  it("shows a banner when no model is configured", async () => {
    serve({ models: [], default: null });
    renderShell();
    expect((await screen.findByTestId("no-model-banner")).textContent).toContain("No model configured");
    expect(screen.queryByTestId("model-label")).toBeNull();
  });

  it("labels a demo model as a scripted demo, and says when there is no Docker sandbox", async () => {
    serve({ models: [{ name: "demo", model: "mock", supports_reasoning: false, demo: true }], default: "demo" }, "local");
    renderShell();
    const label = await screen.findByTestId("model-label");
    expect(label.textContent).toContain("demo");
    expect(label.textContent).toContain("scripted demo");
    expect(screen.queryByTestId("no-model-banner")).toBeNull();
    expect(screen.getByText(/No Docker sandbox/)).toBeTruthy();
  });

  it("does not call a real model a demo", async () => {
    serve({ models: [{ name: "gpt", model: "gpt-4o-mini", supports_reasoning: false, demo: false }], default: "gpt" });
    renderShell();
    const label = await screen.findByTestId("model-label");
    expect(label.textContent).toBe("gpt");
  });

  it("links Scheduled after Chat, and the Tools page after Agents, then Memory", async () => {
    serve({ models: [], default: null });
    renderShell();
    await screen.findByTestId("no-model-banner");
    const links = screen.getAllByRole("link").filter((a) => a.closest("nav"));
    expect(links.map((a) => a.textContent)).toEqual(["Chat", "Scheduled", "Skills", "Agents", "Tools", "Memory"]);
    expect(links[1]?.getAttribute("href")).toBe("/scheduled");
    expect(links[4]?.getAttribute("href")).toBe("/settings/tools");
    expect(links[5]?.getAttribute("href")).toBe("/settings/memory");
  });
});
