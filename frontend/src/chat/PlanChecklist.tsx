// Plan mode's checklist above the message box: the agent's plan as it last wrote it
// (`write_todos`), how much of it is done, and which step it is on. Folds to its title line;
// folded per conversation for as long as the page lives.
import { useId, useState } from "react";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import { STATUS_LABELS, type Todo, type TodoStatus, progressLabel } from "../lib/todos";

/** Conversations whose checklist was folded here. */
const folded = new Set<string>();

/** An item's mark: ○ pending, a spinner (◐ once the run has ended) in progress, ✓ done. */
function StatusMark({ status, active }: { status: TodoStatus; active: boolean }) {
  const label = STATUS_LABELS[status];
  if (status === "in_progress" && active) {
    return (
      <span className="plan-mark" role="img" aria-label={label}>
        <span className="spinner spinner-xs" aria-hidden="true" />
      </span>
    );
  }
  const glyph = status === "completed" ? "✓" : status === "in_progress" ? "◐" : "○";
  return (
    <span className="plan-mark" role="img" aria-label={label}>
      <span aria-hidden="true">{glyph}</span>
    </span>
  );
}

/** The items alone (also what a `write_todos` card shows when opened). */
export function PlanItems({ todos, active = false, label }: { todos: Todo[]; active?: boolean; label: string }) {
  return (
    <ol className="plan-list" aria-label={label}>
      {todos.map((t, i) => (
        <li
          key={i}
          className={`plan-item plan-${t.status}`}
          data-testid="plan-item"
          data-status={t.status}
          aria-current={t.status === "in_progress" ? "step" : undefined}
        >
          <StatusMark status={t.status} active={active} />
          <span className="plan-text">{t.content}</span>
        </li>
      ))}
    </ol>
  );
}

/**
 * The checklist of a conversation (`threadId`, to remember it folded). `active`: a run is
 * going, so the step in progress spins.
 */
export function PlanChecklist({ todos, threadId, active }: { todos: Todo[]; threadId?: string; active: boolean }) {
  const t = useT();
  const key = threadId ?? "";
  const [open, setOpen] = useState(() => !folded.has(key));
  const listId = useId();
  const titleId = useId();
  const progress = progressLabel(todos);
  const toggle = () => {
    if (open) folded.add(key);
    else folded.delete(key);
    setOpen(!open);
  };
  return (
    <section className="plan" aria-labelledby={titleId} data-testid="plan">
      <button
        type="button"
        className="plan-head"
        aria-expanded={open}
        aria-controls={listId}
        onClick={toggle}
        title={open ? t("chat.plan.fold") : t("chat.plan.show")}
      >
        <span className={`chevron ${open ? "open" : ""}`} aria-hidden="true">
          <Icon name="chevron" size={14} />
        </span>
        <span className="plan-title" id={titleId}>
          {t("chat.plan.title")}
        </span>
        <span className="plan-progress" data-testid="plan-progress">
          {progress}
        </span>
      </button>
      <div id={listId} hidden={!open}>
        {open && <PlanItems todos={todos} active={active} label={t("chat.plan.listLabel", { progress })} />}
      </div>
    </section>
  );
}
