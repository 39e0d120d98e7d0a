import { describe, expect, it } from "vitest";
import { NO_PROGRESS, progressText, withProgress, withoutAnswered } from "./toolProgress";

describe("tool progress", () => {
  it("keeps the latest report per call, without totals or messages that say nothing", () => {
    let map = withProgress(NO_PROGRESS, { tool_call_id: "c", progress: 1, total: 0, message: "  " });
    expect(map).toEqual({ c: { progress: 1 } });
    map = withProgress(map, { tool_call_id: "c", progress: 2, total: 8, message: "reading" });
    expect(map).toEqual({ c: { progress: 2, total: 8, message: "reading" } });
    expect(withProgress(map, { tool_call_id: "c", progress: Number.NaN })).toBe(map);
  });

  it("forgets answered calls, and keeps the same map when nothing was answered", () => {
    const map = { a: { progress: 1 }, b: { progress: 2 } };
    const answer = { type: "tool", id: "t", tool_call_id: "a", content: "" };
    expect(withoutAnswered(map, [[answer, {}]])).toEqual({ b: { progress: 2 } });
    expect(withoutAnswered(map, [answer])).toEqual({ b: { progress: 2 } });
    expect(withoutAnswered(map, [{ type: "ai", id: "x" }, "junk", null])).toBe(map);
    expect(withoutAnswered(NO_PROGRESS, [answer])).toBe(NO_PROGRESS);
  });

  it("read as a count, or as a fraction and percentage of a known total", () => {
    expect(progressText({ progress: 3 })).toBe("3 so far");
    expect(progressText({ progress: 0.125, total: 1 })).toBe("0.13 / 1 (13%)");
    expect(progressText({ progress: 12, total: 10 })).toBe("12 / 10 (100%)");
  });
});
