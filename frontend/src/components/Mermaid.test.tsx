// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Markdown } from "./Markdown";

afterEach(cleanup);

describe("MermaidDiagram", () => {
  it("shows a broken diagram's source and a note, with nothing in it live", async () => {
    (window as { __pwned?: boolean }).__pwned = undefined;
    const source = 'graph TD\nA["<img src=x onerror=window.__pwned=true>"] -->\n';
    const { container } = render(<Markdown text={"```mermaid\n" + source + "```\n"} />);
    const note = await screen.findByTestId("mermaid-error", {}, { timeout: 20_000 });
    expect(note.textContent).toContain("This diagram could not be drawn");
    // The parser's own message, not a failure of the test environment.
    expect(note.querySelector("details pre")?.textContent).toMatch(/^Parse error on line 3/);
    const block = screen.getByTestId("mermaid");
    expect(block.dataset.state).toBe("failed");
    expect(block.querySelector(".mermaid-source code")?.textContent).toBe(source.replace(/\n$/, ""));
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("svg[id^='antler-mermaid']")).toBeNull();
    expect(document.body.querySelector("[id^='dantler-mermaid']")).toBeNull();
    expect((window as { __pwned?: boolean }).__pwned).toBeUndefined();
  }, 30_000);
});
