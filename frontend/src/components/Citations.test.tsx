// @vitest-environment jsdom
// Citations `[n]` in an answer's Markdown: a known source's number links to its Sources item;
// anything else (unknown numbers, code, Markdown links) renders as before.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HIGHLIGHT } from "../lib/citations";
import { citationTargets } from "../lib/webSources";
import { Markdown } from "./Markdown";

const targets = citationTargets("turn-1", [
  { index: 1, url: "https://a.example/", title: "Page A", domain: "a.example", kind: "fetch" },
  { index: 3, url: "https://c.example/", title: "Page C", domain: "c.example", kind: "search" },
]);
const html = (text: string) => renderToStaticMarkup(<Markdown text={text} citations={targets} />);
const citations = (out: string) => Array.from(out.matchAll(/<a [^>]*data-testid="citation"[^>]*>([^<]*)<\/a>/g), (m) => m[0]);

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe("citations", () => {
  it("links a known [n] to its Sources item, and consecutive ones each to their own", () => {
    const out = html("A does X [1]; C does Z [1][3].");
    const links = citations(out);
    expect(links).toHaveLength(3);
    expect(links[0]).toContain('href="#source-turn-1-1"');
    expect(links[0]).toContain('class="citation"');
    expect(links[0]).toContain('title="Page A"');
    expect(links[0]).toContain(">[1]</a>");
    expect(links[2]).toContain('href="#source-turn-1-3"');
    expect(out).toContain("A does X ");
    expect(out).toContain("; C does Z ");
    // In-page anchors: no new tab.
    expect(out).not.toContain("target=");
  });

  it("leaves an unknown [n] as plain text", () => {
    const out = html("Known [1], unknown [2] and [42], not a number [a].");
    expect(citations(out)).toHaveLength(1);
    expect(out).toContain("unknown [2] and [42], not a number [a].");
  });

  it("never touches code spans or code blocks", () => {
    const out = html("Inline `x[1]` and\n\n```python\ny = z[1][3]\n```");
    expect(citations(out)).toHaveLength(0);
    expect(out).toContain("x[1]");
    expect(out).toContain("z[");
  });

  it("keeps Markdown links, reference links and footnotes as they are", () => {
    const out = html("See [the docs](https://docs.example/) and [1](https://one.example/), then [the ref][ref] and [3](https://three.example/).\n\n[ref]: https://ref.example/");
    expect(citations(out)).toHaveLength(0);
    expect(out).toContain('href="https://docs.example/"');
    expect(out).toContain('href="https://one.example/"');
    expect(out).toContain('href="https://ref.example/"');
    expect(out).toContain('href="https://three.example/"');
  });

  it("finds citations in lists, tables and emphasis, and none without sources", () => {
    expect(citations(html("- item [1]\n\n| a |\n|---|\n| *cell [3]* |"))).toHaveLength(2);
    expect(renderToStaticMarkup(<Markdown text="plain [1]" />)).not.toContain("citation");
  });

  it("scrolls to the cited item and highlights it for a moment", () => {
    vi.useFakeTimers();
    render(
      <>
        <Markdown text="Claim [3]." citations={targets} />
        <ol>
          <li id="source-turn-1-3" tabIndex={-1} data-testid="item">
            Page C
          </li>
        </ol>
      </>,
    );
    const item = screen.getByTestId("item");
    const scrolled = vi.fn();
    item.scrollIntoView = scrolled;
    const link = screen.getByTestId("citation");
    const event = fireEvent.click(link);
    expect(event).toBe(false); // the page did not navigate: it scrolled
    expect(scrolled).toHaveBeenCalled();
    expect(item.classList.contains(HIGHLIGHT)).toBe(true);
    expect(document.activeElement).toBe(item);
    vi.advanceTimersByTime(3000);
    expect(item.classList.contains(HIGHLIGHT)).toBe(false);
  });
});
