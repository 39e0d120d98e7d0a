// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Assistant } from "../api/types";
import { ToastProvider } from "../components/Toasts";
import { assistantsStore } from "../state/assistants";
import { agent, builtIn, json } from "../test/agents";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { AgentsPage } from "./AgentsPage";
import { polyfillDialog } from "../test/dialog";

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

/** A server holding `agents` (besides the built-in), with their versions; records every call. */
function serve(agents: Assistant[], versions: Record<string, Assistant[]> = {}) {
  let mine = [...agents];
  const calls: Call[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = pathOf(input);
      const method = methodOf(input, init);
      const text = method === "GET" || method === "DELETE" ? "" : await requestOf(input, init).text();
      calls.push({ method, path, ...(text ? { body: JSON.parse(text) } : {}) });
      if (path === "/api/assistants/search") return json([...mine, builtIn]);
      const [, id, action] = /^\/api\/assistants\/([^/]+)(?:\/(\w+))?$/.exec(path) ?? [];
      if (id && method === "DELETE") {
        mine = mine.filter((a) => a.assistant_id !== id);
        return new Response(null, { status: 204 });
      }
      if (id && action === "versions") return json(versions[id] ?? []);
      if (id && action === "latest") {
        const body = JSON.parse(text) as { version: number };
        const chosen = (versions[id] ?? []).find((v) => v.version === body.version);
        if (!chosen) return json({ error: { code: "not_found", message: "no such version" } }, 404);
        mine = mine.map((a) => (a.assistant_id === id ? chosen : a));
        return json(chosen);
      }
      return json({ error: { code: "not_found", message: "not found" } }, 404);
    }),
  );
  return calls;
}

function renderPage() {
  render(
    <MemoryRouter initialEntries={["/settings/agents"]}>
      <ToastProvider>
        <AgentsPage />
      </ToastProvider>
    </MemoryRouter>,
  );
}

const rows = () => screen.getAllByTestId("agent-row");
const searches = (calls: Call[]) => calls.filter((c) => c.path === "/api/assistants/search").length;

beforeAll(polyfillDialog);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  // Each test starts with no agents loaded.
  assistantsStore.set({ loading: false, remembered: null });
});

const reviewer = agent("a-1", "Reviewer", {
  version: 3,
  context: { model_name: "smart", skills: ["pdf", "csv"], tools: [] },
});
const writer = agent("a-2", "writer", { description: null });

describe("Settings → Agents", () => {
  it("lists the built-in agent first, read-only, then the person's with model, counts and version", async () => {
    const calls = serve([writer, reviewer]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(rows().map((r) => r.dataset["agent"])).toEqual(["Antler", "Reviewer", "writer"]);
    const [first, second, third] = rows() as [HTMLElement, HTMLElement, HTMLElement];
    expect(within(first).getByText("built-in")).toBeTruthy();
    expect(within(first).queryByRole("button")).toBeNull();
    expect(within(first).getByTestId("agent-meta").textContent).toBe("Server default model · All skills · All tools");
    expect(within(second).getByTestId("agent-meta").textContent).toBe("smart · 2 skills · No tools");
    expect(within(second).getByTestId("agent-version-badge").textContent).toBe("version 3");
    expect(within(third).getByRole("button", { name: "Edit writer" })).toBeTruthy();
    // The list is asked for in one page, sorted by name.
    expect(calls[0]).toEqual({
      method: "POST",
      path: "/api/assistants/search",
      body: { limit: 1000, offset: 0, sort_by: "name", sort_order: "asc" },
    });
  });

  it("deletes an agent after confirmation, then loads the list again", async () => {
    const calls = serve([reviewer, writer]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(3));
    fireEvent.click(screen.getByRole("button", { name: "Delete Reviewer" }));
    const confirm = screen.getByRole("alertdialog");
    expect(confirm.textContent).toContain("“Reviewer” and its versions will be deleted");
    // Cancel first: nothing is deleted.
    fireEvent.click(within(confirm).getByRole("button", { name: "Cancel" }));
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Delete Reviewer" }));
    const before = searches(calls);
    await act(async () => {
      fireEvent.click(within(screen.getByRole("alertdialog")).getByRole("button", { name: "Delete" }));
    });
    expect(calls.filter((c) => c.method === "DELETE")).toEqual([{ method: "DELETE", path: "/api/assistants/a-1" }]);
    await waitFor(() => expect(rows().map((r) => r.dataset["agent"])).toEqual(["Antler", "writer"]));
    expect(searches(calls)).toBe(before + 1);
    expect(screen.getByText("Deleted “Reviewer”.")).toBeTruthy();
  });

  it("lists versions newest first and restores an earlier one", async () => {
    const v1 = agent("a-1", "Reviewer", { version: 1, context: {} });
    const v2 = agent("a-1", "Reviewer", { version: 2, context: { tools: ["ls"] } });
    const v3 = reviewer;
    const calls = serve([reviewer], { "a-1": [v3, v2, v1] });
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Versions of Reviewer" }));
    const dialog = await screen.findByRole("dialog", { name: "Versions of “Reviewer”" });
    await waitFor(() => expect(within(dialog).getAllByTestId("agent-version")).toHaveLength(3));
    const items = within(dialog).getAllByTestId("agent-version");
    expect(within(items[0] as HTMLElement).getByText("current")).toBeTruthy();
    expect(within(items[0] as HTMLElement).queryByRole("button")).toBeNull();
    expect(items[1]?.textContent).toContain("Reviewer · server default model · All skills · 1 tool");
    const before = searches(calls);
    await act(async () => {
      fireEvent.click(within(dialog).getByRole("button", { name: "Restore version 1" }));
    });
    expect(calls.find((c) => c.path === "/api/assistants/a-1/latest")).toEqual({
      method: "POST",
      path: "/api/assistants/a-1/latest",
      body: { version: 1 },
    });
    expect(calls.find((c) => c.path === "/api/assistants/a-1/versions")?.body).toEqual({ limit: 100 });
    // Version 1 is current now: in the dialog, and in the list loaded again.
    await waitFor(() =>
      expect(within(within(dialog).getAllByTestId("agent-version")[2] as HTMLElement).getByText("current")).toBeTruthy(),
    );
    await waitFor(() => expect(searches(calls)).toBe(before + 1));
    await waitFor(() => expect(screen.getAllByTestId("agent-meta")[1]?.textContent).toBe("Server default model · All skills · All tools"));
  });
});
