// "All of them" or a checklist: which skills or tools an agent may use.
import { useId, useState } from "react";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";

export interface NameChoiceProps {
  /** The fieldset's `data-testid` (stable whatever the language of `legend`). */
  testId?: string;
  /** What is chosen ("Skills"). */
  legend: string;
  /** The "all" option ("All enabled skills"). */
  allLabel: string;
  /** The "these" option ("Only the skills checked"). */
  someLabel: string;
  /** The names offered, in the order shown. */
  names: string[];
  /** The chosen names; null: all of them. */
  value: string[] | null;
  onChange: (next: string[] | null) => void;
  /** Offer a search box (long lists). */
  searchable?: boolean;
  /** Why a chosen name is not offered any more ("not enabled"); none while the names load. */
  missingNote?: string;
}

/** The names as a set, in the order `all` shows them. */
function ordered(all: string[], chosen: Set<string>): string[] {
  return all.filter((n) => chosen.has(n));
}

/**
 * Radio buttons "all" or "these", and under "these" a checklist of the names (with the
 * chosen ones no longer offered kept, marked, so saving does not drop them unseen).
 */
export function NameChoice({
  testId,
  legend,
  allLabel,
  someLabel,
  names,
  value,
  onChange,
  searchable,
  missingNote,
}: NameChoiceProps) {
  const t = useT();
  const group = useId();
  const [query, setQuery] = useState("");
  // Going back to "these" restores the last checklist rather than an empty one.
  const [lastSome, setLastSome] = useState<string[]>(value ?? []);
  const chosen = new Set(value ?? []);
  const missing = (value ?? []).filter((n) => !names.includes(n));
  const all = [...names, ...missing];
  const q = query.trim().toLowerCase();
  const shown = q ? all.filter((n) => n.toLowerCase().includes(q)) : all;
  const set = (next: Set<string>) => {
    const list = ordered(all, next);
    setLastSome(list);
    onChange(list);
  };
  const toggle = (name: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(name);
    else next.delete(name);
    set(next);
  };
  const allShownChosen = shown.length > 0 && shown.every((n) => chosen.has(n));
  const checkShown = () => {
    const next = new Set(chosen);
    for (const n of shown) {
      if (allShownChosen) next.delete(n);
      else next.add(n);
    }
    set(next);
  };
  return (
    <fieldset className="name-choice" data-testid={testId}>
      <legend>{legend}</legend>
      <label className="name-choice-mode">
        <input type="radio" name={group} checked={value === null} onChange={() => onChange(null)} /> {allLabel}
      </label>
      <label className="name-choice-mode">
        <input type="radio" name={group} checked={value !== null} onChange={() => onChange(ordered(all, new Set(lastSome)))} />{" "}
        {someLabel}
      </label>
      {value !== null && (
        <div className="name-choice-list">
          <div className="name-choice-tools">
            {searchable && (
              <label className="search">
                <Icon name="search" size={14} />
                <span className="visually-hidden">{t("settings.nameChoice.search", { what: legend.toLocaleLowerCase() })}</span>
                <input
                  type="search"
                  placeholder={t("settings.nameChoice.filterPlaceholder")}
                  value={query}
                  onChange={(e) => setQuery(e.target.value)}
                />
              </label>
            )}
            <span className="muted small" aria-live="polite">
              {t("settings.nameChoice.checked", { n: chosen.size, total: all.length })}
            </span>
            {shown.length > 0 && (
              <button type="button" className="btn btn-xs" onClick={checkShown}>
                {allShownChosen
                  ? t(q ? "settings.nameChoice.uncheckThese" : "settings.nameChoice.uncheckAll")
                  : t(q ? "settings.nameChoice.checkThese" : "settings.nameChoice.checkAll")}
              </button>
            )}
          </div>
          {all.length === 0 && <p className="muted small">{t("settings.nameChoice.none")}</p>}
          {all.length > 0 && shown.length === 0 && <p className="muted small">{t("settings.nameChoice.noMatch")}</p>}
          <ul className="checklist">
            {shown.map((name) => (
              <li key={name}>
                <label>
                  <input type="checkbox" checked={chosen.has(name)} onChange={(e) => toggle(name, e.target.checked)} />{" "}
                  <span className="checklist-name">{name}</span>
                  {missingNote && missing.includes(name) && <span className="badge badge-warn">{missingNote}</span>}
                </label>
              </li>
            ))}
          </ul>
        </div>
      )}
    </fieldset>
  );
}
