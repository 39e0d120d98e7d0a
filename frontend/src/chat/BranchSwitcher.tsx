// ‹ i / n ›: moves between the versions of the conversation from one message on (made by
// Edit and Regenerate); switching shows another branch of the history, nothing runs.
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import type { Branch, BranchOptions } from "../lib/branches";

export function BranchSwitcher({
  options,
  onSelect,
  disabled,
}: {
  options: BranchOptions;
  onSelect: (branch: Branch) => void;
  /** While a run streams the shown version must stay. */
  disabled: boolean;
}) {
  const { previous, next } = options;
  const t = useT();
  return (
    <div className="branch-switcher" role="group" aria-label={t("chat.branch.label")} data-testid="branch-switcher">
      <button
        type="button"
        className="btn btn-ghost btn-icon btn-xs"
        aria-label={t("chat.branch.previous")}
        title={t("chat.branch.previous")}
        disabled={disabled || !previous}
        onClick={() => previous && onSelect(previous)}
      >
        <Icon name="chevronLeft" size={14} />
      </button>
      <span className="branch-count">
        {options.index + 1} / {options.count}
      </span>
      <button
        type="button"
        className="btn btn-ghost btn-icon btn-xs"
        aria-label={t("chat.branch.next")}
        title={t("chat.branch.next")}
        disabled={disabled || !next}
        onClick={() => next && onSelect(next)}
      >
        <Icon name="chevron" size={14} />
      </button>
    </div>
  );
}
