// @vitest-environment jsdom
// The console is for admins: the Runs link shows only for them (and without sign-in, where the
// one local user is the admin), and anyone else opening it gets an explanation, not a request.
import { cleanup, render, screen } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AuthGate } from "../auth/auth";
import { Shell } from "../components/Shell";
import { AppInfoProvider } from "../state/appInfo";
import { json } from "../test/agents";
import { pathOf } from "../test/fetch";
import { RunsConsolePage } from "./RunsConsolePage";

/** Serves a signed-in `role` (`mode: none`: sign-in off); records the paths asked for. */
function serveAs(role: "admin" | "user", mode: "password" | "none" = "password"): string[] {
  const paths: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const path = pathOf(input);
      paths.push(path);
      if (path === "/api/auth/status") return json({ mode, setup_required: false });
      if (path === "/api/auth/me") return json({ id: "u1", email: "ann@example.com", role });
      if (path === "/health") return json({ status: "ok", version: "0.1.0", sandbox: "docker", warnings: [] });
      if (path === "/api/models") return json({ models: [], default: null });
      if (path === "/api/admin/runs") return json({ runs: [], total: 0 });
      return json([]);
    }),
  );
  return paths;
}

function renderApp(url: string) {
  render(
    <MemoryRouter initialEntries={[url]}>
      <AuthGate>
        <AppInfoProvider>
          <Routes>
            <Route element={<Shell />}>
              <Route path="/" element={<p>chat</p>} />
              <Route path="/admin/runs" element={<RunsConsolePage />} />
            </Route>
          </Routes>
        </AppInfoProvider>
      </AuthGate>
    </MemoryRouter>,
  );
}

const navLinks = () => screen.getAllByRole("link").filter((a) => a.closest("nav")).map((a) => a.textContent);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the runs console's access", () => {
  it("links Runs in the navigation for an admin", async () => {
    serveAs("admin");
    renderApp("/admin/runs");
    expect(await screen.findByText("No runs yet")).toBeTruthy();
    expect(navLinks()).toContain("Runs");
    expect(screen.getByRole("link", { name: "Runs" }).getAttribute("href")).toBe("/admin/runs");
  });

  it("links Runs without sign-in, where the local user is the admin", async () => {
    serveAs("admin", "none");
    renderApp("/");
    await screen.findByText("chat");
    expect(navLinks()).toContain("Runs");
  });

  it("hides Runs from other people and explains the page instead of asking the server", async () => {
    const paths = serveAs("user");
    renderApp("/admin/runs");
    expect(await screen.findByText("Admins only")).toBeTruthy();
    expect(navLinks()).not.toContain("Runs");
    expect(paths).not.toContain("/api/admin/runs");
  });
});
