// @vitest-environment jsdom
// Web pages in the chat: a reply's Sources list, and the web_search / web_fetch cards. Titles
// and addresses come from web pages: they must stay text, and only http(s) ones are links.
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { groupMessages } from "../lib/grouping";
import type { AIMessage, Message, ToolMessage } from "../lib/messages";
import { type WebSource, mergeSources, turnSources } from "../lib/webSources";
import { AssistantBlock } from "./AssistantBlock";
import { ToolCard } from "./ToolCard";
import { SourceList } from "./WebSources";

afterEach(cleanup);

const source = (index: number, over: Partial<WebSource> = {}): WebSource => ({
  index,
  url: `https://p${index}.example/page`,
  title: `Page ${index}`,
  domain: `p${index}.example`,
  kind: "search",
  ...over,
});

const searchResult = (id: string, call: string, sources: WebSource[]): ToolMessage => ({
  type: "tool",
  id,
  tool_call_id: call,
  name: "web_search",
  status: "success",
  content: "Results …",
  artifact: {
    web: {
      query: "rust async",
      provider: "searxng",
      results: sources.map((s) => ({ index: s.index, title: s.title, url: s.url, snippet: `About ${s.title}`, published: null })),
      sources,
    },
  },
});

const fetchResult = (id: string, call: string, s: WebSource, title: string | null = s.title): ToolMessage => ({
  type: "tool",
  id,
  tool_call_id: call,
  name: "web_fetch",
  status: "success",
  content: "Title: …",
  artifact: {
    web: { url: s.url, requested_url: s.url, title, content_type: "text/html", characters: 5000, offset: 0, end: 5000, sources: [{ ...s, kind: "fetch" }] },
  },
});

describe("SourceList", () => {
  it("numbers each source with its title and domain, linking http(s) pages in a new tab", () => {
    render(<SourceList turnKey="m-1" sources={[source(1), source(2, { url: "http://p2.example/x" })]} />);
    const list = screen.getByRole("region", { name: "Sources" });
    const items = within(list).getAllByTestId("source-item");
    expect(items.map((i) => i.textContent)).toEqual(["[1] Page 1 — p1.example", "[2] Page 2 — p2.example"]);
    expect(items.map((i) => i.id)).toEqual(["source-m-1-1", "source-m-1-2"]);
    const link = within(items[0] as HTMLElement).getByRole("link", { name: "Page 1" });
    expect(link.getAttribute("href")).toBe("https://p1.example/page");
    expect(link.getAttribute("target")).toBe("_blank");
    expect(link.getAttribute("rel")).toBe("noopener noreferrer");
  });

  it("shows a javascript: or other non-http address as text, and a hostile title as text", () => {
    render(
      <SourceList
        turnKey="m-1"
        sources={[
          source(1, { url: "javascript:alert(1)", title: '<img src=x onerror="alert(1)">' }),
          source(2, { url: " JaVaScRiPt:alert(2)", title: "Two" }),
          source(3, { url: "data:text/html,<script>alert(3)</script>", title: "Three" }),
        ]}
      />,
    );
    const list = screen.getByRole("region", { name: "Sources" });
    expect(within(list).queryAllByRole("link")).toHaveLength(0);
    expect(list.innerHTML).not.toContain("javascript:");
    expect(list.querySelector("img")).toBeNull();
    expect(within(list).getAllByTestId("source-item")[0]?.textContent).toBe('[1] <img src=x onerror="alert(1)"> — p1.example');
  });

  it("shows nothing without sources", () => {
    const { container } = render(<SourceList turnKey="m-1" sources={[]} />);
    expect(container.innerHTML).toBe("");
  });
});

describe("a reply's sources", () => {
  it("merges what searches found and pages read by number, read pages keeping their number", () => {
    const merged = mergeSources([
      [source(1, { title: "p1.example" }), source(2)],
      [source(1, { title: "The real title", kind: "fetch" })],
      // A late report of the search (a replayed event) does not undo the read.
      [source(1, { title: "p1.example" })],
    ]);
    expect(merged.map((s) => [s.index, s.title, s.kind])).toEqual([
      [1, "The real title", "fetch"],
      [2, "Page 2", "search"],
    ]);
  });

  it("lists under the answer what its calls found, and links the answer's citations to them", () => {
    const asking: AIMessage = { type: "ai", id: "a1", content: "", tool_calls: [{ id: "s1", name: "web_search", args: { query: "rust async" } }] };
    const reading: AIMessage = {
      type: "ai",
      id: "a2",
      content: "",
      tool_calls: [{ id: "f1", name: "web_fetch", args: { url: source(2).url } }],
    };
    const answer: AIMessage = { type: "ai", id: "a3", content: "Tokio is popular [2]; see also [1][2] and [9]." };
    const messages: Message[] = [
      { type: "human", id: "h1", content: "research" },
      asking,
      searchResult("t1", "s1", [source(1), source(2)]),
      reading,
      fetchResult("t2", "f1", source(2)),
      answer,
    ];
    const block = groupMessages(messages).find((b) => b.kind === "assistant");
    if (block?.kind !== "assistant") throw new Error("no reply");
    expect(turnSources(block).map((s) => [s.index, s.kind])).toEqual([
      [1, "search"],
      [2, "fetch"],
    ]);
    render(<AssistantBlock block={block} actions={{ onOpenFile: () => undefined, onAnswer: () => undefined, busy: false }} />);
    const items = screen.getAllByTestId("source-item");
    expect(items).toHaveLength(2);
    const cites = screen.getAllByTestId("citation");
    expect(cites.map((c) => [c.textContent, c.getAttribute("href")])).toEqual([
      ["[2]", `#${items[1]?.id}`],
      ["[1]", `#${items[0]?.id}`],
      ["[2]", `#${items[1]?.id}`],
    ]);
    expect(screen.getByTestId("assistant-text").textContent).toContain("and [9].");
  });

  it("lists sources reported live (subagents' included) before any result arrives", () => {
    const delegating: AIMessage = {
      type: "ai",
      id: "a1",
      content: "",
      tool_calls: [{ id: "task-1", name: "task", args: { description: "Research", prompt: "…", subagent_type: "general-purpose" } }],
    };
    const block = groupMessages([{ type: "human", id: "h1", content: "go" }, delegating]).find((b) => b.kind === "assistant");
    if (block?.kind !== "assistant") throw new Error("no reply");
    expect(turnSources(block, { "task-1": [source(1), source(1, { kind: "fetch" })], other: [source(5)] }).map((s) => [s.index, s.kind])).toEqual([
      [1, "fetch"],
    ]);
  });

  it("reads the sources a subagent's task numbered from its result (after a reload)", () => {
    const delegating: AIMessage = {
      type: "ai",
      id: "a1",
      content: "",
      tool_calls: [{ id: "task-1", name: "task", args: { description: "Research", prompt: "…", subagent_type: "general-purpose" } }],
    };
    const done: ToolMessage = {
      type: "tool",
      id: "t1",
      tool_call_id: "task-1",
      name: "task",
      status: "success",
      content: "Found two pages.",
      artifact: { task: { status: "completed", sources: [source(1, { kind: "fetch" }), source(2)] } },
    };
    const block = groupMessages([{ type: "human", id: "h1", content: "go" }, delegating, done]).find((b) => b.kind === "assistant");
    if (block?.kind !== "assistant") throw new Error("no reply");
    expect(turnSources(block).map((s) => [s.index, s.kind])).toEqual([
      [1, "fetch"],
      [2, "search"],
    ]);
  });
});

describe("web tool cards", () => {
  it("shows a search's query and its numbered results with their domains", () => {
    render(
      <ToolCard
        call={{ name: "web_search", id: "s1", args: { query: "rust async" } }}
        result={searchResult("t1", "s1", [source(1), source(2, { url: "javascript:alert(1)", title: "<b>Bad</b>" })])}
      />,
    );
    const head = screen.getByRole("button");
    expect(head.querySelector(".tool-title")?.textContent).toBe("Searched the web");
    expect(head.querySelector(".tool-summary")?.textContent).toBe("rust async");
    const results = screen.getAllByTestId("web-result");
    expect(results.map((r) => r.textContent)).toEqual(["[1] Page 1 — p1.example", "[2] <b>Bad</b> — p2.example"]);
    expect(within(results[0] as HTMLElement).getByRole("link").getAttribute("href")).toBe("https://p1.example/page");
    expect(within(results[1] as HTMLElement).queryByRole("link")).toBeNull();
    fireEvent.click(head);
    expect(screen.getByText("Search results (searxng)")).toBeTruthy();
    expect(screen.getByText("About Page 1")).toBeTruthy();
    expect(document.body.innerHTML).not.toContain('href="javascript:');
  });

  it("shows the page a fetch read: its number, title and address", () => {
    render(
      <ToolCard
        call={{ name: "web_fetch", id: "f1", args: { url: "https://p2.example/page" } }}
        result={fetchResult("t2", "f1", source(2), "The Page Two")}
      />,
    );
    const head = screen.getByRole("button");
    expect(head.querySelector(".tool-title")?.textContent).toBe("Read a web page");
    expect(head.querySelector(".tool-summary")?.textContent).toBe("https://p2.example/page");
    const line = screen.getByTestId("tool-web");
    expect(line.textContent).toBe("[2] The Page Two — https://p2.example/page");
    expect(within(line).getByRole("link").getAttribute("href")).toBe("https://p2.example/page");
    fireEvent.click(head);
    expect(screen.getByText("characters 0–5000 of 5000")).toBeTruthy();
  });

  it("shows nothing extra while a web call runs or when it failed", () => {
    render(
      <ToolCard
        call={{ name: "web_fetch", id: "f1", args: { url: "http://10.0.0.1/" } }}
        result={{ type: "tool", id: "t", tool_call_id: "f1", name: "web_fetch", status: "error", content: "web_fetch refused or failed: private address" }}
      />,
    );
    expect(screen.queryByTestId("tool-web")).toBeNull();
    expect(screen.getByRole("button").textContent).toContain("error");
  });
});
