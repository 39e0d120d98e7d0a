// The composer's thinking menu: off/on, or off/low/medium/high for models that take an
// effort; not shown for models that cannot think.
import { useT } from "../i18n";
import { type ThinkingLevel, levelLabel } from "../lib/modelChoice";

export function ThinkingControl({
  levels,
  value,
  onChange,
  disabled,
}: {
  levels: ThinkingLevel[];
  value: ThinkingLevel;
  onChange: (level: ThinkingLevel) => void;
  disabled?: boolean;
}) {
  const t = useT();
  if (levels.length === 0) return null;
  const effort = levels.includes("medium");
  return (
    <label
      className="composer-select"
      title={effort ? t("chat.thinking.effortTitle") : t("chat.thinking.onTitle")}
    >
      <span className="composer-select-label" aria-hidden="true">
        {t("chat.thinking.label")}
      </span>
      <select
        aria-label={t("chat.thinking.label")}
        value={value}
        onChange={(e) => onChange(e.target.value as ThinkingLevel)}
        disabled={disabled}
        data-testid="thinking-control"
      >
        {levels.map((l) => (
          <option key={l} value={l}>
            {levelLabel(l)}
          </option>
        ))}
      </select>
    </label>
  );
}
