import { describe, expect, it } from "vitest";
import { normalizeMathDelimiters } from "./math";

describe("normalizeMathDelimiters", () => {
  it("writes LaTeX's inline and display delimiters with dollars", () => {
    expect(normalizeMathDelimiters("so \\(x^2\\) holds")).toBe("so $$x^2$$ holds");
    expect(normalizeMathDelimiters("\\[\na+b\n\\]")).toBe("$$\na+b\n$$");
    expect(normalizeMathDelimiters("\\[ a+b \\]")).toBe("$$\na+b\n$$");
    expect(normalizeMathDelimiters("see \\[a\\] here")).toBe("see $$a$$ here");
  });

  it("keeps a container's prefix on the lines it adds", () => {
    expect(normalizeMathDelimiters("- item\n  \\[ y \\]")).toBe("- item\n  $$\n  y\n  $$");
    expect(normalizeMathDelimiters("> \\[\n> y\n> \\]")).toBe("> $$\n> y\n> $$");
  });

  it("leaves code, escaped backslashes and plain text alone", () => {
    const fenced = "```latex\n\\(x\\) and \\[y\\]\n```\n";
    expect(normalizeMathDelimiters(fenced)).toBe(fenced);
    expect(normalizeMathDelimiters("`\\(x\\)` and \\(y\\)")).toBe("`\\(x\\)` and $$y$$");
    expect(normalizeMathDelimiters("$$a \\\\[2pt] b$$")).toBe("$$a \\\\[2pt] b$$");
    expect(normalizeMathDelimiters("no math here")).toBe("no math here");
  });

  it("leaves everything after an unclosed fence as code", () => {
    expect(normalizeMathDelimiters("\\(a\\)\n```\n\\(b\\)")).toBe("$$a$$\n```\n\\(b\\)");
  });
});
