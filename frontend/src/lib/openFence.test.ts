import { describe, expect, it } from "vitest";
import { fenceClosed } from "./openFence";

describe("fenceClosed", () => {
  it("needs a closing fence of the same kind, at least as long", () => {
    expect(fenceClosed("```mermaid\ngraph TD\n```")).toBe(true);
    expect(fenceClosed("````mermaid\na\n````\n")).toBe(true);
    expect(fenceClosed("~~~mermaid\na\n~~~")).toBe(true);
    expect(fenceClosed("```mermaid\ngraph TD\nA-->B")).toBe(false);
    expect(fenceClosed("```mermaid")).toBe(false);
    expect(fenceClosed("````mermaid\na\n```")).toBe(false);
    expect(fenceClosed("~~~mermaid\na\n```")).toBe(false);
  });

  it("reads fences inside quotes and treats indented code as complete", () => {
    expect(fenceClosed("> ```mermaid\n> a\n> ```")).toBe(true);
    expect(fenceClosed("    indented code")).toBe(true);
  });
});
