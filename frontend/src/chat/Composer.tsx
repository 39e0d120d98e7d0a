// The message box: Enter sends, Shift+Enter breaks the line; attach files; Stop while running;
// `/` opens the menu of skills to activate (arrow keys move, Enter or Tab picks, Escape closes);
// the model and thinking level go in the row under it.
import { type ReactNode, useId, useRef, useState } from "react";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import { type SlashCommand, matchingCommands } from "./slashCommands";
import type { Attachment, MarkdownVersion } from "./useAttachments";
import { type PastedImage, imageUrl } from "./usePastedImages";

export interface ComposerProps {
  streaming: boolean;
  stopping: boolean;
  disabled: boolean;
  disabledReason?: string;
  attachments: Attachment[];
  uploading: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
  onFiles: (files: File[]) => void;
  onRemoveAttachment: (key: string) => void;
  /** Skills offered as `/name` commands. */
  commands?: SlashCommand[];
  /** Images pasted into the box, sent inline with the message. */
  images?: PastedImage[];
  onImages?: (files: File[]) => void;
  onRemoveImage?: (key: string) => void;
  /** Plan mode for the next runs (the toggle shows when `onPlanMode` is given). */
  planMode?: boolean;
  onPlanMode?: (on: boolean) => void;
  /** Opens the schedule dialog with the box's text (the button shows when given). */
  onSchedule?: (text: string) => void;
  /** A row under the message box: the model, thinking level and context meter. */
  options?: ReactNode;
}

export function Composer(props: ComposerProps) {
  const t = useT();
  const [text, setText] = useState("");
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const menuId = useId();
  const matches = dismissed === text ? [] : matchingCommands(text, props.commands ?? []);
  const menuOpen = matches.length > 0 && !props.disabled;
  const current = Math.min(active, Math.max(0, matches.length - 1));
  const pick = (command: SlashCommand) => {
    setText(`/${command.name} `);
    setActive(0);
  };
  const images = props.images ?? [];
  const canSend =
    !props.disabled && !props.streaming && !props.uploading && (text.trim().length > 0 || images.length > 0);
  const send = () => {
    if (!canSend) return;
    props.onSend(text);
    setText("");
  };
  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      {props.attachments.length > 0 && (
        <ul className="attachments" aria-label={t("chat.composer.attachments")}>
          {props.attachments.map((a) => (
            <li key={a.key} className={`attachment attachment-${a.status}`} title={a.error ?? a.virtualPath ?? a.name}>
              <Icon name="file" size={14} />
              <span className="attachment-name">{a.name}</span>
              {a.status === "uploading" && <span className="spinner spinner-xs" aria-label={t("chat.composer.uploading")} />}
              {a.status === "error" && <span className="attachment-error">{t("chat.composer.failed")}</span>}
              {a.markdown && <MarkdownState version={a.markdown} />}
              <button type="button" className="btn btn-ghost btn-icon btn-xs" aria-label={t("chat.composer.remove", { name: a.name })} onClick={() => props.onRemoveAttachment(a.key)}>
                <Icon name="x" size={12} />
              </button>
            </li>
          ))}
        </ul>
      )}
      {images.length > 0 && (
        <ul className="composer-images" aria-label={t("chat.composer.images")}>
          {images.map((i) => (
            <li key={i.key} data-testid="composer-image">
              <img src={imageUrl(i)} alt={i.name} />
              <button type="button" className="btn btn-ghost btn-icon btn-xs" aria-label={t("chat.composer.remove", { name: i.name })} onClick={() => props.onRemoveImage?.(i.key)}>
                <Icon name="x" size={12} />
              </button>
            </li>
          ))}
        </ul>
      )}
      {menuOpen && (
        <ul className="slash-menu" role="listbox" id={menuId} aria-label={t("chat.composer.skills")}>
          {matches.map((c, i) => (
            <li
              key={c.name}
              id={`${menuId}-${i}`}
              role="option"
              aria-selected={i === current}
              className={i === current ? "active" : undefined}
              onMouseDown={(e) => {
                // Keeps the focus in the message box.
                e.preventDefault();
                pick(c);
              }}
            >
              <span className="slash-name">/{c.name}</span>
              {c.argumentHint && <span className="slash-hint">{c.argumentHint}</span>}
              <span className="slash-description">{c.description}</span>
            </li>
          ))}
        </ul>
      )}
      <div className="composer-row">
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          data-testid="file-input"
          onChange={(e) => {
            const files = Array.from(e.target.files ?? []);
            e.target.value = "";
            props.onFiles(files);
          }}
        />
        <button
          type="button"
          className="btn btn-ghost btn-icon"
          aria-label={t("chat.composer.attach")}
          title={t("chat.composer.attachTitle")}
          onClick={() => fileInput.current?.click()}
          disabled={props.disabled}
        >
          <Icon name="clip" />
        </button>
        {props.onPlanMode && (
          <button
            type="button"
            className={`btn btn-ghost plan-mode-toggle ${props.planMode ? "on" : ""}`}
            aria-pressed={!!props.planMode}
            aria-label={t("chat.composer.planMode")}
            title={
              props.planMode
                ? t("chat.composer.planModeOnTitle")
                : t("chat.composer.planModeOffTitle")
            }
            onClick={() => props.onPlanMode?.(!props.planMode)}
            disabled={props.disabled}
            data-testid="plan-mode-toggle"
          >
            <Icon name="checklist" />
            <span className="hide-narrow">{t("chat.composer.planMode")}</span>
          </button>
        )}
        {props.onSchedule && (
          <button
            type="button"
            className="btn btn-ghost"
            aria-label={t("chat.composer.schedule")}
            title={t("chat.composer.scheduleTitle")}
            onClick={() => props.onSchedule?.(text)}
            disabled={props.disabled}
            data-testid="schedule-button"
          >
            <Icon name="clock" />
            <span className="hide-narrow">{t("chat.composer.schedule")}</span>
          </button>
        )}
        <textarea
          className="composer-input"
          aria-label={t("chat.composer.message")}
          placeholder={props.disabled ? (props.disabledReason ?? t("chat.composer.unavailable")) : t("chat.composer.placeholder")}
          title={t("chat.composer.inputTitle")}
          value={text}
          rows={Math.min(8, Math.max(1, text.split("\n").length))}
          onChange={(e) => {
            setText(e.target.value);
            setActive(0);
          }}
          onPaste={(e) => {
            const pasted = Array.from(e.clipboardData.files).filter((f) => f.type.startsWith("image/"));
            if (pasted.length === 0 || !props.onImages) return;
            e.preventDefault();
            props.onImages(pasted);
          }}
          /* A text box that suggests (ARIA allows autocomplete and an active descendant on
             one); it stays a text box for everything that finds the message box by role. */
          aria-autocomplete="list"
          aria-controls={menuOpen ? menuId : undefined}
          aria-activedescendant={menuOpen ? `${menuId}-${current}` : undefined}
          onKeyDown={(e) => {
            if (menuOpen) {
              const chosen = matches[current];
              if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                e.preventDefault();
                const step = e.key === "ArrowDown" ? 1 : -1;
                setActive((current + step + matches.length) % matches.length);
                return;
              }
              if ((e.key === "Enter" || e.key === "Tab") && !e.shiftKey && chosen && !e.nativeEvent.isComposing) {
                e.preventDefault();
                pick(chosen);
                return;
              }
              if (e.key === "Escape") {
                e.preventDefault();
                setDismissed(text);
                return;
              }
            }
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              send();
            }
          }}
          disabled={props.disabled}
        />
        {props.streaming ? (
          <button type="button" className="btn btn-danger" onClick={props.onStop} disabled={props.stopping} data-testid="stop-button">
            <Icon name="stop" /> {props.stopping ? t("chat.composer.stopping") : t("chat.composer.stop")}
          </button>
        ) : (
          <button type="submit" className="btn btn-primary" disabled={!canSend} aria-label={t("chat.composer.send")} data-testid="send-button">
            <Icon name="send" /> <span className="hide-narrow">{t("chat.composer.send")}</span>
          </button>
        )}
      </div>
      {props.options}
    </form>
  );
}

/** Where a document's conversion to Markdown stands, on its chip. */
function MarkdownState({ version }: { version: MarkdownVersion }) {
  const t = useT();
  switch (version.status) {
    case "pending":
      return (
        <span className="attachment-markdown" data-testid="markdown-state" data-state="pending" title={t("chat.composer.convertingTitle")}>
          <span className="spinner spinner-xs" aria-hidden="true" /> {t("chat.composer.converting")}
        </span>
      );
    case "done":
      return (
        <span className="attachment-markdown" data-testid="markdown-state" data-state="done" title={t("chat.composer.readableTitle")}>
          {t("chat.composer.readable")}
        </span>
      );
    default:
      return (
        <span className="attachment-markdown attachment-error" data-testid="markdown-state" data-state={version.status} title={version.error ?? undefined}>
          {t("chat.composer.notConverted")}
        </span>
      );
  }
}
