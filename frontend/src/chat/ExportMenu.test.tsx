// @vitest-environment jsdom
// The Export menu: it opens on click, offers Markdown and JSON, each fetched from the export
// endpoint of this thread and saved under the server's file name (a failure is a message, not
// a saved error page), moves with the arrows and closes with Escape.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ToastProvider } from "../components/Toasts";
import { dispositionName } from "../lib/download";
import { ExportMenu, exportUrl } from "./ExportMenu";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** Saved files: the `download` name of each link clicked. */
function captureSaves(): string[] {
  const saved: string[] = [];
  URL.createObjectURL = vi.fn(() => "blob:x");
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
    saved.push(this.download);
  });
  return saved;
}

describe("ExportMenu", () => {
  it("offers both formats and saves this thread's export under the server's name", async () => {
    const saved = captureSaves();
    const fetched: string[] = [];
    vi.stubGlobal("fetch", vi.fn(async (url: string) => {
      fetched.push(url);
      return new Response("# Notes\n", {
        headers: { "content-disposition": `attachment; filename="notes.md"; filename*=UTF-8''%E7%AC%94%E8%AE%B0.md` },
      });
    }));
    render(<ExportMenu threadId="t 1" />);
    expect(screen.queryByRole("menu")).toBeNull();
    const button = screen.getByRole("button", { name: "Export" });
    expect(button.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(button);
    expect(button.getAttribute("aria-expanded")).toBe("true");
    const items = screen.getAllByRole("menuitem");
    expect(items.map((i) => i.textContent)).toEqual(["Markdown (.md)", "JSON (.json)"]);
    expect(document.activeElement).toBe(items[0]);
    fireEvent.click(items[0]!);
    await waitFor(() => expect(saved).toEqual(["笔记.md"]));
    expect(fetched).toEqual(["/api/threads/t%201/export?format=markdown"]);
  });

  it("shows why an export failed instead of saving the error", async () => {
    const saved = captureSaves();
    vi.stubGlobal("fetch", vi.fn(async () =>
      new Response(JSON.stringify({ error: { code: "not_found", message: "no thread t" } }), {
        status: 404,
        headers: { "content-type": "application/json" },
      }),
    ));
    render(
      <ToastProvider>
        <ExportMenu threadId="t" />
      </ToastProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Export" }));
    fireEvent.click(screen.getAllByRole("menuitem")[1]!);
    const toast = await screen.findByTestId("toast");
    expect(toast.textContent).toMatch(/could not be exported: no thread t/);
    expect(saved).toEqual([]);
  });

  it("reads file names from Content-Disposition", () => {
    expect(dispositionName('attachment; filename="a \\"b\\".md"')).toBe('a "b".md');
    expect(dispositionName("attachment; filename=plain.json")).toBe("plain.json");
    expect(dispositionName(null)).toBeUndefined();
  });

  it("moves with the arrows and closes with Escape or a pick", () => {
    render(<ExportMenu threadId="t" />);
    const button = screen.getByRole("button", { name: "Export" });
    fireEvent.click(button);
    const items = screen.getAllByRole("menuitem");
    fireEvent.keyDown(items[0]!, { key: "ArrowDown" });
    expect(document.activeElement).toBe(items[1]);
    fireEvent.keyDown(items[1]!, { key: "ArrowDown" });
    expect(document.activeElement).toBe(items[0]);
    fireEvent.keyDown(items[0]!, { key: "Escape" });
    expect(screen.queryByRole("menu")).toBeNull();
    expect(document.activeElement).toBe(button);
    vi.stubGlobal("fetch", vi.fn(async () => new Response("{}")));
    captureSaves();
    fireEvent.click(button);
    fireEvent.click(screen.getAllByRole("menuitem")[1]!);
    expect(screen.queryByRole("menu")).toBeNull();
  });

  it("builds export URLs with the id encoded", () => {
    expect(exportUrl("a/b", "json")).toBe("/api/threads/a%2Fb/export?format=json");
  });
});
