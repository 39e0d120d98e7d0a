// @vitest-environment jsdom
// The chat speaks the chosen language: its components render the Simplified Chinese catalogue
// after a switch (counts with their plural forms, sentences with markup inside), and English
// again after switching back, without remounting.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { i18next } from "../i18n";
import { Composer } from "./Composer";
import { SummaryMarker } from "./SummaryMarker";
import { ToolCard } from "./ToolCard";
import { UsageLimitBanner } from "./UsageLimitBanner";
import { Welcome } from "./Welcome";

afterEach(async () => {
  cleanup();
  await i18next.changeLanguage("en");
});

function composer() {
  return (
    <Composer
      streaming={false}
      stopping={false}
      disabled={false}
      attachments={[{ key: "a1", name: "notes.txt", status: "error", error: "boom" }]}
      uploading={false}
      onSend={() => undefined}
      onStop={() => undefined}
      onFiles={() => undefined}
      onRemoveAttachment={() => undefined}
      planMode={false}
      onPlanMode={() => undefined}
    />
  );
}

describe("the chat in Simplified Chinese", () => {
  it("labels the message box, its buttons and an attachment in Chinese, file names untouched", async () => {
    await i18next.changeLanguage("zh-CN");
    render(composer());
    const box = screen.getByRole("textbox", { name: "消息" }) as HTMLTextAreaElement;
    expect(box.placeholder).toBe("给 Antler 发消息…");
    expect(screen.getByRole("button", { name: "发送" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "添加附件" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "计划模式" }).textContent).toContain("计划模式");
    expect(screen.getByRole("button", { name: "移除 notes.txt" })).toBeTruthy();
    expect(screen.getByText("notes.txt")).toBeTruthy();
    expect(screen.getByText("失败")).toBeTruthy();
  });

  it("switches a mounted component's language at once, both ways", async () => {
    render(composer());
    expect(screen.getByRole("button", { name: "Send" })).toBeTruthy();
    await act(() => i18next.changeLanguage("zh-CN"));
    expect(screen.getByRole("button", { name: "发送" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Send" })).toBeNull();
    await act(() => i18next.changeLanguage("en"));
    expect(screen.getByRole("button", { name: "Send" })).toBeTruthy();
    expect((screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement).placeholder).toBe("Message Antler…");
  });

  it("counts summarized messages with the plural forms of each language", async () => {
    const { rerender } = render(<SummaryMarker count={1} content="Summary" earlier={() => null} />);
    expect(screen.getByTestId("summary-marker").textContent).toContain("1 earlier message was summarized for the agent");
    rerender(<SummaryMarker count={3} content="Summary" earlier={() => null} />);
    expect(screen.getByTestId("summary-marker").textContent).toContain("3 earlier messages were summarized for the agent");
    await act(() => i18next.changeLanguage("zh-CN"));
    expect(screen.getByTestId("summary-marker").textContent).toContain("已为智能体总结了之前的 3 条消息");
    expect(screen.getByRole("button", { name: "显示" })).toBeTruthy();
  });

  it("titles a tool card's sections in Chinese and keeps its command and output as they are", async () => {
    await i18next.changeLanguage("zh-CN");
    render(
      <ToolCard
        call={{ name: "bash", id: "c1", args: { command: "ls -l" } }}
        result={{ type: "tool", id: "t", tool_call_id: "c1", name: "bash", status: "error", content: "no such file\n[exit code: 2]", artifact: { exit_code: 2, timed_out: false } }}
      />,
    );
    fireEvent.click(screen.getByRole("button", { expanded: false }));
    expect(screen.getByText("参数")).toBeTruthy();
    expect(document.querySelector(".exit-code")?.textContent).toBe("退出码 2");
    expect(screen.getByText("结果")).toBeTruthy();
    expect(screen.getByTestId("tool-output").textContent).toBe("no such file");
    expect(document.body.textContent).toContain("ls -l");
  });

  it("puts the reset time inside the Chinese sentence of the usage-limit banner", async () => {
    await i18next.changeLanguage("zh-CN");
    render(<UsageLimitBanner limit={{ message: "daily token limit", resetsAt: "2030-01-02T00:00:00Z" }} />);
    const banner = screen.getByTestId("usage-limit-banner");
    expect(banner.textContent).toContain("已达到每日用量上限。");
    const time = screen.getByTestId("usage-limit-reset");
    expect(time.getAttribute("datetime")).toBe("2030-01-02T00:00:00Z");
    expect(time.textContent).not.toBe("");
    expect(banner.textContent).toContain(`你可以在 ${time.textContent}（本地时间）后继续对话。`);
  });

  it("offers the welcome prompts in the reader's language and sends the prompt as shown", async () => {
    await i18next.changeLanguage("zh-CN");
    const onPick = vi.fn();
    render(<Welcome onPick={onPick} disabled={false} />);
    expect(screen.getByRole("heading").textContent).toBe("今天想做点什么？");
    expect(screen.getByTestId("welcome").querySelector("code")?.textContent).toBe(".skill");
    fireEvent.click(screen.getByRole("button", { name: "帮我写一份简短的报告" }));
    expect(onPick).toHaveBeenCalledWith("帮我写一份简短的报告");
  });
});
