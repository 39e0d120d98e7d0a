// The composer's second row: the model and thinking level the next message asks for, and how
// full the model's context window is. One fixed-height row, so nothing below it moves when
// the thinking menu comes and goes or the meter fills.
import { type ModelCaps, type ModelChoice, levelOf, levelsOf, normalizeChoice, withLevel } from "../lib/modelChoice";
import { ContextMeter } from "./ContextMeter";
import { ModelPicker } from "./ModelPicker";
import { ThinkingControl } from "./ThinkingControl";

export interface ComposerOptionsProps {
  models: ModelCaps[];
  /** The choice shown (already valid for `models`). */
  choice: ModelChoice;
  onChange: (choice: ModelChoice) => void;
  /** Tokens the next request starts from (the last answer's input and output). */
  contextUsed: number;
  disabled?: boolean;
}

export function ComposerOptions({ models, choice, onChange, contextUsed, disabled }: ComposerOptionsProps) {
  const model = models.find((m) => m.name === choice.model_name);
  const levels = levelsOf(model);
  const pickModel = (name: string) => {
    // The thinking level carries over where the new model has it.
    const next = normalizeChoice({ ...choice, model_name: name }, models);
    if (next) onChange(next);
  };
  return (
    <div className="composer-options" data-testid="composer-options">
      <ModelPicker models={models} value={choice.model_name} onChange={pickModel} disabled={disabled} />
      <ThinkingControl
        levels={levels}
        value={levelOf(choice)}
        onChange={(level) => onChange(withLevel(choice, level))}
        disabled={disabled}
      />
      <span className="composer-options-spacer" />
      <ContextMeter used={contextUsed} window={model?.context_window} />
    </div>
  );
}
