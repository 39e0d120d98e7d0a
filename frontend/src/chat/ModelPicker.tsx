// The composer's model menu: the configured models, the default first, demo models marked.
import type { ModelCaps } from "../lib/modelChoice";

export function ModelPicker({
  models,
  value,
  onChange,
  disabled,
}: {
  models: ModelCaps[];
  value: string;
  onChange: (name: string) => void;
  disabled?: boolean;
}) {
  return (
    <label className="composer-select" title="The model that answers the next message">
      <select aria-label="Model" value={value} onChange={(e) => onChange(e.target.value)} disabled={disabled} data-testid="model-picker">
        {models.map((m) => (
          <option key={m.name} value={m.name}>
            {m.demo ? `${m.name} (demo)` : m.name}
          </option>
        ))}
      </select>
    </label>
  );
}
