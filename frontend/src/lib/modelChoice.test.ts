import { describe, expect, it } from "vitest";
import {
  type ModelCaps,
  choiceContext,
  levelOf,
  levelsOf,
  normalizeChoice,
  parseChoice,
  withLevel,
} from "./modelChoice";

const plain: ModelCaps = { name: "fast", model: "m", provider: "openai", supports_reasoning: false, supports_vision: false, supports_thinking: false, supports_reasoning_effort: false, demo: false };
const thinks: ModelCaps = { ...plain, name: "claude", supports_thinking: true, context_window: 200_000 };
const effort: ModelCaps = { ...plain, name: "o4", supports_thinking: true, supports_reasoning_effort: true };
const models = [plain, thinks, effort];

describe("model choice", () => {
  it("reads a thread's stored choice, where an effort means thinking unless thinking is off", () => {
    expect(parseChoice({ model_name: "o4", thinking: true, reasoning_effort: "high" })).toEqual({
      model_name: "o4",
      thinking: true,
      reasoning_effort: "high",
    });
    expect(parseChoice({ model_name: "o4", reasoning_effort: "low" })?.thinking).toBe(true);
    expect(parseChoice({ model_name: "o4", thinking: false, reasoning_effort: "low" })?.thinking).toBe(false);
    expect(parseChoice({ model_name: "o4", reasoning_effort: "extreme" })).toEqual({
      model_name: "o4",
      thinking: false,
      reasoning_effort: null,
    });
    expect(parseChoice({ thinking: true })).toBeUndefined();
    expect(parseChoice("o4")).toBeUndefined();
  });

  it("offers off/on to thinking models, off and three efforts to effort models, nothing to others", () => {
    expect(levelsOf(plain)).toEqual([]);
    expect(levelsOf(thinks)).toEqual(["off", "on"]);
    expect(levelsOf(effort)).toEqual(["off", "low", "medium", "high"]);
    expect(levelsOf(undefined)).toEqual([]);
  });

  it("makes a choice valid for the configured models", () => {
    // An unknown model becomes the default, with thinking off.
    expect(normalizeChoice({ model_name: "gone", thinking: true, reasoning_effort: "high" }, models, "claude")).toEqual({
      model_name: "claude",
      thinking: false,
      reasoning_effort: null,
    });
    // Nothing chosen: the first model.
    expect(normalizeChoice(undefined, models)?.model_name).toBe("fast");
    // Thinking asked of a model that cannot think is dropped; an effort of a model without efforts too.
    expect(normalizeChoice({ model_name: "fast", thinking: true, reasoning_effort: null }, models)?.thinking).toBe(false);
    expect(normalizeChoice({ model_name: "claude", thinking: true, reasoning_effort: "high" }, models)).toEqual({
      model_name: "claude",
      thinking: true,
      reasoning_effort: null,
    });
    // A model with efforts asked to just think thinks at medium.
    expect(normalizeChoice({ model_name: "o4", thinking: true, reasoning_effort: null }, models)?.reasoning_effort).toBe("medium");
    expect(normalizeChoice({ model_name: "o4", thinking: false, reasoning_effort: null }, [])).toBeUndefined();
  });

  it("turns levels into choices and choices into the run's context", () => {
    const base = { model_name: "o4", thinking: false, reasoning_effort: null };
    const high = withLevel(base, "high");
    expect(high).toEqual({ model_name: "o4", thinking: true, reasoning_effort: "high" });
    expect(levelOf(high)).toBe("high");
    expect(levelOf(withLevel(high, "on"))).toBe("on");
    expect(levelOf(withLevel(high, "off"))).toBe("off");
    expect(choiceContext(high)).toEqual({ model_name: "o4", thinking: true, reasoning_effort: "high" });
    expect(choiceContext(base)).toEqual({ model_name: "o4", thinking: false });
  });
});
