// Where a long conversation was summarized for the agent: its earliest messages fold behind
// this marker (shown again on demand, in place), with what the agent remembers of them.
import { type ReactNode, useId, useState } from "react";
import { Icon } from "../components/Icon";
import { Markdown } from "../components/Markdown";
import { useT } from "../i18n";

/**
 * The marker of `count` summarized messages; `content` is the summary the model reads;
 * `earlier` renders the folded messages (only when shown, so a long history costs nothing).
 */
export function SummaryMarker({
  count,
  content,
  earlier,
}: {
  count: number;
  content: string;
  /** None: nothing to unfold (the summary ends inside the first reply shown). */
  earlier?: (() => ReactNode) | undefined;
}) {
  const [open, setOpen] = useState(false);
  const regionId = useId();
  const t = useT();
  return (
    <>
      <div className="summary-marker" data-testid="summary-marker">
        <div className="summary-marker-row">
          <Icon name="archive" size={14} />
          <span className="summary-marker-text">
            {t("chat.summary.marker", { count })}
          </span>
          {earlier && (
            <button
              type="button"
              className="btn btn-ghost btn-xs"
              aria-expanded={open}
              aria-controls={regionId}
              onClick={() => setOpen(!open)}
            >
              {open ? t("chat.summary.hide") : t("chat.summary.show")}
            </button>
          )}
        </div>
        <details className="summary-content">
          <summary>{t("chat.summary.remembers")}</summary>
          <div className="summary-content-text" data-testid="summary-content">
            <Markdown text={content} />
          </div>
        </details>
      </div>
      {earlier && open && (
        <div className="summarized-messages" id={regionId} data-testid="summarized-messages">
          {earlier()}
        </div>
      )}
    </>
  );
}
