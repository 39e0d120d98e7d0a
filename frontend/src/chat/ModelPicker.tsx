// The composer's model menu: the configured models, the default first, demo models marked.
import { useT } from "../i18n";
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
  const t = useT();
  return (
    <label className="composer-select" title={t("chat.modelPicker.title")}>
      <select aria-label={t("chat.modelPicker.label")} value={value} onChange={(e) => onChange(e.target.value)} disabled={disabled} data-testid="model-picker">
        {models.map((m) => (
          <option key={m.name} value={m.name}>
            {m.demo ? t("chat.modelPicker.demo", { name: m.name }) : m.name}
          </option>
        ))}
      </select>
    </label>
  );
}
