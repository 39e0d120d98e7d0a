// Follow-up suggestions under the latest answer, as buttons: clicking one sends it.
import { useT } from "../i18n";

export function SuggestionChips({
  items,
  onPick,
  disabled,
}: {
  items: string[];
  onPick: (text: string) => void;
  disabled?: boolean;
}) {
  const t = useT();
  if (items.length === 0) return null;
  return (
    <div className="suggestion-chips" role="group" aria-label={t("suggestions.label")} data-testid="suggestions">
      {items.map((text) => (
        <button
          key={text}
          type="button"
          className="suggestion-chip"
          disabled={disabled}
          onClick={() => onPick(text)}
          title={t("suggestions.send")}
        >
          {text}
        </button>
      ))}
    </div>
  );
}
