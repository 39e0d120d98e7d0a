// @vitest-environment jsdom
// The language choice in Settings: the interface switches at once, the choice is kept for the
// next visit, "follow the browser" goes back to the browser's language; and Settings pages
// rendered in Chinese show no English of their own.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { ReactElement } from "react";
import { MemoryRouter } from "react-router-dom";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Fact, McpServer, SecretInfo, Skill } from "../api/types";
import { ToastProvider } from "../components/Toasts";
import { currentLanguage, i18next, languageChoice, setLanguageChoice } from "../i18n";
import { agent, builtIn, json } from "../test/agents";
import { polyfillDialog } from "../test/dialog";
import { methodOf, pathOf } from "../test/fetch";
import { AddFactForm } from "./AddFactForm";
import { AgentsPage } from "./AgentsPage";
import { LanguageSetting } from "./LanguageSetting";
import { MemoryPage } from "./MemoryPage";
import { MemorySwitch } from "./MemorySettingsForm";
import { SecretsPage } from "./SecretsPage";
import { SkillsPage } from "./SkillsPage";
import { ToolsPage } from "./ToolsPage";

beforeAll(polyfillDialog);

afterEach(() => {
  cleanup();
  setLanguageChoice("auto");
  localStorage.clear();
  vi.unstubAllGlobals();
});

const select = () => screen.getByTestId<HTMLSelectElement>("language-select");

function renderSettings() {
  render(
    <>
      <LanguageSetting />
      <MemorySwitch settings={{ enabled: true, summary: null }} onSaved={() => {}} />
      <AddFactForm onAdded={() => {}} />
    </>,
  );
}

describe("the language setting", () => {
  it("follows the browser until a language is chosen, and offers both catalogues", () => {
    renderSettings();
    const choice = screen.getByRole("combobox", { name: "Language" });
    expect(choice).toBe(select());
    expect(select().value).toBe("auto");
    expect([...select().options].map((o) => o.textContent)).toEqual(["Follow the browser", "English", "简体中文"]);
    expect(currentLanguage()).toBe("en");
  });

  it("switches the whole page at once when Chinese is chosen, and keeps the choice", () => {
    renderSettings();
    expect(screen.getByRole("switch", { name: "Remember facts about me" })).toBeTruthy();
    fireEvent.change(select(), { target: { value: "zh-CN" } });

    // No reload: the components already on the page speak Chinese now.
    expect(screen.getByRole("combobox", { name: "语言" })).toBe(select());
    expect(select().value).toBe("zh-CN");
    expect(screen.getByRole("switch", { name: "记住关于我的事实" })).toBeTruthy();
    expect(screen.getByRole("heading", { name: "添加事实" })).toBeTruthy();
    expect(screen.getByRole("button", { name: /添加/ })).toBeTruthy();
    expect(screen.queryByText("Add a fact")).toBeNull();
    expect(document.documentElement.lang).toBe("zh-CN");

    // Kept for the next visit, and shown as chosen on a fresh Settings page.
    expect(languageChoice()).toBe("zh-CN");
    expect(localStorage.getItem("antler.language")).toBe("zh-CN");
    cleanup();
    renderSettings();
    expect(select().value).toBe("zh-CN");
  });

  it("starts in the saved language on the next load", async () => {
    setLanguageChoice("zh-CN");
    // As if the page were loaded again: the i18n layer starts from what was saved, not from
    // the language the previous page happened to be in.
    await i18next.changeLanguage("en");
    vi.resetModules();
    const fresh = await import("../i18n");
    expect(fresh.languageChoice()).toBe("zh-CN");
    expect(fresh.currentLanguage()).toBe("zh-CN");
  });

  it("goes back to English, then to the browser's language, at once", () => {
    renderSettings();
    fireEvent.change(select(), { target: { value: "zh-CN" } });
    expect(screen.getByRole("heading", { name: "添加事实" })).toBeTruthy();

    fireEvent.change(select(), { target: { value: "en" } });
    expect(screen.getByRole("heading", { name: "Add a fact" })).toBeTruthy();
    expect(localStorage.getItem("antler.language")).toBe("en");

    // jsdom's browser prefers en-US: following it is English, and nothing stays saved.
    fireEvent.change(select(), { target: { value: "auto" } });
    expect(select().value).toBe("auto");
    expect(localStorage.getItem("antler.language")).toBeNull();
    expect(currentLanguage()).toBe("en");
    expect(screen.getByRole("switch", { name: "Remember facts about me" })).toBeTruthy();
  });
});

/**
 * Words of three or more Latin letters a person would see in `root`: text outside `code`,
 * closed dialogs and `skip` (user content), and the labels, titles and placeholders.
 */
function englishIn(root: HTMLElement, skip: string[] = []): string[] {
  const hidden = ["code", "dialog:not([open])", ...skip].join(", ");
  const found = new Set<string>();
  const scan = (text: string | null) => {
    for (const word of text?.match(/[A-Za-z]{3,}/g) ?? []) found.add(word);
  };
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement?.closest(hidden)) scan(node.textContent);
  }
  for (const el of root.querySelectorAll("[aria-label], [title], [placeholder]")) {
    if (el.closest(hidden)) continue;
    for (const attr of ["aria-label", "title", "placeholder"]) scan(el.getAttribute(attr));
  }
  return [...found].sort();
}

describe("Settings pages in Chinese", () => {
  it("Memory: no English outside the person's own facts", async () => {
    const fact: Fact = {
      fact_id: "f-1",
      content: "我喜欢喝茶",
      category: "preference",
      confidence: 0.9,
      confirmations: 2,
      assistant_id: null,
      source_thread: "t-1",
      supersedes: null,
      created_at: "2026-01-05T10:00:00Z",
      updated_at: "2026-01-05T10:00:00Z",
      last_used_at: null,
    };
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
        if (pathOf(input) === "/api/memory" && methodOf(input, init) === "GET") {
          return json({ facts: [fact], total: 1, enabled: true, summary: "我做后端开发。" });
        }
        return json({ error: { code: "not_found", message: "not found" } }, 404);
      }),
    );
    setLanguageChoice("zh-CN");
    const { container } = render(
      <MemoryRouter>
        <ToastProvider>
          <MemoryPage />
        </ToastProvider>
      </MemoryRouter>,
    );
    await screen.findByText("我喜欢喝茶");
    expect(screen.getByRole("heading", { name: "记忆", level: 1 })).toBeTruthy();
    expect(englishIn(container)).toEqual([]);
  });

  it("Secrets: no English besides secret and skill names", async () => {
    const secret: SecretInfo = {
      name: "IMAGE_API_KEY",
      description: "图片生成",
      skills: ["imagegen"],
      agents: ["*"],
      created_by: "admin@antler.test",
      created_at: "2026-11-27T10:00:00Z",
      updated_at: "2026-11-27T10:00:00Z",
      readable: false,
    };
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => json({ secrets: [secret], available: false })),
    );
    setLanguageChoice("zh-CN");
    const { container } = render(
      <MemoryRouter>
        <ToastProvider>
          <SecretsPage />
        </ToastProvider>
      </MemoryRouter>,
    );
    await waitFor(() => expect(screen.getByTestId("secret-grants").textContent).toBe("技能：imagegen · 智能体：所有智能体"));
    expect(screen.getByText("无法读取")).toBeTruthy();
    // "API" is the acronym, kept in Chinese; skill names and the placeholders' examples
    // (IMAGE_API_KEY, "imagegen, pdf") are identifiers, the same in every language.
    const identifiers = ["API", "IMAGE", "KEY", "imagegen", "pdf"];
    expect(englishIn(container).filter((w) => !identifiers.includes(w))).toEqual([]);
  });

  /** Renders `page` in Chinese, answering `GET path` with `body` (anything else: 404). */
  function renderChinese(page: ReactElement, answers: Record<string, unknown>) {
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) => {
        const body = answers[pathOf(input)];
        return body === undefined ? json({ error: { code: "not_found", message: "not found" } }, 404) : json(body);
      }),
    );
    setLanguageChoice("zh-CN");
    return render(
      <MemoryRouter>
        <ToastProvider>{page}</ToastProvider>
      </MemoryRouter>,
    );
  }

  it("Skills: no English besides skill names and their descriptions", async () => {
    const skill: Skill = {
      name: "csv-insights",
      description: "分析表格",
      metadata: {},
      allowed_tools: [],
      category: "public",
      relative_path: "csv-insights",
      enabled: true,
      editable: false,
      shadowed: true,
      location: "/mnt/skills/public/csv-insights/SKILL.md",
      warnings: ["unknown key"],
      warning_details: [{ code: "unknown_key", message: "未知的键" }],
      disable_model_invocation: true,
    };
    const { container } = renderChinese(<SkillsPage />, {
      "/api/skills": { skills: [skill], errors: [{ path: "broken", message: "缺少 SKILL.md" }] },
    });
    await screen.findByRole("tab", { name: /公共\s*1/ });
    expect(screen.getByText("1 个警告")).toBeTruthy();
    // The skill's name (its button, switch and command), the file name SKILL.md, a warning's
    // code (unknown_key) and Git are names.
    const names = ["csv", "insights", "SKILL", "unknown", "key", "Git"];
    expect(englishIn(container).filter((w) => !names.includes(w))).toEqual([]);
  });

  it("Tools: no English besides server, tool and transport names", async () => {
    const server: McpServer = {
      name: "everything",
      transport: "stdio",
      description: "参考服务器",
      state: "connected",
      last_error: null,
      tools: [{ name: "echo", model_name: "mcp__everything__echo", description: "回声", input_schema: { type: "object" } }],
      calls: 1,
      failed_calls: 0,
      sandboxed: true,
      running_in_threads: 2,
    };
    const { container } = renderChinese(<ToolsPage />, { "/api/mcp/servers": { servers: [server] } });
    await screen.findByText("参考服务器");
    expect(screen.getByTestId("mcp-calls").textContent).toBe("1 次调用 · 0 次失败 · 在 2 个对话中运行");
    fireEvent.click(screen.getByRole("button", { name: "显示 everything 的 1 个工具" }));
    expect(screen.getByRole("list", { name: "everything 的工具" })).toBeTruthy();
    const names = ["everything", "echo", "stdio", "MCP", "Antler"];
    expect(englishIn(container).filter((w) => !names.includes(w))).toEqual([]);
  });

  it("Agents: no English besides agent and model names", async () => {
    const reviewer = agent("a-1", "Reviewer", {
      description: "审阅代码",
      version: 3,
      config: { configurable: { model_name: "gpt-test", skills: ["pdf"], tools: [] } },
    });
    const { container } = renderChinese(<AgentsPage />, { "/api/assistants/search": [reviewer, builtIn] });
    await screen.findByText("审阅代码");
    expect(screen.getByRole("heading", { name: "智能体", level: 1 })).toBeTruthy();
    // Agents' names and descriptions (the built-in's comes from the server) and model names
    // are not the interface's.
    const names = ["Antler", "Reviewer", "gpt", "test"];
    expect(englishIn(container, [".agent-desc"]).filter((w) => !names.includes(w))).toEqual([]);
  });
});
