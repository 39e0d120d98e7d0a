// A `task` call as a subtask card: what the subagent was asked, where it stands, how long it
// took; opened, what it did (its text and tool calls, as they stream).
import { memo, useId, useState } from "react";
import { Icon } from "../components/Icon";
import { Markdown } from "../components/Markdown";
import { t as translate, useT } from "../i18n";
import { formatDuration } from "../lib/format";
import type { ToolCall, ToolMessage } from "../lib/messages";
import type { Subtask, ToolEntry } from "../lib/subtasks";
import {
  SUBTASK_STATUS_LABELS,
  type SubtaskView,
  hasEnded,
  shortResult,
  subtaskView,
  toolLine,
  usageText,
} from "../lib/subtaskView";
import { progressText } from "../lib/toolProgress";

/** One of the subagent's tool calls: its title, what it works on, and the start of its result. */
const ChildTool = memo(function ChildTool({ entry }: { entry: ToolEntry }) {
  const t = useT();
  const { title, summary } = toolLine(entry);
  const done = entry.result !== undefined;
  const status = !done ? "running" : entry.failed ? "error" : "success";
  return (
    <div className={`subtask-tool subtask-tool-${status}`} data-testid="subtask-tool">
      <div className="subtask-tool-head">
        <Icon name="tool" size={12} />
        <span className="subtask-tool-name">{title}</span>
        {summary && <code className="subtask-tool-summary">{summary}</code>}
        <span className={`tool-status status-${status}`}>
          {!done && <span className="spinner spinner-xs" aria-hidden="true" />}
          {!done
            ? entry.progress
              ? progressText(entry.progress)
              : t("chat.subtask.running")
            : entry.failed
              ? t("chat.subtask.error")
              : t("chat.subtask.done")}
        </span>
      </div>
      {done && entry.result && <div className="subtask-tool-result">{shortResult(entry.result)}</div>}
    </div>
  );
});

/** What the card says when there is no transcript to show. */
function noTranscript(view: SubtaskView): string {
  if (view.status === "queued") return translate("chat.subtask.waiting");
  if (view.status === "running") return translate("chat.subtask.starting");
  // After a reload: a finished run's steps are not kept, its result is.
  return translate("chat.subtask.stepsNotKept");
}

/** The opened card: the task given, the subagent's transcript (or its answer), what it used. */
function Transcript({ view, task, id }: { view: SubtaskView; task: Subtask | undefined; id: string }) {
  const t = useT();
  const entries = task?.transcript ?? [];
  const live = !hasEnded(view.status);
  const lastText = entries.findLastIndex((e) => e.kind === "text");
  return (
    <div className="tool-body subtask-body" id={id} data-testid="subtask-transcript">
      {view.prompt && (
        <details className="subtask-prompt">
          <summary>{t("chat.subtask.taskGiven")}</summary>
          <div className="subtask-prompt-text">{view.prompt}</div>
        </details>
      )}
      {entries.map((e, i) =>
        e.kind === "text" ? (
          <div key={e.key} className={`assistant-text ${live && i === lastText ? "streaming" : ""}`}>
            <Markdown text={e.text} />
          </div>
        ) : (
          <ChildTool key={e.key} entry={e} />
        ),
      )}
      {entries.length === 0 &&
        (view.answer ? (
          <section>
            <h4>{t("chat.subtask.answer")}</h4>
            <div className="assistant-text">
              <Markdown text={view.answer} />
            </div>
          </section>
        ) : (
          <p className="muted small">{noTranscript(view)}</p>
        ))}
      {view.usage && <p className="muted small subtask-usage">{usageText(view.usage)}</p>}
    </div>
  );
}

/**
 * A `task` call: `task` from the run's task events (absent after a reload), `result` once the
 * call has answered. Folded until opened; each card follows its own task.
 */
export const SubtaskCard = memo(function SubtaskCard({
  call,
  result,
  task,
}: {
  call: ToolCall;
  result?: ToolMessage | undefined;
  task?: Subtask | undefined;
}) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const view = subtaskView(call, result, task);
  const { status } = view;
  const failed = status === "failed" || status === "timed_out";
  return (
    <div
      className={`tool-card subtask-card subtask-${status} ${failed ? "tool-error" : ""}`}
      data-testid="subtask-card"
      data-task-status={status}
    >
      <button
        type="button"
        className="tool-head subtask-head"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen(!open)}
      >
        <Icon name="delegate" size={14} />
        <span className="subtask-title">{view.description}</span>
        {view.subagentType && (
          <span className="subtask-type" data-testid="subtask-type" title={t("chat.subtask.type")}>
            {view.subagentType}
          </span>
        )}
        <span className={`tool-status subtask-status status-${status}`} data-testid="subtask-status">
          {status === "running" && <span className="spinner spinner-xs" aria-hidden="true" />}
          {SUBTASK_STATUS_LABELS[status]}
          {view.durationMs !== undefined && <span className="subtask-duration"> · {formatDuration(view.durationMs)}</span>}
        </span>
        <span className={`chevron ${open ? "open" : ""}`} aria-hidden="true">
          <Icon name="chevron" size={14} />
        </span>
      </button>
      {view.error && (
        <p className="subtask-error tool-error-text" data-testid="subtask-error">
          {view.error}
        </p>
      )}
      {open && <Transcript view={view} task={task} id={bodyId} />}
    </div>
  );
});
