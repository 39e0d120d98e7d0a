// The model and thinking level a run asks for (`context.model_name`, `thinking`,
// `reasoning_effort`): read from a thread's `metadata.model_choice`, made valid for the
// configured models, and turned into the run's context.
import type { ModelInfo } from "../api/types";

export type ReasoningEffort = "low" | "medium" | "high";
/** What the thinking control shows: off/on, or off and an effort where the model has one. */
export type ThinkingLevel = "off" | "on" | ReasoningEffort;

export interface ModelChoice {
  model_name: string;
  thinking: boolean;
  reasoning_effort: ReasoningEffort | null;
}

/** A model as `GET /api/models` lists it, capabilities included. */
export type ModelCaps = ModelInfo;

export const EFFORTS: readonly ReasoningEffort[] = ["low", "medium", "high"];

const isEffort = (v: unknown): v is ReasoningEffort => typeof v === "string" && (EFFORTS as readonly string[]).includes(v);

/** A choice as stored (`thread.metadata.model_choice`, local storage); none when malformed. */
export function parseChoice(value: unknown): ModelChoice | undefined {
  if (!value || typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v["model_name"] !== "string" || !v["model_name"]) return undefined;
  const effort = isEffort(v["reasoning_effort"]) ? v["reasoning_effort"] : null;
  return { model_name: v["model_name"], thinking: v["thinking"] === true || (effort !== null && v["thinking"] !== false), reasoning_effort: effort };
}

/** The levels the thinking control offers for `model`: none when it cannot think. */
export function levelsOf(model: ModelCaps | undefined): ThinkingLevel[] {
  if (!model?.supports_thinking) return [];
  return model.supports_reasoning_effort ? ["off", ...EFFORTS] : ["off", "on"];
}

/** The level a (valid) choice shows. */
export function levelOf(choice: ModelChoice): ThinkingLevel {
  if (!choice.thinking) return "off";
  return choice.reasoning_effort ?? "on";
}

/** The choice a level makes on `model`. */
export function withLevel(choice: ModelChoice, level: ThinkingLevel): ModelChoice {
  if (level === "off") return { ...choice, thinking: false, reasoning_effort: null };
  if (level === "on") return { ...choice, thinking: true, reasoning_effort: null };
  return { ...choice, thinking: true, reasoning_effort: level };
}

/**
 * `choice` made valid for the configured `models`: an unknown model becomes `fallback` (the
 * default); thinking only where the model has it; an effort only where it takes one (a model
 * with efforts asked to just think thinks at medium). None when no model is configured.
 */
export function normalizeChoice(
  choice: ModelChoice | undefined,
  models: ModelCaps[],
  fallback?: string,
): ModelChoice | undefined {
  const model =
    models.find((m) => m.name === choice?.model_name) ?? models.find((m) => m.name === fallback) ?? models[0];
  if (!model) return undefined;
  const same = model.name === choice?.model_name;
  const thinking = same && !!choice?.thinking && !!model.supports_thinking;
  let effort: ReasoningEffort | null = null;
  if (thinking && model.supports_reasoning_effort) effort = choice?.reasoning_effort ?? "medium";
  return { model_name: model.name, thinking, reasoning_effort: effort };
}

/** The run's `context` keys for a choice (no effort key when there is none). */
export function choiceContext(choice: ModelChoice): Record<string, unknown> {
  return {
    model_name: choice.model_name,
    thinking: choice.thinking,
    ...(choice.reasoning_effort ? { reasoning_effort: choice.reasoning_effort } : {}),
  };
}

/** A level for people ("Off", "On", "Low"…). */
export const levelLabel = (level: ThinkingLevel): string => level.charAt(0).toUpperCase() + level.slice(1);
