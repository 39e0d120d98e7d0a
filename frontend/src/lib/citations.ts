// Citations in an answer's Markdown: a rehype plugin (run after sanitizing) that makes each
// `[n]` whose source the reply knows a link to that source's item in its Sources list; an
// unknown `[n]`, and anything inside code or an existing link, stays as it was.
import type { CitationTarget } from "./webSources";

/** A hast node, as far as the plugin needs one. */
interface Node {
  type: string;
  value?: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: Node[];
}

export interface CitationOptions {
  targets: ReadonlyMap<number, CitationTarget>;
}

/** The class of a citation link (the Markdown's link renderer handles its clicks). */
export const CITATION_CLASS = "citation";

/** Elements whose text is never a citation: code, and links (`[text](url)` already is one). */
const SKIP = new Set(["a", "code", "pre", "kbd", "samp", "script", "style"]);

const CITATION = /\[(\d{1,4})\]/g;

/** The text `value` cut into text and citation links (the same one node when it has none). */
function split(value: string, targets: ReadonlyMap<number, CitationTarget>): Node[] | undefined {
  let out: Node[] | undefined;
  let from = 0;
  for (const m of value.matchAll(CITATION)) {
    const target = targets.get(Number(m[1]));
    if (!target || m.index === undefined) continue;
    out ??= [];
    if (m.index > from) out.push({ type: "text", value: value.slice(from, m.index) });
    out.push({
      type: "element",
      tagName: "a",
      properties: {
        href: `#${target.anchor}`,
        className: [CITATION_CLASS],
        dataTestid: "citation",
        title: target.title,
      },
      children: [{ type: "text", value: m[0] }],
    });
    from = m.index + m[0].length;
  }
  if (out && from < value.length) out.push({ type: "text", value: value.slice(from) });
  return out;
}

function walk(node: Node, targets: ReadonlyMap<number, CitationTarget>): void {
  const children = node.children;
  if (!children) return;
  const next: Node[] = [];
  let changed = false;
  for (const child of children) {
    if (child.type === "text" && typeof child.value === "string") {
      const parts = split(child.value, targets);
      if (parts) {
        next.push(...parts);
        changed = true;
        continue;
      }
    } else if (child.type === "element" && !SKIP.has(child.tagName ?? "")) {
      walk(child, targets);
    } else if (child.type === "root") {
      walk(child, targets);
    }
    next.push(child);
  }
  if (changed) node.children = next;
}

/** The rehype plugin: `[rehypeCitations, { targets }]`. */
export function rehypeCitations(options: CitationOptions) {
  return (tree: Node) => {
    if (options.targets.size > 0) walk(tree, options.targets);
  };
}

/** Scrolls to the Sources item a citation link names and highlights it for a moment (keeps
 * the browser's own handling for a modified click or a missing item). */
export function jumpToSource(event: {
  currentTarget: { getAttribute(name: string): string | null };
  preventDefault(): void;
  metaKey: boolean;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  button: number;
}): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const href = event.currentTarget.getAttribute("href") ?? "";
  const item = href.startsWith("#") ? document.getElementById(decodeURIComponent(href.slice(1))) : null;
  if (!item) return;
  event.preventDefault();
  item.scrollIntoView?.({ behavior: "smooth", block: "center" });
  item.focus({ preventScroll: true });
  // Restarts the highlight when the same source is cited twice in a row.
  item.classList.remove(HIGHLIGHT);
  void item.offsetWidth;
  item.classList.add(HIGHLIGHT);
  const timers = highlightTimers;
  clearTimeout(timers.get(item));
  timers.set(
    item,
    setTimeout(() => {
      item.classList.remove(HIGHLIGHT);
      timers.delete(item);
    }, HIGHLIGHT_MS),
  );
}

/** The class a Sources item has for a moment after its citation was followed. */
export const HIGHLIGHT = "source-highlight";
const HIGHLIGHT_MS = 2500;
const highlightTimers = new WeakMap<HTMLElement, ReturnType<typeof setTimeout>>();
