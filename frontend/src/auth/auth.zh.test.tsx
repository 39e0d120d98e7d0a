// @vitest-environment jsdom
// Signing in, the first-run setup and the account menu in Simplified Chinese.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { i18next } from "../i18n";
import { pathOf } from "../test/fetch";
import { AccountMenu } from "./AccountMenu";
import { AuthGate } from "./auth";
import { SetupPage } from "./SetupPage";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

beforeEach(async () => {
  await i18next.changeLanguage("zh-CN");
});

afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await i18next.changeLanguage("en");
});

describe("sign-in in Chinese", () => {
  it("asks for the email and password in Chinese and says no admin exists yet", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) =>
        pathOf(input) === "/api/auth/status"
          ? json(200, { mode: "password", setup_required: true })
          : json(401, { error: { code: "unauthenticated", message: "sign in" } }),
      ),
    );
    render(
      <AuthGate>
        <p>inside</p>
      </AuthGate>,
    );
    expect(await screen.findByRole("heading", { name: "登录 Antler" })).toBeTruthy();
    expect(screen.getByLabelText("电子邮箱")).toBeTruthy();
    expect(screen.getByLabelText("密码")).toBeTruthy();
    expect(screen.getByRole("button", { name: "登录" })).toBeTruthy();
    expect(screen.getByRole("status").textContent).toContain("还没有管理员");
  });

  it("refuses different passwords at setup in Chinese", () => {
    render(<SetupPage token="tok" onDone={() => undefined} />);
    expect(screen.getByRole("heading", { name: "创建管理员账户" })).toBeTruthy();
    fireEvent.change(screen.getByLabelText("电子邮箱"), { target: { value: "ann@example.com" } });
    fireEvent.change(screen.getByLabelText("密码（至少 8 个字符）"), { target: { value: "password-1" } });
    fireEvent.change(screen.getByLabelText("再次输入密码"), { target: { value: "password-2" } });
    fireEvent.click(screen.getByRole("button", { name: "创建并登录" }));
    expect(screen.getByRole("alert").textContent).toBe("两次输入的密码不一致。");
  });

  it("names the signed-in account and its role in Chinese", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) =>
        pathOf(input) === "/api/auth/status"
          ? json(200, { mode: "password", setup_required: false })
          : json(200, { id: "u1", email: "ann@example.com", role: "admin" }),
      ),
    );
    render(
      <MemoryRouter>
        <AuthGate>
          <AccountMenu />
        </AuthGate>
      </MemoryRouter>,
    );
    const sign = await screen.findByRole("button", { name: "退出登录" });
    expect(sign.textContent?.trim()).toBe("退出登录");
    expect(screen.getByRole("link").getAttribute("title")).toBe("已登录：ann@example.com（管理员）");
  });
});
