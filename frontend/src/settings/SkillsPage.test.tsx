// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Skill, SkillList } from "../api/types";
import { ToastProvider } from "../components/Toasts";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { AuthGate } from "../auth/auth";
import { SkillsPage, matchesQuery } from "./SkillsPage";
import { polyfillDialog } from "../test/dialog";

const skill = (name: string, category: Skill["category"], extra: Partial<Skill> = {}): Skill => ({
  name,
  description: `${name} does things`,
  metadata: {},
  allowed_tools: [],
  category,
  relative_path: name,
  enabled: true,
  editable: category !== "public",
  shadowed: false,
  location: `/mnt/skills/${category}/${name}/SKILL.md`,
  warnings: [],
  warning_details: [],
  ...extra,
});

const listing: SkillList = {
  skills: [
    skill("csv-insights", "public"),
    skill("skill-creator", "public", { warnings: ["unknown key 'x'"] }),
    skill("mine", "custom"),
  ],
  errors: [],
};

beforeAll(polyfillDialog);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderPage() {
  return render(
    <MemoryRouter initialEntries={["/settings/skills"]}>
      <ToastProvider>
        <SkillsPage />
      </ToastProvider>
    </MemoryRouter>,
  );
}

describe("Settings → Skills", () => {
  it("lists skills by category with counts and warnings", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify(listing), { status: 200 })));
    renderPage();
    expect(await screen.findByRole("tab", { name: /Public\s*2/ })).toBeTruthy();
    expect(screen.getByRole("tab", { name: /Custom\s*1/ })).toBeTruthy();
    expect(screen.getByText("1 warning")).toBeTruthy();
    expect(screen.getByRole("switch", { name: "Enable csv-insights" }).getAttribute("aria-checked")).toBe("true");
    expect(screen.getByText("/csv-insights")).toBeTruthy();
  });

  it("shows the slash command with its argument hint, and marks slash-only skills", async () => {
    const list: SkillList = {
      skills: [
        skill("pdf", "public", { argument_hint: "<file.pdf>" }),
        skill("by-hand", "public", { disable_model_invocation: true }),
        skill("model-only", "public", { user_invocable: false }),
      ],
      errors: [],
    };
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify(list), { status: 200 })));
    renderPage();
    expect(await screen.findByText("/pdf <file.pdf>")).toBeTruthy();
    expect(screen.getAllByTestId("slash-only")).toHaveLength(1);
    expect(screen.getByText("/by-hand")).toBeTruthy();
    expect(screen.queryByText("/model-only")).toBeNull();
  });

  it("rolls back an optimistic toggle the server refuses and says why", async () => {
    const fetchMock = vi.fn(async (input: RequestInfo, init?: RequestInit) => {
      if (methodOf(input, init) === "PUT") {
        return new Response(JSON.stringify({ error: { code: "conflict", message: "the skills folder is read-only" } }), { status: 409 });
      }
      return new Response(JSON.stringify(listing), { status: 200 });
    });
    vi.stubGlobal("fetch", fetchMock);
    renderPage();
    const toggle = await screen.findByRole("switch", { name: "Enable csv-insights" });
    await act(async () => {
      fireEvent.click(toggle);
    });
    await waitFor(() => expect(screen.getByText(/the skills folder is read-only/)).toBeTruthy());
    expect(screen.getByRole("switch", { name: "Enable csv-insights" }).getAttribute("aria-checked")).toBe("true");
    const put = fetchMock.mock.calls.find(([input, init]) => methodOf(input, init) === "PUT");
    expect(put && pathOf(put[0])).toBe("/api/skills/csv-insights");
    expect(put && (await requestOf(put[0], put[1]).json())).toEqual({ enabled: false, category: "public" });
  });

  it("lets a person who is not an admin manage their personal skills but not the shared ones", async () => {
    const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200 });
    const mine: SkillList = { skills: [...listing.skills, skill("diary", "user")], errors: [] };
    const fetchMock = vi.fn(async (input: RequestInfo, init?: RequestInit) => {
      const path = pathOf(input);
      if (path === "/api/auth/status") return json({ mode: "password", setup_required: false });
      if (path === "/api/auth/me") return json({ id: "u1", email: "ann@example.com", role: "user" });
      if (methodOf(input, init) === "PUT") return json({ ...skill("diary", "user"), enabled: false });
      return json(mine);
    });
    vi.stubGlobal("fetch", fetchMock);
    render(
      <MemoryRouter initialEntries={["/settings/skills?tab=user"]}>
        <ToastProvider>
          <AuthGate>
            <SkillsPage />
          </AuthGate>
        </ToastProvider>
      </MemoryRouter>,
    );
    expect(await screen.findByRole("tab", { name: /Personal\s*1/ })).toBeTruthy();
    expect(screen.getByTestId("skills-read-only").textContent).toContain("personal");
    const own = screen.getByRole("switch", { name: "Enable diary" });
    expect(own.hasAttribute("disabled")).toBe(false);
    expect(screen.getByRole("button", { name: "Install from file" })).toBeTruthy();
    await act(async () => {
      fireEvent.click(own);
    });
    const put = fetchMock.mock.calls.find(([input, init]) => methodOf(input, init) === "PUT");
    expect(put && (await requestOf(put[0], put[1]).json())).toEqual({ enabled: false, category: "user" });
    await act(async () => {
      fireEvent.click(screen.getByRole("tab", { name: /Public/ }));
    });
    expect(screen.getByRole("switch", { name: "Enable csv-insights" }).hasAttribute("disabled")).toBe(true);
  });

  it("searches names and descriptions", () => {
    expect(matchesQuery({ name: "csv-insights", description: "Profile tables" }, "PROFILE")).toBe(true);
    expect(matchesQuery({ name: "csv-insights", description: "Profile tables" }, "pdf")).toBe(false);
    expect(matchesQuery({ name: "x", description: "" }, "  ")).toBe(true);
  });
});
