// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { refusal, svgImage } from "./mermaid";

const decode = (url: string) => decodeURIComponent(url.slice(url.indexOf(",") + 1));

describe("svgImage", () => {
  it("gives the SVG its view box's size and makes it a data: image", () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="100%" style="max-width: 230.5px; background: white;" viewBox="0 0 230.5 174"><g class="node"><text>A</text></g></svg>';
    const image = svgImage(svg);
    expect(image.width).toBe(231);
    expect(image.height).toBe(174);
    expect(image.url.startsWith("data:image/svg+xml;charset=utf-8,")).toBe(true);
    const xml = decode(image.url);
    expect(xml).toContain('width="231"');
    expect(xml).toContain('height="174"');
    expect(xml).not.toContain("max-width");
    expect(xml).toContain("background: white");
    expect(xml).toContain('<g class="node"><text>A</text></g>');
  });

  it("refuses what is not an SVG", () => {
    expect(() => svgImage("<html><body>no</body></html>")).toThrow(/could not be drawn/);
    expect(() => svgImage("<svg><g></svg>")).toThrow(/could not be drawn/);
  });
});

describe("refusal", () => {
  it("refuses diagrams that would fetch from another site while drawing", () => {
    expect(refusal('flowchart TD\n  A@{ img: "https://evil.example/x.png", label: "x" }')).toMatch(/another site/);
    expect(refusal("flowchart TD\n  A-->B\n  classDef c fill:url(https://evil.example/p)")).toMatch(/another site/);
    expect(refusal("flowchart TD\n  A-->B\n  style A fill:#f9f,stroke:#333")).toBeNull();
  });
});
