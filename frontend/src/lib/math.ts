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

/** Maximal runs of backticks: `[start, length]`, in order. */
function backtickRuns(text: string): [number, number][] {
  const runs: [number, number][] = [];
  for (let i = 0; i < text.length; ) {
    if (text[i] !== "`") {
      i++;
      continue;
    }
    let j = i;
    while (text[j] === "`") j++;
    runs.push([i, j - i]);
    i = j;
  }
  return runs;
}

/** Inline code spans (a run of k backticks closed by the next run of exactly k) found in one
 * pass: a regex with a lazy middle and a back-reference takes cubic time on unclosed runs. */
function inlineSegments(text: string): { code: boolean; text: string }[] {
  const runs = backtickRuns(text);
  // For each run, the index of the next run of the same length (or -1).
  const next = new Array<number>(runs.length).fill(-1);
  const seen = new Map<number, number>();
  for (let r = runs.length - 1; r >= 0; r--) {
    const len = runs[r]![1];
    next[r] = seen.get(len) ?? -1;
    seen.set(len, r);
  }
  const out: { code: boolean; text: string }[] = [];
  let from = 0;
  for (let r = 0; r < runs.length; r++) {
    const close = next[r]!;
    if (close === -1) continue;
    const [start] = runs[r]!;
    const [closeStart, closeLen] = runs[close]!;
    if (start > from) out.push({ code: false, text: text.slice(from, start) });
    from = closeStart + closeLen;
    out.push({ code: true, text: text.slice(start, from) });
    r = close;
  }
  if (from < text.length) out.push({ code: false, text: text.slice(from) });
  return out;
}

/** Positions of `token` (`\\[`, `\\]`…) not escaped by a backslash before it (`\\\\[2pt]` is a
 * LaTeX line break), in order. */
function unescaped(text: string, token: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(token); i !== -1; i = text.indexOf(token, i + 1)) {
    if (text[i - 1] !== "\\") out.push(i);
  }
  return out;
}

/** Each opener paired with the first closer after it (inner text non-empty; on one line when
 * `oneLine`), rewritten by `render`; one linear pass (lazy regexes are quadratic on openers
 * that never close). */
function rewritePairs(
  text: string,
  open: string,
  close: string,
  oneLine: boolean,
  render: (match: string, inner: string, offset: number) => string,
): string {
  const closers = unescaped(text, close);
  let c = 0;
  let from = 0;
  let out = "";
  // The first line break at or after the current opener (found again only when passed).
  let newline = -1;
  for (const start of unescaped(text, open)) {
    if (start < from) continue;
    const innerStart = start + open.length;
    while (c < closers.length && closers[c]! <= innerStart) c++;
    const end = closers[c];
    if (end === undefined) break;
    if (oneLine) {
      if (newline !== Infinity && newline < innerStart) {
        const found = text.indexOf("\n", innerStart);
        newline = found === -1 ? Infinity : found;
      }
      if (newline < end) continue;
    }
    const inner = text.slice(innerStart, end);
    out += text.slice(from, start) + render(text.slice(start, end + close.length), inner, start);
    from = end + close.length;
  }
  return out + text.slice(from);
}

function convert(prose: string): string {
  const display = rewritePairs(prose, "\\[", "\\]", false, (match, inner, offset) => {
    const whole = prose;
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
  return rewritePairs(display, "\\(", "\\)", true, (_m, inner) => `$$${inner.trim()}$$`);
}

/** `\(…\)` and `\[…\]` outside code written with dollars, which remark-math reads. */
export function normalizeMathDelimiters(text: string): string {
  if (!text.includes("\\(") && !text.includes("\\[")) return text;
  return segments(text)
    .map((s) => (s.code ? s.text : convert(s.text)))
    .join("");
}
