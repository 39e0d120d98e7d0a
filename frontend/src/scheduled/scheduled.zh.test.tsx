// @vitest-environment jsdom
// The Scheduled page and the schedule dialog in Simplified Chinese: labels, actions, states
// and the schedule's description follow the language; names and messages stay as written.
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ToastProvider } from "../components/Toasts";
import { i18next } from "../i18n";
import { BUILT_IN_ID } from "../test/agents";
import { cron, serveCrons } from "../test/crons";
import { polyfillDialog } from "../test/dialog";
import { ScheduleDialog } from "./ScheduleDialog";
import { ScheduledPage } from "./ScheduledPage";

function renderPage() {
  render(
    <MemoryRouter initialEntries={["/scheduled"]}>
      <ToastProvider>
        <ScheduledPage />
      </ToastProvider>
    </MemoryRouter>,
  );
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

describe("the Scheduled page in Chinese", () => {
  it("shows each schedule's facts and actions in Chinese, with its name as written", async () => {
    serveCrons([
      cron("a", { metadata: { name: "Morning news" } }),
      cron("b", {
        enabled: false,
        next_run_date: null,
        metadata: { name: "Weekly" },
        last_run: { run_id: "r1", thread_id: "t-last", status: "success", created_at: "2026-03-01T09:00:00Z" },
      }),
    ]);
    renderPage();
    const row = await screen.findByRole("listitem", { name: "Morning news" });
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("定时任务");
    expect(within(row).getByText("时间")).toBeTruthy();
    expect(within(row).getByText("下次运行")).toBeTruthy();
    expect(within(row).getByText("尚未运行")).toBeTruthy();
    expect(within(row).getByRole("switch", { name: "启用：Morning news" })).toBeTruthy();
    expect(within(row).getByRole("button", { name: "立即运行：Morning news" })).toBeTruthy();
    expect(within(row).getByRole("button", { name: "编辑：Morning news" })).toBeTruthy();
    expect(within(row).getByRole("button", { name: "删除：Morning news" })).toBeTruthy();
    // The schedule's description follows the language too (cronstrue's and our own words).
    const schedule = within(row).getByTestId("cron-schedule").textContent ?? "";
    expect(schedule).toContain("Europe/Paris");
    expect(schedule).not.toMatch(/Weekdays|at/);
    const paused = screen.getByRole("listitem", { name: "Weekly" });
    expect(within(paused).getByTestId("cron-next").textContent).toBe("已暂停");
    expect(within(paused).getByTestId("cron-last-run").textContent).toContain("成功");
  });

  it("asks before deleting, in Chinese", async () => {
    serveCrons([cron("a", { metadata: { name: "Morning news" } })]);
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "删除：Morning news" }));
    const confirm = screen.getByRole("alertdialog");
    expect(within(confirm).getByText("“Morning news”将停止运行。它创建的对话会保留。")).toBeTruthy();
    fireEvent.click(within(confirm).getByRole("button", { name: "删除" }));
    expect((await screen.findByTestId("toast")).textContent).toContain("已删除“Morning news”。");
  });

  it("explains an empty list in Chinese", async () => {
    serveCrons([]);
    renderPage();
    expect(await screen.findByText("还没有定时任务")).toBeTruthy();
    expect(screen.getByText("定时…").tagName).toBe("STRONG");
    // The field reads English, so the example stays English, set as code.
    expect(screen.getByText("every weekday at 9:00").tagName).toBe("CODE");
  });
});

describe("the schedule dialog in Chinese", () => {
  it("labels its fields and previews the next runs in Chinese", async () => {
    serveCrons([]);
    render(
      <ScheduleDialog
        open
        threadId="t1"
        initialMessage="Summarise today's news"
        initialAgent={BUILT_IN_ID}
        onClose={() => undefined}
        onSaved={() => undefined}
      />,
    );
    const dialog = screen.getByRole("dialog", { name: "定时发送此消息" });
    expect((within(dialog).getByLabelText("消息") as HTMLTextAreaElement).value).toBe("Summarise today's news");
    expect(within(dialog).getByLabelText("名称（可选）")).toBeTruthy();
    expect(within(dialog).getByLabelText("时区")).toBeTruthy();
    expect(within(dialog).getByLabelText("每次新建对话")).toBeTruthy();
    expect(within(dialog).getByLabelText("在此对话中")).toBeTruthy();
    const help = within(dialog).getByTestId("schedule-preview");
    expect(help.textContent).toContain("或 cron 表达式。");
    expect([...help.querySelectorAll("code")].map((c) => c.textContent)).toContain("every 15 minutes");
    fireEvent.change(within(dialog).getByLabelText("时间"), { target: { value: "every weekday at 9:00" } });
    expect(within(dialog).getByTestId("schedule-cron").textContent).toBe("0 9 * * 1-5");
    expect(within(dialog).getByText("接下来的运行时间：")).toBeTruthy();
    await waitFor(() => expect(within(dialog).getByRole("button", { name: "创建定时任务" })).toHaveProperty("disabled", false));
    expect(within(dialog).getByRole("button", { name: "取消" })).toBeTruthy();
  });
});
