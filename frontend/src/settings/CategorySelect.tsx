// The category picker of Settings → Memory (adding, editing and filtering facts).
import { CATEGORY_LABELS, FACT_CATEGORIES, type FactCategory } from "../lib/memory";

/** A labelled select of the fact categories; `anyLabel` adds a first "any" choice (value ""),
 * `hideLabel` keeps the label for screen readers only (where the choices say enough). */
export function CategorySelect<T extends FactCategory | "">({
  label,
  value,
  onChange,
  anyLabel,
  disabled,
  hideLabel,
}: {
  label: string;
  value: T;
  /** Gets "" only when `anyLabel` offers it (then `T` includes it). */
  onChange: (category: T) => void;
  anyLabel?: string;
  disabled?: boolean;
  hideLabel?: boolean;
}) {
  return (
    <label className="field memory-category">
      <span className={hideLabel ? "visually-hidden" : undefined}>{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value as T)} disabled={disabled}>
        {anyLabel !== undefined && <option value="">{anyLabel}</option>}
        {FACT_CATEGORIES.map((c) => (
          <option key={c} value={c}>
            {CATEGORY_LABELS[c]}
          </option>
        ))}
      </select>
    </label>
  );
}
