// Where a run's steps sit on its time axis: in percent of the whole run, subagents' steps on
// the same axis under their step, in the order they started.
import { describe, expect, it } from "vitest";
import { consoleRun, detailWithSubagent, step } from "./fixtures";
import { axisOf, barOf, layoutTimeline, MIN_WIDTH } from "./timelineLayout";
import type { ConsoleRunDetail } from "./types";

const rounded = (bar: { left: number; width: number }) => ({ left: +bar.left.toFixed(3), width: +bar.width.toFixed(3) });

describe("the timeline layout", () => {
  it("spans the run from its creation to its end", () => {
    const axis = axisOf(detailWithSubagent());
    expect(axis).toEqual({ origin: Date.parse("2026-03-01T10:00:00Z"), span: 10_000 });
  });

  it("places and scales each step by its start and duration within the run", () => {
    const rows = layoutTimeline(detailWithSubagent());
    expect(rows.map((r) => [r.step.kind, r.step.name])).toEqual([
      ["model_call", "gpt-4o-mini"],
      ["tool_call", "read_file"],
      ["subagent", "general-purpose"],
      ["model_call", "gpt-4o-mini"],
    ]);
    expect(rows.map((r) => rounded(r.bar))).toEqual([
      { left: 0, width: 20 },
      { left: 20, width: 5 },
      { left: 40, width: 40 },
      { left: 90, width: 10 },
    ]);
  });

  it("nests a subagent's steps under its step, on the parent's axis", () => {
    const [, , sub] = layoutTimeline(detailWithSubagent());
    expect(sub?.child?.run.run_id).toBe("child-1");
    expect(sub?.rows.map((r) => [r.depth, r.step.kind, rounded(r.bar)])).toEqual([
      [1, "model_call", { left: 40, width: 10 }],
      [1, "tool_call", { left: 50, width: 30 }],
    ]);
  });

  it("orders steps by when they started, whatever order they were recorded in", () => {
    const detail: ConsoleRunDetail = {
      run: consoleRun("r", { duration_ms: 1000 }),
      timeline: [step("tool_call", "late", 600, 100), step("model_call", "early", 0, 500)],
      subagents: [],
    };
    expect(layoutTimeline(detail).map((r) => r.step.name)).toEqual(["early", "late"]);
  });

  it("keeps an instant step visible and every bar inside the axis", () => {
    const axis = { origin: Date.parse("2026-03-01T10:00:00Z"), span: 1000 };
    expect(barOf("2026-03-01T10:00:00.500Z", 0, axis)).toEqual({ left: 50, width: MIN_WIDTH });
    expect(barOf("2026-03-01T10:00:01.000Z", 0, axis)).toEqual({ left: 100 - MIN_WIDTH, width: MIN_WIDTH });
    expect(barOf("2026-03-01T10:00:00.800Z", 5000, axis)).toEqual({ left: 80, width: 20 });
  });

  it("widens the axis to steps that end after the run's recorded end", () => {
    const detail: ConsoleRunDetail = {
      run: consoleRun("r", { duration_ms: 1000 }),
      timeline: [step("model_call", "m", 0, 4000)],
      subagents: [],
    };
    expect(axisOf(detail).span).toBe(4000);
  });

  it("lists a subagent run that no step names after the steps", () => {
    const detail = detailWithSubagent();
    detail.timeline = detail.timeline.filter((s) => s.kind !== "subagent");
    const rows = layoutTimeline(detail);
    const last = rows.at(-1);
    expect(last?.step).toMatchObject({ kind: "subagent", child_run_id: "child-1", duration_ms: 4000, status: "ok" });
    expect(rounded(last?.bar ?? { left: 0, width: 0 })).toEqual({ left: 40, width: 40 });
    expect(last?.rows).toHaveLength(2);
  });

  it("has no rows for a run without a timeline", () => {
    expect(layoutTimeline({ run: consoleRun("r"), timeline: [], subagents: [] })).toEqual([]);
  });
});
