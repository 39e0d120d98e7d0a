// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ModelCaps, ModelChoice } from "../lib/modelChoice";
import { ComposerOptions } from "./ComposerOptions";
import { UsageLimitBanner } from "./UsageLimitBanner";
import { UsageLine } from "./UsageLine";

afterEach(cleanup);

const demo: ModelCaps = { name: "demo", model: "mock", provider: "openai", supports_reasoning: false, supports_vision: false, supports_thinking: false, supports_reasoning_effort: false, demo: true };
const thinks: ModelCaps = { ...demo, name: "claude", demo: false, supports_thinking: true, context_window: 200_000 };
const effort: ModelCaps = { ...demo, name: "o4", demo: false, supports_thinking: true, supports_reasoning_effort: true, context_window: 1000 };

function renderOptions(choice: ModelChoice, used = 0) {
  const onChange = vi.fn();
  render(<ComposerOptions models={[demo, thinks, effort]} choice={choice} onChange={onChange} contextUsed={used} />);
  return onChange;
}

const off = (model_name: string): ModelChoice => ({ model_name, thinking: false, reasoning_effort: null });

describe("ComposerOptions", () => {
  it("lists the models with demo ones marked, and hides thinking and the meter for a model without them", () => {
    renderOptions(off("demo"));
    const picker = screen.getByRole("combobox", { name: "Model" });
    expect(Array.from((picker as HTMLSelectElement).options).map((o) => o.textContent)).toEqual(["demo (demo)", "claude", "o4"]);
    expect(screen.queryByRole("combobox", { name: "Thinking" })).toBeNull();
    expect(screen.queryByRole("meter")).toBeNull();
  });

  it("offers off/on for a thinking model and off/low/medium/high for an effort model", () => {
    renderOptions(off("claude"));
    const thinking = screen.getByRole("combobox", { name: "Thinking" }) as HTMLSelectElement;
    expect(Array.from(thinking.options).map((o) => o.value)).toEqual(["off", "on"]);
    cleanup();
    const onChange = renderOptions({ model_name: "o4", thinking: true, reasoning_effort: "medium" });
    const levels = screen.getByRole("combobox", { name: "Thinking" }) as HTMLSelectElement;
    expect(Array.from(levels.options).map((o) => o.textContent)).toEqual(["Off", "Low", "Medium", "High"]);
    expect(levels.value).toBe("medium");
    fireEvent.change(levels, { target: { value: "high" } });
    expect(onChange).toHaveBeenCalledWith({ model_name: "o4", thinking: true, reasoning_effort: "high" });
  });

  it("carries thinking over to the model picked where it has it", () => {
    const onChange = renderOptions({ model_name: "claude", thinking: true, reasoning_effort: null });
    fireEvent.change(screen.getByRole("combobox", { name: "Model" }), { target: { value: "o4" } });
    expect(onChange).toHaveBeenLastCalledWith({ model_name: "o4", thinking: true, reasoning_effort: "medium" });
    fireEvent.change(screen.getByRole("combobox", { name: "Model" }), { target: { value: "demo" } });
    expect(onChange).toHaveBeenLastCalledWith(off("demo"));
  });

  it("shows how full the context window is, with the figures in its tooltip", () => {
    renderOptions(off("o4"), 750);
    const meter = screen.getByRole("meter", { name: "Context window" });
    expect(meter.getAttribute("aria-valuenow")).toBe("750");
    expect(meter.getAttribute("aria-valuemax")).toBe("1000");
    expect(meter.textContent).toBe("75%");
    expect(meter.getAttribute("title")).toContain("750 of 1,000 tokens (75%)");
    expect(meter.className).toContain("context-meter-high");
  });
});

describe("usage and limits", () => {
  it("puts a reply's usage in one line, every figure in the tooltip", () => {
    render(<UsageLine usage={{ calls: 1, input: 1500, cached: 0, cacheWrite: 0, output: 42, reasoning: 0, cost: 0.0123, models: ["o4"] }} />);
    const line = screen.getByTestId("usage-line");
    expect(line.textContent).toBe("1.5k in · 0 cached · 42 out · $0.01");
    expect(line.getAttribute("title")).toBe("1 model call (o4)\nInput: 1,500 tokens (0 from cache)\nOutput: 42 tokens\nCost: $0.0123");
    expect(line.tabIndex).toBe(0);
  });

  it("says which limit was reached and when it resets", () => {
    render(<UsageLimitBanner limit={{ message: "Daily token limit of 100 reached.", resetsAt: "2030-01-02T00:00:00Z" }} />);
    const banner = screen.getByRole("alert");
    expect(banner.textContent).toContain("Daily usage limit reached.");
    expect(banner.textContent).toContain("Daily token limit of 100 reached.");
    expect(screen.getByTestId("usage-limit-reset").getAttribute("datetime")).toBe("2030-01-02T00:00:00Z");
  });
});
