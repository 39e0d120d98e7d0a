// @vitest-environment jsdom
// The Export menu: it opens on click, offers Markdown and JSON as download links to the export
// endpoint of this thread, moves with the arrows and closes with Escape.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ExportMenu, exportUrl } from "./ExportMenu";

afterEach(cleanup);

describe("ExportMenu", () => {
  it("offers both formats as downloads of this thread's export", () => {
    render(<ExportMenu threadId="t 1" />);
    expect(screen.queryByRole("menu")).toBeNull();
    const button = screen.getByRole("button", { name: "Export" });
    expect(button.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(button);
    expect(button.getAttribute("aria-expanded")).toBe("true");
    const items = screen.getAllByRole("menuitem");
    expect(items.map((i) => i.textContent)).toEqual(["Markdown (.md)", "JSON (.json)"]);
    expect(items[0]!.getAttribute("href")).toBe("/api/threads/t%201/export?format=markdown");
    expect(items[1]!.getAttribute("href")).toBe("/api/threads/t%201/export?format=json");
    expect(items.every((i) => i.hasAttribute("download"))).toBe(true);
    expect(document.activeElement).toBe(items[0]);
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
    fireEvent.click(button);
    fireEvent.click(screen.getAllByRole("menuitem")[1]!);
    expect(screen.queryByRole("menu")).toBeNull();
  });

  it("builds export URLs with the id encoded", () => {
    expect(exportUrl("a/b", "json")).toBe("/api/threads/a%2Fb/export?format=json");
  });
});
