// Which of the chat's blocks a conversation summary covers. The model reads the summary
// instead of every message up to and including `up_to`; the person still has them all, folded
// behind a marker.
import type { Summary } from "../api/types";
import type { Block } from "./grouping";
import type { Message } from "./messages";

export interface SummarizedSplit {
  /** The blocks whose messages are all summarized (folded). */
  earlier: Block[];
  /** The rest, shown as usual (a reply the summary cuts through among them). */
  later: Block[];
  /** How many messages the summary covers. */
  count: number;
}

/** The last message a block shows. */
const lastId = (b: Block): string | undefined => (b.kind === "human" ? b.key : b.messageIds.at(-1));

/**
 * Splits `blocks` (grouped from `messages`) at the summary's last message; none when there is
 * no summary or its message is not among these (another version of the conversation).
 */
export function splitSummarized(blocks: Block[], messages: Message[], summary: Summary | undefined): SummarizedSplit | undefined {
  if (!summary) return undefined;
  const cut = messages.findIndex((m) => m.id === summary.up_to);
  if (cut < 0) return undefined;
  const position = new Map(messages.map((m, i) => [m.id, i]));
  // Blocks follow the messages' order: the first one reaching past the cut starts the rest.
  let i = blocks.findIndex((b) => {
    const id = lastId(b);
    return (id === undefined ? Infinity : (position.get(id) ?? Infinity)) > cut;
  });
  if (i < 0) i = blocks.length;
  return { earlier: blocks.slice(0, i), later: blocks.slice(i), count: cut + 1 };
}
