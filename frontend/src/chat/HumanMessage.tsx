// A message of the person: its images, text and files, its version switcher, and Edit,
// which turns the bubble into a text box (Enter saves, Shift+Enter breaks the line, Escape
// cancels) and runs again from before the message on a new branch.
import { useEffect, useRef, useState } from "react";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import type { Block } from "../lib/grouping";
import { BranchSwitcher } from "./BranchSwitcher";
import { FileChips } from "./FileChips";
import { type VersionActions, canRun } from "./versions";

export function HumanMessage({
  block,
  onOpenFile,
  versions,
}: {
  block: Extract<Block, { kind: "human" }>;
  onOpenFile: (path: string) => void;
  versions?: VersionActions | undefined;
}) {
  const t = useT();
  /** The text being edited; null while not editing. */
  const [draft, setDraft] = useState<string | null>(null);
  const editing = draft !== null;
  const box = useRef<HTMLTextAreaElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  useEffect(() => {
    const el = box.current;
    if (editing && el) {
      // Ready to type on: focused, the caret after the text.
      el.focus();
      el.setSelectionRange(el.value.length, el.value.length);
    } else if (!editing && wasEditing.current) {
      // Cancelled: the keyboard goes on from where it started.
      editButton.current?.focus();
    }
    wasEditing.current = editing;
  }, [editing]);
  const meta = versions?.byMessage.get(block.key);
  const canEdit = canRun(versions, meta);
  // The images stay with the message, so the text may go when there are some.
  const canSave = canEdit && draft !== null && (draft.trim() !== "" || block.images.length > 0);
  const save = () => {
    if (!canSave || draft === null) return;
    versions?.onEdit(block.key, draft);
    setDraft(null);
  };
  return (
    <article className={`msg msg-human${editing ? " editing" : ""}`} aria-label={t("chat.human.label")} data-testid="human-message">
      {block.images.length > 0 && (
        <div className="human-images">
          {block.images.map((src, i) => (
            <img key={i} src={src} alt={t("chat.human.imageAlt", { n: i + 1 })} data-testid="human-image" />
          ))}
        </div>
      )}
      {editing ? (
        <div className="edit-box">
          <textarea
            className="edit-input"
            aria-label={t("chat.human.editedMessage")}
            title={t("chat.human.editTitle")}
            ref={box}
            value={draft}
            rows={Math.min(12, Math.max(2, draft.split("\n").length))}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                save();
              } else if (e.key === "Escape") {
                e.preventDefault();
                setDraft(null);
              }
            }}
          />
          <div className="edit-actions">
            <button type="button" className="btn btn-sm" onClick={() => setDraft(null)}>
              {t("chat.human.cancel")}
            </button>
            <button type="button" className="btn btn-sm btn-primary" disabled={!canSave} onClick={save}>
              {t("chat.human.save")}
            </button>
          </div>
        </div>
      ) : (
        block.text && <div className="bubble">{block.text}</div>
      )}
      {block.files.length > 0 && <FileChips paths={block.files} onOpen={onOpenFile} label={t("chat.human.attachedFiles")} />}
      {!editing && (meta?.options || canEdit) && (
        <div className="msg-actions">
          {meta?.options && versions && (
            <BranchSwitcher options={meta.options} onSelect={versions.onBranch} disabled={versions.streaming} />
          )}
          {canEdit && (
            <button
              ref={editButton}
              type="button"
              className="btn btn-ghost btn-icon btn-xs msg-action"
              aria-label={t("chat.human.edit")}
              title={t("chat.human.edit")}
              onClick={() => setDraft(block.text)}
            >
              <Icon name="edit" size={14} />
            </button>
          )}
        </div>
      )}
    </article>
  );
}
