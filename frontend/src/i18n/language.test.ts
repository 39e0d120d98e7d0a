// The language follows the browser (Simplified Chinese for zh, zh-CN, zh-Hans…; English
// otherwise), and what the lib layer writes (times, sizes, schedules, tool cards, server
// errors) follows the language chosen.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, errorMessage } from "../api/http";
import { errorText, runErrorText } from "../api/errorText";
import { sdkErrorMessage } from "../api/langgraph";
import { threadTitle } from "../api/types";
import { countLabel } from "../lib/agents";
import { formatBytes, formatDate, formatDuration, formatRelative } from "../lib/format";
import { categoryLabel, factDetails } from "../lib/memory";
import { describeCron, describeSchedule, formatUntil, parseSchedule } from "../lib/schedule";
import { SUBTASK_STATUS_LABELS, usageText } from "../lib/subtaskView";
import { STATUS_LABELS, progressLabel } from "../lib/todos";
import { networkLabel, statusLabel, toolSummary, toolTitle } from "../lib/toolFormat";
import { progressText } from "../lib/toolProgress";
import { usageDetails, usageSummary } from "../lib/usage";
import { describeLimit } from "../lib/usageLimit";
import { currentLanguage, detectLanguage, i18next } from "./index";

describe("detectLanguage", () => {
  it.each([
    [["zh"], "zh-CN"],
    [["zh-CN"], "zh-CN"],
    [["zh-Hans-CN"], "zh-CN"],
    [["zh-SG"], "zh-CN"],
    [["zh-TW"], "en"],
    [["zh-Hant-HK"], "en"],
    [["fr"], "en"],
    [["en-GB"], "en"],
    [[], "en"],
  ])("reads %j as %s", (preferred, lang) => {
    expect(detectLanguage(preferred)).toBe(lang);
  });

  it("takes the first preference it has a catalogue for", () => {
    expect(detectLanguage(["fr-FR", "zh-CN", "en"])).toBe("zh-CN");
    expect(detectLanguage(["zh-TW", "en-US", "zh-CN"])).toBe("en");
  });
});

describe("in English", () => {
  it("server errors keep the server's message, which names the thing", () => {
    const e = new ApiError(404, "not_found", "no skill named 'pdf'");
    expect(e.message).toBe("no skill named 'pdf'");
    expect(e.serverMessage).toBe("no skill named 'pdf'");
    expect(errorText("some_new_code", "")).toBe("Something went wrong.");
    expect(runErrorText("TimeoutError", "run exceeded 600 s")).toBe("run exceeded 600 s");
    expect(runErrorText("NotAKind", "")).toBe("The run failed.");
  });
});

describe("in Chinese", () => {
  beforeAll(async () => {
    await i18next.changeLanguage("zh-CN");
  });
  afterAll(async () => {
    await i18next.changeLanguage("en");
  });

  it("is the language in use", () => {
    expect(currentLanguage()).toBe("zh-CN");
  });

  it("writes times, durations and sizes for the locale", () => {
    const now = new Date("2026-01-01T12:00:00Z");
    expect(formatRelative("2026-01-01T11:59:50Z", now)).toBe("刚刚");
    expect(formatRelative("2026-01-01T11:30:00Z", now)).toBe("30 分钟前");
    expect(formatRelative("2026-01-01T07:00:00Z", now)).toBe("5 小时前");
    expect(formatRelative("2025-11-28T07:00:00Z", now)).toMatch(/^2025年11月28日/);
    expect(formatDate("2026-03-06T12:00:00Z")).toMatch(/^2026年3月6日/);
    expect(formatDuration(420)).toBe("0.4 秒");
    expect(formatDuration(185_000)).toBe("3 分 5 秒");
    expect(formatDuration(120_000)).toBe("2 分钟");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatUntil("2026-01-01T12:05:00Z", now)).toBe("5 分钟后");
    expect(formatUntil("2026-01-05T12:00:00Z", now)).toBe("4 天后");
  });

  it("describes schedules in Chinese, cronstrue's included", () => {
    expect(describeCron("0 9 * * 1-5")).toBe("工作日 09:00");
    expect(describeCron("30 10 * * 1,5")).toBe("每周一和每周五 10:30");
    expect(describeCron("*/15 * * * *")).toBe("每 15 分钟");
    expect(describeSchedule("0 8 * * *", "Asia/Shanghai")).toBe("每天 08:00（Asia/Shanghai）");
    // cronstrue's zh_CN locale: no Latin words left.
    expect(describeCron("0 9 1 * *")).not.toMatch(/[A-Za-z]{3,}/);
    const refused = parseSchedule("whenever");
    expect(refused.ok ? "" : refused.error).toMatch(/^无法理解“whenever”。/);
  });

  it("names tools, statuses and usage in Chinese", () => {
    expect(toolTitle("bash")).toBe("运行命令");
    expect(toolTitle("mcp_custom_tool")).toBe("mcp_custom_tool");
    expect(toolSummary({ name: "grep", args: { pattern: "TODO", path: "/src" } })).toBe("/src 中的 TODO");
    expect(statusLabel({ status: "success", output: "", exitCode: 2 })).toBe("退出码 2");
    expect(networkLabel({ connections: [], hosts: 2, bytes: 3_100_000, refused: 1, failed: 0 })).toBe(
      "网络：2 个主机，3.1 MB；1 个被拒绝",
    );
    expect(progressText({ progress: 3, total: 10 })).toBe("3 / 10（30%）");
    expect(progressLabel([{ content: "a", status: "completed" }, { content: "b", status: "pending" }])).toBe("已完成 1/2");
    expect(STATUS_LABELS.in_progress).toBe("进行中");
    expect(SUBTASK_STATUS_LABELS.timed_out).toBe("已超时");
    expect(usageText({ input_tokens: 1200, output_tokens: 300, model_calls: 2 } as never)).toBe(
      "输入 1,200 个 token，输出 300 个，2 次模型调用",
    );
    const u = { calls: 1, input: 1234, cached: 1000, cacheWrite: 0, output: 350, reasoning: 0, cost: 0.0042, models: [] };
    expect(usageSummary(u)).toBe("输入 1.2k · 缓存 1k · 输出 350 · $0.0042");
    expect(usageDetails(u).split("\n")[0]).toBe("1 次模型调用");
    expect(describeLimit({ message: "", reached: { kind: "tokens", limit: 1000, used: 1200 } })).toBe(
      "你今天已使用 1,200 个 token，每日额度为 1,000 个。",
    );
    expect(countLabel(["a", "b"], "skill")).toBe("2 个技能");
    expect(countLabel(undefined, "tool")).toBe("全部工具");
    expect(categoryLabel("preference")).toBe("偏好");
    expect(threadTitle({ metadata: {}, values: {} })).toBe("新对话");
  });

  it("labels a remembered fact in Chinese", () => {
    const now = new Date("2026-01-01T12:00:00Z");
    const fact = { confidence: 0.9, confirmations: 2, created_at: "2026-01-01T11:55:00Z", last_used_at: null };
    expect(factDetails(fact as never, now).map((p) => p.text)).toEqual(["把握 90%", "已确认 2 次", "记住时间：5 分钟前"]);
  });

  it("translates server errors by code, keeping the detail where it matters", () => {
    expect(new ApiError(409, "run_active", "thread t1 has an active run").message).toBe("对话仍在生成回答，请等待完成或先停止。");
    expect(new ApiError(422, "invalid_body", "name: too long").message).toBe("部分内容无效：name: too long");
    expect(errorMessage(new ApiError(0, "network_error", "Cannot reach the server."))).toBe("无法连接服务器，请检查它是否在运行。");
    // A code the catalogue does not know yet: the server's message.
    expect(new ApiError(400, "brand_new_code", "new refusal").message).toBe("new refusal");
    expect(errorMessage(42)).toBe("出了点问题。");
    const sdk = { status: 403, text: JSON.stringify({ error: { code: "admin_required", message: "admins only" } }) };
    expect(sdkErrorMessage(sdk)).toBe("只有管理员可以执行此操作。");
    expect(sdkErrorMessage(new TypeError("fetch failed"))).toBe("与服务器的连接已断开。");
    expect(runErrorText("CancelledError", "cancelled")).toBe("运行已取消。");
    expect(runErrorText("AgentError", "model refused")).toBe("智能体运行失败：model refused");
  });
});
