// Code blocks whose closing fence has not arrived yet (a message still streaming): a remark
// plugin marks them with the class `fence-open`, so a diagram is drawn only once its source is
// complete instead of flashing errors while it grows.

/** The class on the `<code>` of a fenced block that is not closed. */
export const OPEN_FENCE_CLASS = "fence-open";

interface MdNode {
  type: string;
  lang?: string | null;
  children?: MdNode[];
  position?: { start: { offset?: number }; end: { offset?: number } };
  data?: { hProperties?: Record<string, unknown> };
}

const OPENING = /^[\s>]*(`{3,}|~{3,})/;
const CLOSING = /^[\s>]*(`{3,}|~{3,})[ \t]*$/;

/** Whether the block's source (from its opening fence to its end) ends with a closing fence. */
export function fenceClosed(raw: string): boolean {
  const lines = raw.replace(/\n$/, "").split("\n");
  const open = OPENING.exec(lines[0] ?? "")?.[1];
  // An indented code block has no fence to wait for.
  if (!open) return true;
  if (lines.length < 2) return false;
  const close = CLOSING.exec(lines[lines.length - 1] ?? "")?.[1];
  return !!close && close[0] === open[0] && close.length >= open.length;
}

function mark(node: MdNode, source: string): void {
  if (node.type === "code") {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start !== undefined && end !== undefined && !fenceClosed(source.slice(start, end))) {
      const className = node.lang ? [`language-${node.lang}`, OPEN_FENCE_CLASS] : [OPEN_FENCE_CLASS];
      node.data = { ...node.data, hProperties: { ...node.data?.hProperties, className } };
    }
    return;
  }
  for (const child of node.children ?? []) mark(child, source);
}

/** Remark plugin: marks unclosed fenced code blocks with [`OPEN_FENCE_CLASS`]. */
export function remarkOpenFence() {
  return (tree: MdNode, file: { value: unknown }) => {
    if (typeof file.value === "string") mark(tree, file.value);
  };
}
