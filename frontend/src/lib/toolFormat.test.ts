import { describe, expect, it } from "vitest";
import type { ToolMessage } from "./messages";
import {
  formatArgs,
  mcpOrigin,
  resultImages,
  statusLabel,
  toolHeading,
  toolPurpose,
  toolResultView,
  toolSummary,
  toolTitle,
} from "./toolFormat";

const result = (extra: Partial<ToolMessage>): ToolMessage => ({
  type: "tool",
  id: "t",
  tool_call_id: "c",
  content: "",
  status: "success",
  ...extra,
});

describe("tool cards", () => {
  it("name and summarise common tools", () => {
    expect(toolTitle("bash")).toBe("Run command");
    expect(toolTitle("custom_tool")).toBe("custom_tool");
    expect(toolSummary({ name: "bash", args: { command: "python3 x.py\necho done" } })).toBe("$ python3 x.py …");
    expect(toolSummary({ name: "read_file", args: { path: "/mnt/skills/public/a/SKILL.md" } })).toBe("/mnt/skills/public/a/SKILL.md");
    expect(toolSummary({ name: "grep", args: { pattern: "TODO", path: "/w" } })).toBe("TODO in /w");
    expect(toolSummary({ name: "present_files", args: { filepaths: ["/mnt/user-data/outputs/a.skill", 3] } })).toBe("a.skill");
    expect(toolSummary({ name: "bash", args: { command: "x".repeat(300) } }).length).toBeLessThanOrEqual(122);
  });

  it("show the purpose and the arguments without it", () => {
    const args = { path: "/a", description: "Read the skill" };
    expect(toolPurpose({ args })).toBe("Read the skill");
    expect(JSON.parse(formatArgs(args))).toEqual({ path: "/a" });
    expect(formatArgs({ description: "only" })).toBe("");
  });

  it("split bash output from its exit code", () => {
    const ok = toolResultView(
      { name: "bash", args: {} },
      result({ content: "hello\n[exit code: 0]", artifact: { exit_code: 0, timed_out: false, cancelled: false } }),
    );
    expect(ok).toMatchObject({ status: "success", output: "hello", exitCode: 0 });
    expect(statusLabel(ok)).toBe("exit 0");
    const failed = toolResultView({ name: "bash", args: {} }, result({ content: "boom\n[stderr]\nno\n[exit code: 2]", status: "error" }));
    expect(failed).toMatchObject({ status: "error", output: "boom\n[stderr]\nno", exitCode: 2 });
    const slow = toolResultView(
      { name: "bash", args: {} },
      result({ content: "[timed out after 5s; the command and everything it started were killed]", artifact: { exit_code: null, timed_out: true } }),
    );
    expect(slow.status).toBe("error");
    expect(statusLabel(slow)).toBe("timed out");
  });

  it("mark errors and running calls", () => {
    expect(toolResultView({ name: "ls", args: {} }, undefined)).toEqual({ status: "running", output: "" });
    expect(statusLabel(toolResultView(undefined, undefined))).toBe("running…");
    const err = toolResultView({ name: "read_file", args: { path: "/x.py" } }, result({ content: "Error: no such file", status: "error" }));
    expect(err.status).toBe("error");
    expect(err.language).toBeUndefined();
    expect(statusLabel(err)).toBe("error");
  });

  it("highlight files read by their extension", () => {
    const view = toolResultView({ name: "read_file", args: { path: "/w/a.py" } }, result({ content: "print(1)" }));
    expect(view.language).toBe("python");
  });

  it("name MCP calls by server and tool, preferring the result's exact names", () => {
    expect(mcpOrigin("mcp__everything__get-tiny-image")).toEqual({ server: "everything", tool: "get-tiny-image" });
    expect(mcpOrigin("mcp__s__a__b")).toEqual({ server: "s", tool: "a__b" });
    expect(mcpOrigin("bash")).toBeUndefined();
    expect(mcpOrigin("mcp__")).toBeUndefined();
    expect(mcpOrigin("renamed", result({ artifact: { mcp: { server: "gh", tool: "list.issues" } } }))).toEqual({
      server: "gh",
      tool: "list.issues",
    });
    expect(toolHeading("mcp__time__now")).toEqual({ title: "now", mcp: { server: "time", tool: "now" } });
    expect(toolHeading("tool_search")).toEqual({ title: "Searched tools" });
    expect(toolSummary({ name: "tool_search", args: { query: "weather" } })).toBe("weather");
  });

  it("show only pictures from an MCP result's images", () => {
    const images = [{ mimeType: "image/png", data: "AAA" }, { mimeType: "text/html", data: "PHA+" }, "junk"];
    expect(resultImages(result({ artifact: { images } }))).toEqual(["data:image/png;base64,AAA"]);
    expect(resultImages(undefined)).toEqual([]);
  });
});
