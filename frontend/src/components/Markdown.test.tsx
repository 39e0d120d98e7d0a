import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown } from "./Markdown";

const html = (text: string) => renderToStaticMarkup(<Markdown text={text} />);

describe("Markdown", () => {
  it("never renders raw HTML or scripts", () => {
    const out = html('Hello <script>alert(1)</script> <img src=x onerror="alert(2)"> <b>bold</b>');
    expect(out).not.toContain("<script");
    expect(out).not.toContain("onerror");
    expect(out).not.toContain("<img");
    expect(out).not.toContain("<b>");
  });

  it("drops javascript: links and keeps safe ones (external ones open in a new tab)", () => {
    const out = html("[bad](javascript:alert(1)) [good](https://example.com) [rel](/settings/skills)");
    expect(out).not.toContain("javascript:");
    expect(out).toContain('href="https://example.com"');
    expect(out).toContain('rel="noopener noreferrer"');
    expect(out).toContain('href="/settings/skills"');
  });

  it("renders GFM tables, task lists and strikethrough", () => {
    const out = html("| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n~~old~~");
    expect(out).toContain("<table>");
    expect(out).toContain("<td>2</td>");
    expect(out).toContain('type="checkbox"');
    expect(out).toContain("<del>old</del>");
  });

  it("highlights fenced code and adds a copy button", () => {
    const out = html("```python\ndef f():\n    return 1\n```");
    expect(out).toContain('class="code-block"');
    expect(out).toContain("hljs-keyword");
    expect(out).toContain("Copy code");
    expect(out).toContain(">python<");
  });

  it("does not let unknown languages or classes through", () => {
    const out = html('```not-a-language\nx\n```\n\n<span class="evil">y</span>');
    expect(out).toContain("code-block");
    expect(out).not.toContain("evil");
  });
});
