// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import type { Fact, MemoryExport } from "../api/types";
import { ToastProvider } from "../components/Toasts";
import { json } from "../test/agents";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { MemoryPage } from "./MemoryPage";
import { polyfillDialog } from "../test/dialog";

interface Call {
  method: string;
  path: string;
  query: Record<string, string>;
  body?: unknown;
}

const fact = (id: string, content: string, extra: Partial<Fact> = {}): Fact => ({
  fact_id: id,
  content,
  category: "context",
  confidence: 0.9,
  confirmations: 0,
  assistant_id: null,
  source_thread: null,
  supersedes: null,
  created_at: "2026-01-05T10:00:00Z",
  updated_at: "2026-01-05T10:00:00Z",
  last_used_at: null,
  ...extra,
});

const tea = fact("f-1", "I prefer tea over coffee", {
  category: "preference",
  confidence: 0.87,
  confirmations: 3,
  source_thread: "t-9",
  last_used_at: "2026-01-06T09:00:00Z",
});
const rust = fact("f-2", "Works on a Rust backend called Antler", { category: "knowledge", confidence: 1 });

/** What the fake server refuses, as its 422 message. */
interface Refusals {
  add?: string;
  import?: string;
}

/** A server holding `facts` and the settings; records every call. */
function serve(facts: Fact[], refuse: Refusals = {}, settings = { enabled: true, summary: "I work on Antler." }) {
  let all = [...facts];
  let current = { ...settings };
  let next = 1;
  const calls: Call[] = [];
  const refused = (message: string) => json({ error: { code: "invalid_body", message } }, 422);
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = requestOf(input, init);
      const path = pathOf(input);
      const method = methodOf(input, init);
      const query = Object.fromEntries(new URL(request.url).searchParams);
      const text = method === "GET" || method === "DELETE" ? "" : await request.text();
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      calls.push({ method, path, query, ...(body ? { body } : {}) });
      const id = /^\/api\/memory\/facts\/([^/]+)$/.exec(path)?.[1];
      if (path === "/api/memory" && method === "GET") {
        const q = (query["q"] ?? "").toLowerCase();
        const shown = all.filter(
          (f) => f.content.toLowerCase().includes(q) && (!query["category"] || f.category === query["category"]),
        );
        return json({ facts: shown, total: all.length, ...current });
      }
      if (path === "/api/memory" && method === "DELETE") {
        if (query["confirm"] !== "true") return refused("add ?confirm=true");
        const count = all.length;
        all = [];
        return json({ count });
      }
      if (path === "/api/memory/facts" && method === "POST") {
        if (refuse.add) return refused(refuse.add);
        const added = fact(`new-${next++}`, String(body?.["content"]), { category: String(body?.["category"]) as Fact["category"] });
        all = [added, ...all];
        return json(added);
      }
      if (id && method === "PATCH") {
        const old = all.find((f) => f.fact_id === id);
        if (!old) return json({ error: { code: "not_found", message: "no such fact" } }, 404);
        const corrected = { ...old, ...body, fact_id: `${id}-v2`, supersedes: id } as Fact;
        all = all.map((f) => (f.fact_id === id ? corrected : f));
        return json(corrected);
      }
      if (id && method === "DELETE") {
        all = all.filter((f) => f.fact_id !== id);
        return new Response(null, { status: 204 });
      }
      if (path === "/api/memory/settings" && method === "PUT") {
        current = body as typeof current;
        return json(current);
      }
      if (path === "/api/memory/export") {
        return json({ facts: all.map((f) => ({ content: f.content, category: f.category })), summary: current.summary });
      }
      if (path === "/api/memory/import") {
        if (refuse.import) return refused(refuse.import);
        const data = body as unknown as MemoryExport;
        all = [...data.facts.map((f) => fact(`imp-${next++}`, f.content, { category: f.category ?? "context" })), ...all];
        // As the server answers: one of the file's facts was remembered already.
        const dup = data.facts.length > 1 ? 1 : 0;
        return json({ count: data.facts.length - dup, duplicates: dup, not_kept: 0, evicted: 0, total: all.length });
      }
      return json({ error: { code: "not_found", message: path } }, 404);
    }),
  );
  return calls;
}

function renderPage() {
  render(
    <MemoryRouter initialEntries={["/settings/memory"]}>
      <ToastProvider>
        <MemoryPage />
      </ToastProvider>
    </MemoryRouter>,
  );
}

const rows = () => screen.queryAllByTestId("fact-row");
const row = (id: string) => rows().find((r) => r.dataset["fact"] === id) as HTMLElement;
const lists = (calls: Call[]) => calls.filter((c) => c.method === "GET" && c.path === "/api/memory");
const dialog = () => screen.getByRole("alertdialog");

beforeAll(polyfillDialog);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("Settings → Memory", () => {
  it("lists the facts with their category, confidence, confirmations, dates and source conversation", async () => {
    const calls = serve([tea, rust]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(lists(calls)[0]?.query).toEqual({ limit: "100" });
    const first = row("f-1");
    expect(within(first).getByText("I prefer tea over coffee")).toBeTruthy();
    const meta = within(first).getByTestId("fact-meta");
    expect(within(meta).getByText("Preference").className).toContain("badge");
    expect(meta.textContent).toContain("87% sure");
    expect(meta.textContent).toContain("confirmed 3×");
    expect(meta.textContent).toContain("learned ");
    expect(meta.textContent).toContain("last used ");
    expect(within(meta).getByRole("link", { name: "source conversation" }).getAttribute("href")).toBe("/threads/t-9");
    // Never confirmed, never used, typed in by hand: none of those details.
    const second = within(row("f-2")).getByTestId("fact-meta");
    expect(second.textContent).toContain("100% sure");
    expect(second.textContent).not.toContain("confirmed");
    expect(second.textContent).not.toContain("last used");
    expect(within(second).queryByRole("link")).toBeNull();
    expect(screen.getByRole("heading", { name: "Facts (2)" })).toBeTruthy();
  });

  it("explains where facts come from when there are none", async () => {
    serve([]);
    renderPage();
    expect(await screen.findByText("Nothing remembered yet")).toBeTruthy();
    const body = screen.getByText(/a little while after they end/);
    expect(body.textContent).toContain("after they end");
    expect(body.textContent).toContain("add facts here");
  });

  it("searches with q once typing pauses, and filters by category", async () => {
    const calls = serve([tea, rust]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(2));
    fireEvent.change(screen.getByRole("searchbox", { name: "Search facts" }), { target: { value: "t" } });
    fireEvent.change(screen.getByRole("searchbox", { name: "Search facts" }), { target: { value: "tea " } });
    await waitFor(() => expect(rows()).toHaveLength(1));
    // One request for what was typed last, trimmed; none per key.
    expect(lists(calls).map((c) => c.query["q"])).toEqual([undefined, "tea"]);
    expect(row("f-1")).toBeTruthy();

    fireEvent.change(screen.getByRole("searchbox", { name: "Search facts" }), { target: { value: "" } });
    fireEvent.change(screen.getByRole("combobox", { name: "Filter by category" }), { target: { value: "knowledge" } });
    await waitFor(() => expect(lists(calls).at(-1)?.query).toEqual({ category: "knowledge", limit: "100" }));
    await waitFor(() => expect(rows().map((r) => r.dataset["fact"])).toEqual(["f-2"]));

    fireEvent.change(screen.getByRole("searchbox", { name: "Search facts" }), { target: { value: "nothing like it" } });
    expect(await screen.findByText("No facts match")).toBeTruthy();
  });

  it("corrects a fact inline: PATCH with what changed, then shows the new version", async () => {
    const calls = serve([tea, rust]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(2));
    fireEvent.click(within(row("f-1")).getByRole("button", { name: "Edit “I prefer tea over coffee”" }));
    const editor = row("f-1");
    const save = within(editor).getByRole("button", { name: "Save" });
    expect(save).toHaveProperty("disabled", true);
    fireEvent.change(within(editor).getByRole("textbox", { name: "Fact" }), { target: { value: "I prefer green tea " } });
    fireEvent.change(within(editor).getByRole("combobox", { name: "Category" }), { target: { value: "behavior" } });
    await act(async () => {
      fireEvent.click(save);
    });
    expect(calls.filter((c) => c.method === "PATCH")).toEqual([
      { method: "PATCH", path: "/api/memory/facts/f-1", query: {}, body: { content: "I prefer green tea", category: "behavior" } },
    ]);
    await waitFor(() => expect(row("f-1-v2")).toBeTruthy());
    const updated = row("f-1-v2");
    expect(within(updated).getByText("I prefer green tea")).toBeTruthy();
    expect(within(updated).getByText("Behavior")).toBeTruthy();
    expect(within(updated).getByRole("status").textContent).toBe("saved as a new version");
    // In the old one's place, and nothing read again for it.
    expect(rows().map((r) => r.dataset["fact"])).toEqual(["f-1-v2", "f-2"]);
    expect(lists(calls)).toHaveLength(1);
  });

  it("deletes a fact only once the dialog is confirmed", async () => {
    const calls = serve([tea, rust]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(2));
    fireEvent.click(within(row("f-2")).getByRole("button", { name: /^Delete “Works on a Rust backend/ }));
    expect(dialog().textContent).toContain("Works on a Rust backend called Antler");
    fireEvent.click(within(dialog()).getByRole("button", { name: "Cancel" }));
    expect(calls.filter((c) => c.method === "DELETE")).toHaveLength(0);
    expect(rows()).toHaveLength(2);

    fireEvent.click(within(row("f-2")).getByRole("button", { name: /^Delete “Works on a Rust backend/ }));
    await act(async () => {
      fireEvent.click(within(dialog()).getByRole("button", { name: "Delete" }));
    });
    expect(calls.filter((c) => c.method === "DELETE").map((c) => c.path)).toEqual(["/api/memory/facts/f-2"]);
    await waitFor(() => expect(rows().map((r) => r.dataset["fact"])).toEqual(["f-1"]));
    expect(await screen.findByText("Forgot “Works on a Rust backend called Antler”.")).toBeTruthy();
  });

  it("forgets everything only after “forget” is typed", async () => {
    const calls = serve([tea, rust]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(2));
    fireEvent.click(screen.getByRole("button", { name: "Forget everything" }));
    const forget = within(dialog()).getByRole("button", { name: "Forget everything" });
    const word = within(dialog()).getByRole("textbox", { name: "Type forget to confirm" });
    expect(forget).toHaveProperty("disabled", true);
    fireEvent.change(word, { target: { value: "forge" } });
    expect(forget).toHaveProperty("disabled", true);
    // Enter in the box does nothing either until the word is right.
    fireEvent.submit(word.closest("form") as HTMLFormElement);
    expect(calls.filter((c) => c.method === "DELETE")).toHaveLength(0);
    fireEvent.change(word, { target: { value: "Forget" } });
    expect(forget).toHaveProperty("disabled", false);
    await act(async () => {
      fireEvent.click(forget);
    });
    expect(calls.filter((c) => c.method === "DELETE")).toEqual([
      { method: "DELETE", path: "/api/memory", query: { confirm: "true" } },
    ]);
    expect(await screen.findByText("Forgot 2 facts.")).toBeTruthy();
    expect(await screen.findByText("Nothing remembered yet")).toBeTruthy();
    expect(screen.queryByRole("alertdialog")).toBeNull();
  });

  it("switches memory off with the saved summary, and saves an edited summary", async () => {
    const calls = serve([tea]);
    renderPage();
    const toggle = await screen.findByRole("switch", { name: "Remember facts about me" });
    expect(toggle.getAttribute("aria-checked")).toBe("true");
    expect(screen.getByTestId("memory-switch-text").textContent).toMatch(/^On: the agent learns facts/);
    // An unsaved edit of the summary does not go with the switch.
    const summary = screen.getByRole("textbox", { name: "Summary" });
    expect((summary as HTMLTextAreaElement).value).toBe("I work on Antler.");
    fireEvent.change(summary, { target: { value: "I work on Antler, in Rust." } });
    await act(async () => {
      fireEvent.click(toggle);
    });
    const puts = () => calls.filter((c) => c.method === "PUT");
    expect(puts()).toEqual([
      { method: "PUT", path: "/api/memory/settings", query: {}, body: { enabled: false, summary: "I work on Antler." } },
    ]);
    await waitFor(() => expect(toggle.getAttribute("aria-checked")).toBe("false"));
    expect(screen.getByTestId("memory-switch-text").textContent).toMatch(/^Off: the agent learns nothing new/);

    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Save summary" }));
    });
    expect(puts()[1]?.body).toEqual({ enabled: false, summary: "I work on Antler, in Rust." });
    expect(await screen.findByText("Saved.")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Save summary" })).toHaveProperty("disabled", true);
  });

  it("adds a fact, and shows the server's refusal under the form", async () => {
    const calls = serve([rust], { add: "this looks like a secret (an API key); it was not stored" });
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(1));
    const box = screen.getByRole("textbox", { name: "What should the agent remember?" });
    fireEvent.change(box, { target: { value: "my key is sk-123" } });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Add" }));
    });
    expect(calls.filter((c) => c.method === "POST")).toEqual([
      { method: "POST", path: "/api/memory/facts", query: {}, body: { content: "my key is sk-123", category: "context" } },
    ]);
    expect((await screen.findByTestId("memory-add-error")).textContent).toBe(
      "this looks like a secret (an API key); it was not stored",
    );
    // Kept, to fix and send again.
    expect((box as HTMLTextAreaElement).value).toBe("my key is sk-123");
    expect(rows()).toHaveLength(1);
  });

  it("adds a fact at the top of the list", async () => {
    const calls = serve([rust]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(1));
    fireEvent.change(screen.getByRole("textbox", { name: "What should the agent remember?" }), {
      target: { value: "Lives in Lisbon" },
    });
    const add = within(screen.getByRole("form", { name: "Add a fact" }));
    fireEvent.change(add.getByRole("combobox", { name: "Category" }), { target: { value: "goal" } });
    await act(async () => {
      fireEvent.click(add.getByRole("button", { name: "Add" }));
    });
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({ content: "Lives in Lisbon", category: "goal" });
    await waitFor(() => expect(rows().map((r) => r.dataset["fact"])).toEqual(["new-1", "f-2"]));
    expect(screen.queryByTestId("memory-add-error")).toBeNull();
    expect(screen.getByRole("heading", { name: "Facts (2)" })).toBeTruthy();
  });

  it("exports the memory as antler-memory.json", async () => {
    const calls = serve([tea, rust]);
    const saved: Blob[] = [];
    const downloads: string[] = [];
    // jsdom has no object URLs: added for this test, removed after it.
    const restore = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
    URL.createObjectURL = vi.fn((blob: Blob) => {
      saved.push(blob);
      return "blob:memory";
    });
    URL.revokeObjectURL = vi.fn();
    onTestFinished(() => {
      URL.createObjectURL = restore.create;
      URL.revokeObjectURL = restore.revoke;
    });
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      downloads.push(this.download);
    });
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(2));
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Export" }));
    });
    expect(calls.filter((c) => c.path === "/api/memory/export").map((c) => c.method)).toEqual(["GET"]);
    await waitFor(() => expect(downloads).toEqual(["antler-memory.json"]));
    expect(JSON.parse(await (saved[0] as Blob).text())).toEqual({
      facts: [
        { content: "I prefer tea over coffee", category: "preference" },
        { content: "Works on a Rust backend called Antler", category: "knowledge" },
      ],
      summary: "I work on Antler.",
    });
    expect(screen.getByTestId("memory-transfer").textContent).toBe("Exported 2 facts to antler-memory.json.");
  });

  it("imports a file: posts its content, says how many facts came, and reads the list again", async () => {
    const calls = serve([rust]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(1));
    const data = { facts: [{ content: "Likes jazz", category: "preference" }], summary: null };
    const file = new File([JSON.stringify(data)], "antler-memory.json", { type: "application/json" });
    await act(async () => {
      fireEvent.change(screen.getByTestId("memory-import-file"), { target: { files: [file] } });
    });
    await waitFor(() => expect(calls.some((c) => c.path === "/api/memory/import")).toBe(true));
    expect(calls.find((c) => c.path === "/api/memory/import")).toEqual({
      method: "POST",
      path: "/api/memory/import",
      query: {},
      body: data,
    });
    expect((await screen.findByTestId("memory-transfer")).textContent).toBe("Imported 1 fact.");
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(lists(calls)).toHaveLength(2);
  });

  it("shows why an import failed: the server's message, or a file that is not an export", async () => {
    const calls = serve([rust], { import: "facts[0]: unknown category \"hobby\"" });
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(1));
    const input = screen.getByTestId("memory-import-file");
    const bad = new File([JSON.stringify({ facts: [{ content: "x", category: "hobby" }] })], "m.json");
    await act(async () => {
      fireEvent.change(input, { target: { files: [bad] } });
    });
    const alert = await screen.findByTestId("memory-transfer");
    await waitFor(() => expect(alert.textContent).toBe('Import failed: facts[0]: unknown category "hobby"'));
    expect(alert.getAttribute("role")).toBe("alert");

    await act(async () => {
      fireEvent.change(input, { target: { files: [new File(["not json"], "notes.txt")] } });
    });
    await waitFor(() => expect(screen.getByTestId("memory-transfer").textContent).toBe("Import failed: This file is not JSON."));
    // Only the first file reached the server.
    expect(calls.filter((c) => c.path === "/api/memory/import")).toHaveLength(1);
  });
});
