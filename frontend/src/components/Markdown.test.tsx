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

  it("renders inline and display math with KaTeX", () => {
    const out = html("Inline $E = mc^2$ and display:\n\n$$\n\\int_0^1 x\\,dx\n$$\n\nand \\(a^2\\) too");
    expect(out.match(/class="katex"/g)?.length).toBe(3);
    expect(out).toContain('class="katex-display"');
    expect(out).toContain('<annotation encoding="application/x-tex">E = mc^2</annotation>');
    expect(out).toContain('<annotation encoding="application/x-tex">a^2</annotation>');
  });

  it("shows a broken formula's source marked as an error instead of failing", () => {
    const out = html("before $\\frac{1}{$ after");
    expect(out).toContain('class="katex-error"');
    expect(out).toContain(">\\frac{1}{</span>");
    expect(out).toContain("after");
  });

  it("keeps prices in prose as text", () => {
    expect(html("It costs $5 and $10 in total.")).toBe('<div class="markdown "><p>It costs $5 and $10 in total.</p></div>');
    expect(html("From $5.00-$10.00 each")).not.toContain("katex");
    expect(html("Let $x$ be $y$.")).toContain('class="katex"');
  });

  it("never turns markup or links inside math into live markup", () => {
    const out = html(
      "$<script>alert(1)</script>$ and $$<img src=x onerror=alert(2)>$$ and $\\href{javascript:alert(3)}{x}$\n\n" +
        "$$\n\\url{javascript:alert(4)} \\htmlClass{evil}{y} \\htmlData{x=1}{z}\n$$",
    );
    expect(out).not.toContain("<script");
    expect(out).not.toContain("<img");
    // The text survives only as text (in KaTeX's annotation), never as a tag or attribute.
    expect(out).not.toMatch(/<[a-z][^>]*\son\w+=/i);
    expect(out).toContain("&lt;img src=x onerror=alert(2)&gt;");
    expect(out).not.toContain('href="javascript');
    expect(out).not.toContain("<a ");
    expect(out).not.toContain('class="evil"');
    expect(out).not.toContain("data-x");
  });

  it("stops formulas that expand without end and caps sizes", () => {
    const out = html("$\\def\\a{\\a\\a}\\a$ and $\\rule{100000em}{1em}$");
    expect(out).toContain('class="katex-error"');
    expect(out).toContain("border-right-width:50em");
    expect(out).not.toContain("width:100000em");
  });

  it("waits for a mermaid block's closing fence before drawing it", () => {
    const open = html("```mermaid\ngraph TD\nA-->B");
    expect(open).not.toContain('data-testid="mermaid"');
    expect(open).toContain("graph TD");
    const closed = html("```mermaid\ngraph TD\nA-->B\n```\n\nafter");
    expect(closed).toContain('data-testid="mermaid"');
    expect(closed).toContain('data-state="drawing"');
  });

  it("keeps a mermaid block's hostile source as text", () => {
    const out = html('```mermaid\ngraph TD\nA["<img src=x onerror=alert(1)>"] --> B\nclick A call alert()\n```');
    expect(out).not.toContain("<img");
    expect(out).toContain("Copy source");
  });
});

