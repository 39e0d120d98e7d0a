import { describe, expect, it } from "vitest";
import { normalizeMathDelimiters } from "./math";

// Inputs that made the earlier regexes take seconds (cubic on unclosed backtick runs, quadratic
// on unclosed `\[` / `\(`): each is done in one pass now. The check is the output, not a timer;
// a regression shows as this file hanging.
describe("normalizeMathDelimiters on hostile input", () => {
  it("handles thousands of unclosed backticks", () => {
    const text = `a${"`".repeat(20_000)}\\[x\\]`;
    expect(normalizeMathDelimiters(text)).toBe(`a${"`".repeat(20_000)}$$x$$`);
  });
  it("handles runs of every length without closers", () => {
    const text = Array.from({ length: 400 }, (_, i) => "`".repeat(i + 1)).join("a") + "\\(y\\)";
    expect(normalizeMathDelimiters(text).endsWith("$$y$$")).toBe(true);
  });
  it("handles thousands of unclosed openers", () => {
    const display = "\\[".repeat(50_000);
    expect(normalizeMathDelimiters(display)).toBe(display);
    const inline = `${"\\(".repeat(50_000)}\n\\)`;
    expect(normalizeMathDelimiters(inline)).toBe(inline);
  });
  it("pairs an inline opener only with a closer on its line", () => {
    expect(normalizeMathDelimiters("\\(a\n\\(b\\)")).toBe("\\(a\n$$b$$");
  });
  it("keeps code spans and escaped brackets", () => {
    expect(normalizeMathDelimiters("`\\(x\\)` and \\(y\\)")).toBe("`\\(x\\)` and $$y$$");
    expect(normalizeMathDelimiters("``a ` \\(x\\)`` \\(z\\)")).toBe("``a ` \\(x\\)`` $$z$$");
    expect(normalizeMathDelimiters("\\\\[2pt] \\\\(no\\\\)")).toBe("\\\\[2pt] \\\\(no\\\\)");
  });
});
