// @vitest-environment jsdom
// Settings → Secrets: values go to the server once and never show again; the list says who
// gets each secret; a server without a key says how to give it one.
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { SecretInfo } from "../api/types";
import { ToastProvider } from "../components/Toasts";
import { json } from "../test/agents";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { SecretsPage } from "./SecretsPage";
import { polyfillDialog } from "../test/dialog";

const info = (name: string, extra: Partial<SecretInfo> = {}): SecretInfo => ({
  name,
  description: "",
  agents: [],
  skills: [],
  created_by: "admin@antler.test",
  created_at: "2026-11-27T10:00:00Z",
  updated_at: "2026-11-27T10:00:00Z",
  readable: true,
  ...extra,
});

/** A server holding `secrets`; records the bodies it was sent. */
function serve(secrets: SecretInfo[], available = true) {
  let all = [...secrets];
  const sent: { method: string; path: string; body?: Record<string, unknown> }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = pathOf(input);
      const method = methodOf(input, init);
      const text = method === "PUT" ? await requestOf(input, init).text() : "";
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      sent.push({ method, path, ...(body ? { body } : {}) });
      const name = /^\/api\/secrets\/([^/]+)$/.exec(path)?.[1];
      if (path === "/api/secrets") return json({ secrets: all, available });
      if (name && method === "PUT") {
        const stored = info(name, {
          description: String(body?.["description"] ?? ""),
          skills: (body?.["skills"] as string[]) ?? [],
          agents: (body?.["agents"] as string[]) ?? [],
        });
        all = [...all.filter((s) => s.name !== name), stored];
        return json(stored);
      }
      if (name && method === "DELETE") {
        all = all.filter((s) => s.name !== name);
        return new Response(null, { status: 204 });
      }
      return json({ error: { code: "not_found", message: path } }, 404);
    }),
  );
  return sent;
}

function renderPage() {
  render(
    <MemoryRouter initialEntries={["/settings/secrets"]}>
      <ToastProvider>
        <SecretsPage />
      </ToastProvider>
    </MemoryRouter>,
  );
}

beforeAll(polyfillDialog);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("Settings → Secrets", () => {
  it("adds a secret, clears its value from the page, and lists who gets it", async () => {
    const sent = serve([info("OLD_TOKEN", { agents: ["*"], readable: false })]);
    renderPage();
    await waitFor(() => expect(screen.getAllByTestId("secret-row")).toHaveLength(1));
    expect(screen.getByTestId("secret-grants").textContent).toBe("agents: every agent");
    expect(screen.getByText("not readable")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "IMAGE_API_KEY" } });
    fireEvent.change(screen.getByLabelText("Value"), { target: { value: "sk-super-secret-1" } });
    fireEvent.change(screen.getByLabelText("Skills that get it"), { target: { value: "imagegen, pdf" } });
    fireEvent.click(screen.getByRole("button", { name: "Add secret" }));
    await waitFor(() => expect(screen.getAllByTestId("secret-row")).toHaveLength(2));
    const put = sent.find((c) => c.method === "PUT");
    expect(put?.path).toBe("/api/secrets/IMAGE_API_KEY");
    expect(put?.body).toEqual({ value: "sk-super-secret-1", description: "", skills: ["imagegen", "pdf"], agents: [] });
    expect((screen.getByLabelText("Value") as HTMLInputElement).value).toBe("");
    expect(document.body.innerHTML).not.toContain("sk-super-secret-1");
    const row = screen.getAllByTestId("secret-row")[1] as HTMLElement;
    expect(within(row).getByTestId("secret-grants").textContent).toBe("skills: imagegen, pdf");
  });

  it("changes what a secret is for without sending a value, and deletes after confirming", async () => {
    const sent = serve([info("IMAGE_API_KEY", { skills: ["imagegen"] })]);
    renderPage();
    const row = await screen.findByTestId("secret-row");
    fireEvent.click(within(row).getByRole("button", { name: "Change" }));
    expect((screen.getByLabelText("Name") as HTMLInputElement).disabled).toBe(true);
    fireEvent.change(screen.getByLabelText("What it is for"), { target: { value: "image generation" } });
    fireEvent.click(screen.getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(sent.some((c) => c.method === "PUT")).toBe(true));
    expect(sent.find((c) => c.method === "PUT")?.body).toEqual({
      description: "image generation",
      skills: ["imagegen"],
      agents: [],
    });
    fireEvent.click(within(await screen.findByTestId("secret-row")).getByRole("button", { name: "Delete" }));
    fireEvent.click(within(screen.getByRole("alertdialog")).getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(screen.queryAllByTestId("secret-row")).toHaveLength(0));
    expect(sent.some((c) => c.method === "DELETE" && c.path === "/api/secrets/IMAGE_API_KEY")).toBe(true);
  });

  it("says how to give the server a key when it has none", async () => {
    serve([], false);
    renderPage();
    expect((await screen.findByTestId("secrets-unavailable")).textContent).toContain("ANTLER_SECRETS_KEY");
  });
});
