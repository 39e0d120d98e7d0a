// @vitest-environment jsdom
// A conversation's files in Simplified Chinese: the list, the empty and missing states and
// a file's actions; file names and paths stay as they are.
import { cleanup, render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Artifact } from "../api/types";
import { i18next } from "../i18n";
import { pathOf } from "../test/fetch";
import { ArtifactBrowser } from "./ArtifactBrowser";
import { ArtifactView } from "./ArtifactView";

const file = (path: string, size = 2048, content_type = "text/plain"): Artifact => ({
  virtual_path: path,
  artifact_url: `/api/threads/t1/artifacts${path}`,
  size,
  modified_at: "2026-03-01T10:00:00Z",
  content_type,
});

function serveFiles(artifacts: Artifact[]) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) =>
      pathOf(input) === "/api/threads/t1/artifacts"
        ? new Response(JSON.stringify({ artifacts }), { status: 200, headers: { "content-type": "application/json" } })
        : new Response("a,b\n1,2\n", { status: 200 }),
    ),
  );
}

beforeEach(async () => {
  await i18next.changeLanguage("zh-CN");
});

afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await i18next.changeLanguage("en");
});

describe("files in Chinese", () => {
  it("groups files under Chinese folder names and asks to pick one", async () => {
    serveFiles([file("/mnt/user-data/outputs/report.md"), file("/mnt/user-data/uploads/data.csv")]);
    render(
      <MemoryRouter>
        <ArtifactBrowser threadId="t1" selected={null} onSelect={() => undefined} version={0} layout="page" />
      </MemoryRouter>,
    );
    expect(await screen.findByRole("region", { name: "输出" })).toBeTruthy();
    expect(screen.getByRole("region", { name: "上传" })).toBeTruthy();
    expect(screen.getByText("report.md")).toBeTruthy();
    expect(screen.getByText("选择文件")).toBeTruthy();
    expect(screen.getByRole("navigation", { name: "文件" })).toBeTruthy();
  });

  it("says when there are no files, and when the chosen one is missing", async () => {
    serveFiles([]);
    render(
      <MemoryRouter>
        <ArtifactBrowser threadId="t1" selected="/mnt/user-data/outputs/gone.txt" onSelect={() => undefined} version={0} layout="panel" />
      </MemoryRouter>,
    );
    expect(await screen.findByText("还没有文件")).toBeTruthy();
    expect(screen.getByText("找不到文件")).toBeTruthy();
    expect(screen.getByText("/mnt/user-data/outputs/gone.txt").parentElement?.textContent).toContain("不在此对话的文件中。");
  });

  it("offers a file's download and counts a CSV's rows and columns in Chinese", async () => {
    serveFiles([]);
    render(<ArtifactView artifact={file("/mnt/user-data/outputs/data.csv", 8, "text/csv")} threadId="t1" onBack={() => undefined} />);
    expect(screen.getByRole("link", { name: "下载" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "返回全部文件" })).toBeTruthy();
    expect(await screen.findByText("1 行，2 列。")).toBeTruthy();
  });
});
