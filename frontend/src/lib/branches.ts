// Versions of a conversation, as LangGraph's `useStream` finds them: a thread's checkpoints
// (POST …/history) form a tree through `parent_checkpoint`; a run started from an older
// checkpoint (Edit, Regenerate) adds a sibling, so a checkpoint with 2+ children is a fork.
// A branch names the child chosen at each fork on the way down; what it shows is the last
// state on it. Each message is tied to its first-seen state (the earliest state on the branch
// holding it): that state's parent is where Edit and Regenerate run from, and a message whose
// first-seen state lies past a fork carries that fork's ‹ i/n › switcher.
//
// One refinement over the SDK: a fork child that adds no message before forking again (the
// input checkpoint of an Edit run, edited again) does not hide its parent fork; the nested
// fork's children join the parent's options (three edits of one message read 1/3 … 3/3).
import type { Message } from "./messages";
import { isMessage } from "./messages";

/** Names a checkpoint (the server adds `thread_id` and `checkpoint_ns`). */
export interface CheckpointRef {
  checkpoint_id: string;
}

/** One item of POST …/history: the fields branching reads (the server's `ThreadState` fits). */
export interface HistoryState {
  values: { messages?: unknown[] | undefined };
  checkpoint?: CheckpointRef | null | undefined;
  parent_checkpoint?: CheckpointRef | null | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/** The checkpoint chosen at each fork, top down; forks it does not name follow the newest child. */
export type Branch = string[];

/** A ‹ i/n › switcher: the versions of the conversation from one message on. */
export interface BranchOptions {
  /** The shown version, from 0. */
  index: number;
  count: number;
  /** The branch ‹ shows (none on the first version). */
  previous?: Branch;
  /** The branch › shows (none on the last version). */
  next?: Branch;
}

/** What one shown message offers. */
export interface MessageBranch {
  /** The checkpoint before the message's first-seen state: Edit and Regenerate run from it. */
  parentCheckpoint?: string;
  /** Set on the message where the versions diverge. */
  options?: BranchOptions;
  /** The run that added the message (its first-seen state's `metadata.run_id`), when known. */
  runId?: string;
}

export interface BranchView {
  /** The messages of the last state on the branch. */
  messages: Message[];
  /** That state's checkpoint: a message sent on this branch continues from it. */
  head?: string;
  /** The head is the thread's newest checkpoint (a send needs no checkpoint then). */
  headIsNewest: boolean;
  /** The branch as followed (the child taken at every fork, named or defaulted). */
  branch: Branch;
  /** By message id. */
  byMessage: Map<string, MessageBranch>;
  /** The server records checkpoint metadata (`metadata.source`), so runs can start from a
   * checkpoint; older servers ignore one, so nothing offers to. */
  supported: boolean;
}

interface Node {
  id: string;
  state: HistoryState;
  /** Ids of the messages in its values. */
  ids: Set<string>;
  parent?: Node;
  /** Oldest first. */
  children: Node[];
}

interface Tree {
  roots: Node[];
  byId: Map<string, Node>;
  newest?: Node;
}

/** One fork on a branch (nested forks under a child that added nothing are merged in). */
interface Fork {
  options: Branch[];
}

interface Step {
  node: Node;
  path: Branch;
  fork?: Fork;
}

const idOf = (s: HistoryState): string | undefined => s.checkpoint?.checkpoint_id ?? undefined;

function messageIds(state: HistoryState): Set<string> {
  const ids = new Set<string>();
  for (const m of state.values.messages ?? []) {
    const id = m && typeof m === "object" ? (m as { id?: unknown }).id : undefined;
    if (typeof id === "string") ids.add(id);
  }
  return ids;
}

/** The tree of checkpoints. History answers newest first; children are kept oldest first. */
function buildTree(history: HistoryState[]): Tree {
  const byId = new Map<string, Node>();
  const ordered: Node[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const state = history[i];
    const id = state && idOf(state);
    if (!state || !id || byId.has(id)) continue;
    const node: Node = { id, state, ids: messageIds(state), children: [] };
    byId.set(id, node);
    ordered.push(node);
  }
  const loose = new Map<string, Node[]>();
  for (const node of ordered) {
    const parentId = node.state.parent_checkpoint?.checkpoint_id ?? "$";
    const parent = byId.get(parentId);
    if (parent && parent !== node) {
      node.parent = parent;
      parent.children.push(node);
    } else {
      loose.set(parentId, [...(loose.get(parentId) ?? []), node]);
    }
  }
  // A page of history may start mid-thread: the root is the top reached from the newest state.
  const newest = ordered.at(-1);
  let top = newest;
  const seen = new Set<Node>();
  while (top?.parent && !seen.has(top)) {
    seen.add(top);
    top = top.parent;
  }
  const rootKey = top?.state.parent_checkpoint?.checkpoint_id ?? "$";
  return { roots: top ? (loose.get(rootKey) ?? [top]) : [], byId, ...(newest ? { newest } : {}) };
}

const adds = (node: Node, base: Set<string>): boolean => [...node.ids].some((id) => !base.has(id));

/**
 * The versions a fork offers: one branch per child, except that a child adding no message
 * before it forks again stands for that fork's versions (recursively).
 */
function optionsOf(children: Node[], prefix: Branch, base: Set<string>): Branch[] {
  return children.flatMap((child) => {
    const path = [...prefix, child.id];
    let node = child;
    while (!adds(node, base) && node.children.length === 1 && node.children[0]) node = node.children[0];
    return !adds(node, base) && node.children.length > 1 ? optionsOf(node.children, path, base) : [path];
  });
}

function walk(tree: Tree, branch: Branch): Step[] {
  const steps: Step[] = [];
  const wanted = [...branch];
  let group = tree.roots;
  let path: Branch = [];
  let fork: Fork | undefined;
  let base = new Set<string>();
  /** Nothing new since the last fork: a fork now belongs to it. */
  let quiet = false;
  const seen = new Set<Node>();
  let above: Node | undefined;
  while (group.length > 0) {
    let node = group[0];
    if (group.length > 1) {
      const want = wanted.shift();
      node = group.find((n) => n.id === want) ?? group.at(-1);
      if (!(fork && quiet)) {
        base = above ? above.ids : new Set();
        fork = { options: optionsOf(group, path, base) };
      }
      path = node ? [...path, node.id] : path;
      quiet = true;
    }
    if (!node || seen.has(node)) break;
    seen.add(node);
    if (quiet && adds(node, base)) quiet = false;
    steps.push({ node, path, ...(fork ? { fork } : {}) });
    above = node;
    group = node.children;
  }
  return steps;
}

const startsWith = (path: Branch, prefix: Branch): boolean => prefix.every((id, i) => path[i] === id);

/** What a branch shows: its messages, and per message Edit/Regenerate checkpoints and switchers. */
export function branchView(history: HistoryState[], branch: Branch = []): BranchView {
  const tree = buildTree(history);
  const steps = walk(tree, branch);
  const last = steps.at(-1);
  const supported = history.some((s) => typeof s.metadata?.["source"] === "string");
  const messages = (last?.node.state.values.messages ?? []).filter(isMessage);
  const byMessage = new Map<string, MessageBranch>();
  const shown = new Set<Fork>();
  for (const m of messages) {
    const step = supported ? steps.find((s) => s.node.ids.has(m.id)) : undefined;
    if (!step) continue;
    const meta: MessageBranch = {};
    // In the first state read, a message may be older than the page of history: where it
    // first appeared is unknown, so nothing runs from a guess.
    const parent = step === steps[0] ? undefined : step.node.state.parent_checkpoint?.checkpoint_id;
    if (parent) meta.parentCheckpoint = parent;
    // Likewise its run: known unless the page of history starts after the thread's start.
    const runId = step.node.state.metadata?.["run_id"];
    const complete = step !== steps[0] || !step.node.state.parent_checkpoint?.checkpoint_id;
    if (typeof runId === "string" && runId && complete) meta.runId = runId;
    const fork = step.fork;
    if (fork && !shown.has(fork)) {
      shown.add(fork);
      const index = fork.options.findIndex((o) => startsWith(step.path, o));
      const previous = index > 0 ? fork.options[index - 1] : undefined;
      const next = index >= 0 ? fork.options[index + 1] : undefined;
      if (index >= 0) {
        meta.options = { index, count: fork.options.length, ...(previous ? { previous } : {}), ...(next ? { next } : {}) };
      }
    }
    byMessage.set(m.id, meta);
  }
  return {
    messages,
    ...(last ? { head: last.node.id } : {}),
    headIsNewest: !!last && last.node === tree.newest,
    branch: last?.path ?? [],
    byMessage,
    supported,
  };
}

/** The branch leading to a checkpoint (the fork children on its way up); empty when unknown. */
export function branchTo(history: HistoryState[], checkpointId: string): Branch {
  const tree = buildTree(history);
  const path: Branch = [];
  const seen = new Set<Node>();
  for (let node = tree.byId.get(checkpointId); node && !seen.has(node); node = node.parent) {
    seen.add(node);
    const siblings = node.parent ? node.parent.children : tree.roots;
    if (siblings.length > 1) path.unshift(node.id);
  }
  return path;
}

/** The thread's newest checkpoint (history answers newest first). */
export function newestCheckpoint(history: HistoryState[]): string | undefined {
  for (const s of history) {
    const id = idOf(s);
    if (id) return id;
  }
  return undefined;
}
