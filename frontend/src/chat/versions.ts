// What the chat offers on the messages of the shown version of a conversation.
import type { Branch, MessageBranch } from "../lib/branches";
import type { SessionState, ThreadSession } from "../state/session";

/** Edit, Regenerate and the ‹ i/n › switchers (see lib/branches). */
export interface VersionActions {
  /** What each shown message offers, by id; empty when the history cannot say. */
  byMessage: ReadonlyMap<string, MessageBranch>;
  /** A run is streaming: nothing starts and the shown version stays. */
  streaming: boolean;
  /** Runs cannot start (no model): Edit and Regenerate are hidden. */
  disabled: boolean;
  onEdit: (messageId: string, text: string) => void;
  onRegenerate: (messageId: string) => void;
  onBranch: (branch: Branch) => void;
}

/** Edit and Regenerate need the checkpoint to run from, and no run going. */
export function canRun(versions: VersionActions | undefined, meta: MessageBranch | undefined): boolean {
  return !!versions && !!meta?.parentCheckpoint && !versions.streaming && !versions.disabled;
}

const none: ReadonlyMap<string, MessageBranch> = new Map();

/** The actions of a conversation, bound to its session. */
export function versionActions(session: ThreadSession, state: SessionState, disabled: boolean): VersionActions {
  return {
    byMessage: state.view?.byMessage ?? none,
    streaming: state.streaming,
    disabled,
    onEdit: (id, text) => session.edit(id, text),
    onRegenerate: (id) => session.regenerate(id),
    onBranch: (branch) => session.showBranch(branch),
  };
}
