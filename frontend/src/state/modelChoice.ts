// The model choice new conversations start with (the last one picked, remembered in the
// browser) and the configured models, kept outside React so a thread's runs can make their
// choice valid when they start.
import { type ModelCaps, type ModelChoice, normalizeChoice, parseChoice } from "../lib/modelChoice";
import { readSetting, writeSetting } from "../lib/storage";
import { agentModel } from "./assistants";
import { Store } from "./store";

const KEY = "antler-model-choice";

function stored(): ModelChoice | undefined {
  const text = readSetting(KEY);
  if (!text) return undefined;
  try {
    return parseChoice(JSON.parse(text));
  } catch {
    return undefined;
  }
}

export interface ModelsState {
  /** `GET /api/models`, once loaded. */
  models: ModelCaps[];
  /** The default model's name. */
  defaultModel?: string | undefined;
  /** The choice last picked (it may name a model no longer configured). */
  remembered?: ModelChoice | undefined;
}

export const modelsStore = new Store<ModelsState>({ models: [], remembered: stored() });

/** The configured models arrived. */
export function setModels(models: ModelCaps[], defaultModel: string | undefined): void {
  modelsStore.update({ models, defaultModel });
}

/** Remembers a choice for new conversations. */
export function rememberChoice(choice: ModelChoice): void {
  writeSetting(KEY, JSON.stringify(choice));
  modelsStore.update({ remembered: choice });
}

/** `choice` (else the remembered one) made valid for the configured models; none before
 * they are loaded or when there are none. */
export function effectiveChoice(choice: ModelChoice | undefined, s: ModelsState = modelsStore.get()): ModelChoice | undefined {
  return normalizeChoice(choice ?? s.remembered, s.models, s.defaultModel);
}

/**
 * The choice a conversation of `assistantId` starts with when it has none of its own: the
 * agent's own model when it names one (the thinking level last picked, where that model has
 * it), else none (the one remembered for new chats applies).
 */
export function agentChoice(assistantId: string | null | undefined, s: ModelsState = modelsStore.get()): ModelChoice | undefined {
  const model = agentModel(assistantId);
  if (!model) return undefined;
  const remembered = s.remembered;
  return { model_name: model, thinking: remembered?.thinking ?? false, reasoning_effort: remembered?.reasoning_effort ?? null };
}
