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

  it("says what a command connected to, refusals first in red, and lists each connection", () => {
    const network = [
      { host: "pypi.org", port: 443, method: "connect", allowed: true, bytes_sent: 1000, bytes_received: 3_100_000, duration_ms: 5 },
      { host: "files.pythonhosted.org", port: 443, method: "connect", allowed: true, bytes_sent: 0, bytes_received: 0, duration_ms: 5 },
      { host: "evil.test", port: 443, method: "connect", allowed: false, error: "evil.test is not in the egress allow-list", bytes_sent: 0, bytes_received: 0, duration_ms: 1 },
    ];
    render(
      <ToolCard
        call={{ name: "bash", id: "c1", args: { command: "pip install --user x" } }}
        result={{
          type: "tool",
          id: "t",
          tool_call_id: "c1",
          name: "bash",
          content: "Installed\n[exit code: 0]\n[network: 3 hosts, 3.1 MB; refused evil.test:443: evil.test is not in the egress allow-list]",
          artifact: { exit_code: 0, timed_out: false, network },
        }}
      />,
    );
    const line = screen.getByTestId("tool-network");
    expect(line.textContent).toBe("network: 3 hosts, 3.1 MB; 1 refused");
    expect(line.className).toContain("tool-network-refused");
    expect(screen.getByRole("button").textContent).toContain("exit 0");
    fireEvent.click(screen.getByRole("button"));
    expect(screen.getByTestId("tool-output").textContent).toBe("Installed");
    const items = screen.getByTestId("tool-connections").querySelectorAll("li");
    expect(items).toHaveLength(3);
    expect(items[0]?.textContent).toContain("pypi.org:443");
    expect(items[0]?.textContent).toContain("3.1 MB ↓");
    expect(items[2]?.textContent).toContain("refused — evil.test is not in the egress allow-list");
  });

  it("shows a running call without a result", () => {
    render(<ToolCard call={{ name: "read_file", id: "c", args: { path: "/mnt/skills/public/a/SKILL.md" } }} />);
    expect(screen.getByRole("button").textContent).toContain("running…");
  });

  it("labels an MCP call with its server and names it by its MCP tool", () => {
    render(<ToolCard call={{ name: "mcp__everything__echo", id: "c", args: { message: "hi" } }} />);
    const head = screen.getByRole("button");
    expect(screen.getByTestId("tool-origin").textContent).toBe("MCP · everything");
    expect(head.querySelector(".tool-title")?.textContent).toBe("echo");
    expect(head.querySelector(".tool-title")?.getAttribute("title")).toBe("mcp__everything__echo");
  });

  it("takes the exact MCP names from the result's artifact, and shows the images it returned", () => {
    render(
      <ToolCard
        call={{ name: "mcp__gh__a_b_", id: "c", args: {} }}
        result={{
          type: "tool",
          id: "t",
          tool_call_id: "c",
          name: "mcp__gh__a_b_",
          status: "success",
          content: "[image image/png, shown to you next]",
          artifact: { mcp: { server: "gh", tool: "a.b?" }, images: [{ mimeType: "image/png", data: "iVBORw0KGgo=" }] },
        }}
      />,
    );
    expect(screen.getByTestId("tool-origin").textContent).toBe("MCP · gh");
    const head = screen.getByRole("button");
    expect(head.querySelector(".tool-title")?.textContent).toBe("a.b?");
    fireEvent.click(head);
    expect(screen.getByRole("img", { name: "Image 1 from a.b?" }).getAttribute("src")).toBe(
      "data:image/png;base64,iVBORw0KGgo=",
    );
  });

  it("shows a running call's progress as a bar when the total is known, with its message", () => {
    render(
      <ToolCard
        call={{ name: "mcp__many__slow", id: "c", args: {} }}
        progress={{ progress: 3, total: 10, message: "step 3" }}
      />,
    );
    const bar = screen.getByRole("progressbar", { name: "Progress of slow" }) as HTMLProgressElement;
    expect(bar.value).toBe(3);
    expect(bar.max).toBe(10);
    expect(screen.getByTestId("tool-progress").textContent).toBe("3 / 10 (30%)step 3");
  });

  it("shows only the count when the total is unknown, and no progress once the result is in", () => {
    const call = { name: "mcp__many__slow", id: "c", args: {} };
    const { rerender } = render(<ToolCard call={call} progress={{ progress: 7 }} />);
    expect(screen.queryByRole("progressbar")).toBeNull();
    expect(screen.getByTestId("tool-progress").textContent).toBe("7 so far");
    rerender(
      <ToolCard
        call={call}
        progress={{ progress: 7 }}
        result={{ type: "tool", id: "t", tool_call_id: "c", status: "success", content: "slept" }}
      />,
    );
    expect(screen.queryByTestId("tool-progress")).toBeNull();
  });

  it("calls a tool search “Searched tools”, with its query", () => {
    render(<ToolCard call={{ name: "tool_search", id: "c", args: { query: "convert currency" } }} />);
    const head = screen.getByRole("button");
    expect(head.querySelector(".tool-title")?.textContent).toBe("Searched tools");
    expect(head.textContent).toContain("convert currency");
    expect(screen.queryByTestId("tool-origin")).toBeNull();
  });

  it("calls write_todos “Updated the plan” with how much is done, and shows the plan as a checklist", () => {
    render(
      <ToolCard
        call={{
          name: "write_todos",
          id: "c",
          args: {
            todos: [
              { content: "Read the data", status: "completed" },
              { content: "Write the report", status: "in_progress" },
            ],
          },
        }}
        result={{ type: "tool", id: "t", tool_call_id: "c", name: "write_todos", status: "success", content: "The plan is updated: 1 of 2 done." }}
      />,
    );
    const head = screen.getByRole("button");
    expect(head.querySelector(".tool-title")?.textContent).toBe("Updated the plan");
    expect(head.querySelector(".tool-summary")?.textContent).toBe("1 of 2 done");
    fireEvent.click(head);
    const list = screen.getByRole("list", { name: "The plan as written" });
    expect(Array.from(list.querySelectorAll("li")).map((li) => li.textContent)).toEqual(["✓Read the data", "◐Write the report"]);
    expect(screen.queryByText(/"status"/)).toBeNull();
  });

  it("gives a write_todos call still streaming its arguments no summary yet", () => {
    render(<ToolCard call={{ name: "write_todos", id: "c", args: {} }} />);
    const head = screen.getByRole("button");
    expect(head.querySelector(".tool-title")?.textContent).toBe("Updated the plan");
    expect(head.querySelector(".tool-summary")).toBeNull();
  });
});
