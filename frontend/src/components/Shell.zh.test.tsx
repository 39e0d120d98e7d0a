// @vitest-environment jsdom
// The frame in Simplified Chinese: navigation, banners, the theme switch and the shared
// dialogs follow the language, also when it changes while they are on screen.
import { act, cleanup, render, screen } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { ArchivePreview } from "../api/types";
import { i18next } from "../i18n";
import { AppInfoProvider } from "../state/appInfo";
import { polyfillDialog } from "../test/dialog";
import { pathOf } from "../test/fetch";
import { ArchiveSummary, EntryList } from "./ArchiveDetails";
import { ConfirmDialog } from "./Dialog";
import { Shell } from "./Shell";
import { ErrorState, Spinner } from "./States";

function serve(models: unknown, sandbox = "docker") {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo) => {
      const body = pathOf(input) === "/health" ? { status: "ok", version: "0.1.0", sandbox, warnings: [] } : models;
      return new Response(JSON.stringify(body), { status: 200 });
    }),
  );
}

function renderShell() {
  render(
    <MemoryRouter>
      <AppInfoProvider>
        <Routes>
          <Route element={<Shell />}>
            <Route path="/" element={<p>page</p>} />
          </Route>
        </Routes>
      </AppInfoProvider>
    </MemoryRouter>,
  );
}

const navTexts = () =>
  screen
    .getAllByRole("link")
    .filter((a) => a.closest("nav"))
    .map((a) => a.textContent);

/** Words of three or more Latin letters in `el`'s text, outside `<code>` (names stay as they are). */
function latinWords(el: HTMLElement): string[] {
  const copy = el.cloneNode(true) as HTMLElement;
  for (const code of copy.querySelectorAll("code")) code.remove();
  return copy.textContent?.match(/[A-Za-z]{3,}/g) ?? [];
}

beforeAll(polyfillDialog);

beforeEach(async () => {
  await i18next.changeLanguage("zh-CN");
});

afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await i18next.changeLanguage("en");
});

describe("the shell in Chinese", () => {
  it("names the pages and explains a missing model and sandbox in Chinese, keeping the variable names", async () => {
    serve({ models: [], default: null }, "local");
    renderShell();
    const banner = await screen.findByTestId("no-model-banner");
    expect(banner.textContent).toContain("未配置模型。");
    expect([...banner.querySelectorAll("code")].map((c) => c.textContent)).toEqual([
      "ANTLER_MODEL_BASE_URL",
      "ANTLER_MODEL",
      "OPENAI_API_KEY",
      "make demo",
    ]);
    expect(latinWords(banner)).toEqual([]);
    expect(screen.getByText(/没有 Docker 沙箱/)).toBeTruthy();
    expect(navTexts()).toEqual(["聊天", "定时任务", "技能", "智能体", "工具", "记忆"]);
    expect(screen.getByRole("navigation", { name: "主导航" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "打开对话列表" })).toBeTruthy();
    expect(screen.getByTestId("theme-toggle").getAttribute("aria-label")).toMatch(/^主题：跟随系统（当前为(浅色|深色)）。切换为浅色。$/);
    expect(screen.getByText("跳到主要内容")).toBeTruthy();
  });

  it("labels a demo model in Chinese", async () => {
    serve({ models: [{ name: "demo", model: "mock", supports_reasoning: false, demo: true }], default: "demo" });
    renderShell();
    const label = await screen.findByTestId("model-label");
    expect(label.textContent).toBe("demo脚本演示");
    expect(label.getAttribute("title")).toBe("模型：mock");
  });

  it("switches the mounted page's language at once", async () => {
    await i18next.changeLanguage("en");
    serve({ models: [], default: null });
    renderShell();
    await screen.findByTestId("no-model-banner");
    expect(navTexts()[0]).toBe("Chat");
    await act(async () => {
      await i18next.changeLanguage("zh-CN");
    });
    expect(navTexts()[0]).toBe("聊天");
    expect(screen.getByTestId("no-model-banner").textContent).toContain("聊天已停用");
  });
});

describe("shared pieces in Chinese", () => {
  it("says loading, retry, cancel and close in Chinese", () => {
    render(
      <>
        <Spinner />
        <ErrorState message="boom" onRetry={() => undefined} />
        <ConfirmDialog open title="删除？" message="确定吗" confirmLabel="删除" onConfirm={() => undefined} onCancel={() => undefined} />
      </>,
    );
    expect(screen.getByText("加载中…")).toBeTruthy();
    expect(screen.getByRole("button", { name: "重试" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "取消" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "关闭" })).toBeTruthy();
  });

  it("describes a skill archive in Chinese, counting its entries", () => {
    const preview: ArchivePreview = {
      skill: {
        name: "pdf-tools",
        license: "MIT",
        allowed_tools: [],
        metadata: {},
        valid: false,
        root: "pdf-tools/",
        findings: [{ rule: "name", path: "pdf-tools/SKILL.md", message: "bad name" }],
        warnings: ["big file"],
      },
      entries: [
        { path: "pdf-tools/", size: 0, compressed_size: 0 },
        { path: "pdf-tools/SKILL.md", size: 120, compressed_size: 90 },
      ],
    };
    render(
      <>
        <ArchiveSummary preview={preview} />
        <EntryList preview={preview} />
      </>,
    );
    expect(screen.getByTestId("archive-invalid").textContent).toContain("将被拒绝");
    expect(screen.getByText("许可证")).toBeTruthy();
    expect(screen.getByRole("region", { name: "校验结果" })).toBeTruthy();
    expect(screen.getByRole("region", { name: "警告" })).toBeTruthy();
    expect(screen.getByText("2 个条目")).toBeTruthy();
  });
});
