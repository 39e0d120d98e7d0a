// Math in Markdown: `$…$` inline and `$$…$$` display (remark-math), rendered by KaTeX after
// sanitizing. Models also write LaTeX's `\(…\)` and `\[…\]`, which Markdown would read as
// escaped brackets: they are turned into dollars first. Single dollars stay on (models use
// them for formulas all the time), and prose prices like "$5 and $10" are kept as text by
// Pandoc's rule: an inline formula neither starts nor ends with a space and its closing `$`
// is not followed by a digit.
import type { KatexOptions } from "katex";

/** KaTeX's settings: no commands that reach outside the formula (`\href`, `\htmlClass`…),
 * errors shown as the formula's source, and bounds so a hostile formula cannot freeze the page. */
export const KATEX_OPTIONS: KatexOptions = {
  throwOnError: false,
  trust: false,
  strict: "ignore",
  // Largest size (in em) a formula may ask for, e.g. `\rule{100000em}{1em}`.
  maxSize: 50,
  // Macro expansions per formula: stops `\def\a{\a\a}\a`.
  maxExpand: 500,
};

/** A mdast node, as far as the plugin needs one. */
interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
  position?: { start: { offset?: number }; end: { offset?: number } };
}

function revertCurrency(node: MdNode, source: string): void {
  const children = node.children;
  if (!children) return;
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (!child) continue;
    if (child.type !== "inlineMath") {
      revertCurrency(child, source);
      continue;
    }
    const start = child.position?.start.offset;
    const end = child.position?.end.offset;
    if (start === undefined || end === undefined) continue;
    const raw = source.slice(start, end);
    // Only single-dollar math is ambiguous; `$$…$$` inline is always meant as math.
    if (raw.startsWith("$$")) continue;
    const inner = raw.slice(1, -1);
    if (/^\s|\s$/.test(inner) || /^\d/.test(source.slice(end, end + 1))) {
      children[i] = { type: "text", value: raw };
    }
  }
}

/** Remark plugin (after remark-math): single-dollar "math" that reads as prices becomes text. */
export function remarkCurrencyGuard() {
  return (tree: MdNode, file: { value: unknown }) => {
    if (typeof file.value === "string") revertCurrency(tree, file.value);
  };
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The text cut into prose and code (fenced blocks and inline code spans), in order. */
function segments(text: string): { code: boolean; text: string }[] {
  const out: { code: boolean; text: string }[] = [];
  let prose: string[] = [];
  let block: string[] = [];
  let fence: string | null = null;
  const flushProse = () => {
    if (prose.length) out.push(...inlineSegments(prose.join("")));
    prose = [];
  };
  for (const line of text.split(/(?<=\n)/)) {
    const m = FENCE.exec(line);
    if (fence === null) {
      if (m?.[1]) {
        flushProse();
        fence = m[1];
        block = [line];
      } else {
        prose.push(line);
      }
    } else {
      block.push(line);
      const close = FENCE.exec(line)?.[1];
      if (close && close[0] === fence[0] && close.length >= fence.length && line.trim() === close) {
        out.push({ code: true, text: block.join("") });
        fence = null;
      }
    }
  }
  if (fence !== null) out.push({ code: true, text: block.join("") });
  flushProse();
  return out;
}

function inlineSegments(text: string): { code: boolean; text: string }[] {
  const out: { code: boolean; text: string }[] = [];
  let from = 0;
  for (const m of text.matchAll(/(`+)[\s\S]*?[^`]\1(?!`)/g)) {
    if (m.index === undefined) continue;
    if (m.index > from) out.push({ code: false, text: text.slice(from, m.index) });
    out.push({ code: true, text: m[0] });
    from = m.index + m[0].length;
  }
  if (from < text.length) out.push({ code: false, text: text.slice(from) });
  return out;
}

// `\[` / `\(` not preceded by another backslash (`\\[2pt]` is a LaTeX line break).
const DISPLAY = /(?<!\\)\\\[([\s\S]+?)(?<!\\)\\\]/g;
const INLINE = /(?<!\\)\\\(([^\n]+?)(?<!\\)\\\)/g;

function convert(prose: string): string {
  const display = prose.replace(DISPLAY, (match, inner: string, offset: number, whole: string) => {
    const lineStart = whole.lastIndexOf("\n", offset - 1) + 1;
    const before = whole.slice(lineStart, offset);
    const afterEnd = whole.indexOf("\n", offset + match.length);
    const after = whole.slice(offset + match.length, afterEnd === -1 ? undefined : afterEnd);
    // Alone on its line(s) (after indentation or quote markers): a display block.
    // The fences get lines of their own, each line keeping the container's prefix.
    if (/^[\s>]*$/.test(before) && after.trim() === "") {
      const first = inner.startsWith("\n") ? inner.slice(1) : before + inner.trimStart();
      const body = first.replace(/\n[ \t>]*$/, "").trimEnd();
      return `$$\n${body}\n${before}$$`;
    }
    return `$$${inner.trim()}$$`;
  });
  return display.replace(INLINE, (_m, inner: string) => `$$${inner.trim()}$$`);
}

/** `\(…\)` and `\[…\]` outside code written with dollars, which remark-math reads. */
export function normalizeMathDelimiters(text: string): string {
  if (!text.includes("\\(") && !text.includes("\\[")) return text;
  return segments(text)
    .map((s) => (s.code ? s.text : convert(s.text)))
    .join("");
}
