// @vitest-environment jsdom
// The runs console in Simplified Chinese: headers, statuses, counts and the timeline follow
// the language; people's addresses, model and tool names stay as they are.
import { cleanup, render, screen, within } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { i18next } from "../i18n";
import { consoleRun, detailWithSubagent, serveConsole } from "./fixtures";
import { RunDetailPage } from "./RunDetailPage";
import { RunsConsolePage } from "./RunsConsolePage";
import { RunTable } from "./RunTable";

beforeEach(async () => {
  await i18next.changeLanguage("zh-CN");
});

afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await i18next.changeLanguage("en");
});

describe("the runs console in Chinese", () => {
  it("heads the table's columns and names the status in Chinese", () => {
    render(
      <MemoryRouter>
        <RunTable runs={[consoleRun("r1", { tools: [{ name: "bash", calls: 3, errors: 1 }] })]} />
      </MemoryRouter>,
    );
    const table = screen.getByRole("table", { name: "运行记录" });
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual([
      "时间",
      "用户",
      "智能体",
      "状态",
      "耗时",
      "模型",
      "token 用量",
      "费用",
      "工具",
      "反馈",
      "错误",
    ]);
    expect(screen.getByTestId("run-status").textContent).toBe("成功");
    expect(screen.getByText("ada@example.com")).toBeTruthy();
    expect(screen.getByRole("list", { name: "使用的工具" })).toBeTruthy();
    expect(screen.getByTestId("tool-chip").getAttribute("aria-label")).toBe("bash：3 次调用，1 次失败");
  });

  it("counts the runs shown and offers the filters in Chinese", async () => {
    serveConsole([consoleRun("a"), consoleRun("b", { status: "error", error: "model refused" })], []);
    render(
      <MemoryRouter initialEntries={["/admin/runs"]}>
        <Routes>
          <Route path="/admin/runs" element={<RunsConsolePage />} />
        </Routes>
      </MemoryRouter>,
    );
    expect((await screen.findByTestId("run-count")).textContent).toBe("共 2 条运行，已显示 2 条");
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("运行记录");
    expect(screen.getByRole("button", { name: "自动刷新" })).toBeTruthy();
    const status = screen.getByLabelText("状态") as HTMLSelectElement;
    expect([...status.options].map((o) => o.textContent)).toEqual(["任意状态", "等待中", "运行中", "成功", "出错", "已中断", "超时"]);
    expect(screen.getByRole("button", { name: "清除筛选" })).toBeTruthy();
  });

  it("sums a run up and lays out its timeline in Chinese", async () => {
    serveConsole([], [detailWithSubagent()]);
    render(
      <MemoryRouter initialEntries={["/admin/runs/run-1"]}>
        <Routes>
          <Route path="/admin/runs/:runId" element={<RunDetailPage />} />
        </Routes>
      </MemoryRouter>,
    );
    expect((await screen.findByTestId("detail-status")).textContent).toBe("成功");
    expect(screen.getByText("已完成")).toBeTruthy();
    expect(screen.getByTestId("detail-tokens").textContent).toMatch(/^输入 .+ \/ 输出 .+ · 2 次调用$/);
    expect(screen.getByTestId("conversation-link").textContent).toBe("打开对话");
    expect(screen.getByRole("region", { name: "运行摘要" })).toBeTruthy();
    const [first] = screen.getAllByTestId("step-row");
    expect(within(first as HTMLElement).getByText("模型")).toBeTruthy();
    expect(within(first as HTMLElement).getByTestId("step-facts").textContent).toContain("结束原因：调用工具");
    expect(screen.getByRole("list", { name: "子智能体 general-purpose 的步骤" })).toBeTruthy();
    expect(screen.getByRole("link", { name: "运行" }).getAttribute("href")).toBe("/admin/runs/child-1");
    expect(screen.getAllByText("出错").length).toBeGreaterThan(0);
  });
});
