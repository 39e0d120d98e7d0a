// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ToolCard } from "./ToolCard";

afterEach(cleanup);

describe("ToolCard", () => {
  it("is compact until expanded, then shows the command, output and a failing exit code in red", () => {
    render(
      <ToolCard
        call={{ name: "bash", id: "c1", args: { command: "make build", description: "Build it" } }}
        result={{ type: "tool", id: "t", tool_call_id: "c1", name: "bash", status: "error", content: "boom\n[exit code: 2]", artifact: { exit_code: 2, timed_out: false } }}
      />,
    );
    const head = screen.getByRole("button", { expanded: false });
    expect(head.textContent).toContain("Run command");
    expect(head.textContent).toContain("$ make build");
    expect(head.textContent).toContain("exit 2");
    expect(screen.getByText("Build it")).toBeTruthy();
    expect(screen.queryByTestId("tool-output")).toBeNull();
    fireEvent.click(head);
    expect(head.getAttribute("aria-expanded")).toBe("true");
    const output = screen.getByTestId("tool-output");
    expect(output.textContent).toBe("boom");
    expect(output.className).toContain("tool-output-error");
    expect(screen.getByText("exit code 2")).toBeTruthy();
    expect(screen.getByTestId("tool-card").className).toContain("tool-error");
  });

  it("shows a running call without a result", () => {
    render(<ToolCard call={{ name: "read_file", id: "c", args: { path: "/mnt/skills/public/a/SKILL.md" } }} />);
    expect(screen.getByRole("button").textContent).toContain("running…");
  });
});
