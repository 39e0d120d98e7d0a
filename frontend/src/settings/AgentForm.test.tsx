// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Assistant, Skill } from "../api/types";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { agent, json, schemas } from "../test/agents";
import { AgentForm } from "./AgentForm";
import { AuthGate } from "../auth/auth";
import { polyfillDialog } from "../test/dialog";

const skill = (name: string, enabled = true): Partial<Skill> => ({ name, enabled, category: "public" });

interface Sent {
  method: string;
  path: string;
  body: unknown;
}

/**
 * Serves the choices (and, with `role`, who is signed in); a save answers `answer` (the saved
 * agent by default) and is recorded.
 */
function serve(answer?: Response, role?: "admin" | "user") {
  const sent: Sent[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = pathOf(input);
      const method = methodOf(input, init);
      if (path === "/api/assistants/agent/schemas") return json(schemas(["fast", "smart"], ["bash", "ls", "read_file"]));
      if (role && path === "/api/auth/status") return json({ mode: "password", setup_required: false });
      if (role && path === "/api/auth/me") return json({ id: "u1", email: "ann@example.com", role });
      if (path === "/api/skills") {
        return json({ skills: [skill("pdf"), skill("csv-insights"), skill("off", false), skill("pdf")], errors: [] });
      }
      const body = await requestOf(input, init).json();
      sent.push({ method, path, body });
      return answer ?? json(agent("a-9", "Saved", { version: 2 }));
    }),
  );
  return sent;
}

/** The form; signed in (`signedIn`: inside the auth gate, which asks who) or not. */
function renderForm(current: Assistant | null = null, signedIn = false) {
  const onSaved = vi.fn();
  const form = <AgentForm open agent={current} onClose={() => undefined} onSaved={onSaved} />;
  render(signedIn ? <AuthGate>{form}</AuthGate> : form);
  return onSaved;
}

const save = async () => {
  await act(async () => {
    fireEvent.click(screen.getByTestId("save-agent"));
  });
};

const field = (name: string) => screen.getByLabelText(name) as HTMLInputElement;
const choice = (legend: "skills" | "tools") => within(screen.getByTestId(`choice-${legend}`));

beforeAll(polyfillDialog);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("Agent form", () => {
  it("creates an agent with a chosen model and a subset of skills, all tools left out", async () => {
    const sent = serve();
    const onSaved = renderForm();
    // The model choices come from the schema, the skills from the enabled ones.
    await screen.findByRole("option", { name: "smart" });
    fireEvent.change(field("Name"), { target: { value: " Reviewer " } });
    fireEvent.change(field("Description"), { target: { value: "Reviews pull requests" } });
    fireEvent.change(field("Instructions"), { target: { value: "Be terse." } });
    expect(screen.getByTestId("instructions-count").textContent).toBe("9 / 20,000 characters");
    fireEvent.change(field("Model"), { target: { value: "smart" } });
    fireEvent.click(choice("skills").getByLabelText("Only the skills checked"));
    expect(choice("skills").getAllByRole("checkbox").map((c) => c.parentElement?.textContent?.trim())).toEqual([
      "csv-insights",
      "pdf",
    ]);
    // The search narrows the list; what is checked stays checked.
    fireEvent.change(choice("skills").getByRole("searchbox", { name: "Search skills" }), { target: { value: "PD" } });
    fireEvent.click(choice("skills").getByRole("checkbox", { name: "pdf" }));
    fireEvent.change(choice("skills").getByRole("searchbox"), { target: { value: "" } });
    fireEvent.click(choice("skills").getByRole("checkbox", { name: "csv-insights" }));
    expect(choice("skills").getByText("2 of 2 checked")).toBeTruthy();
    await act(async () => {
      fireEvent.click(screen.getByTestId("save-agent"));
    });
    expect(sent).toEqual([
      {
        method: "POST",
        path: "/api/assistants",
        body: {
          graph_id: "agent",
          name: "Reviewer",
          description: "Reviews pull requests",
          context: { system_prompt: "Be terse.", model_name: "smart", skills: ["csv-insights", "pdf"] },
        },
      },
    ]);
    expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ assistant_id: "a-9" }));
  });

  it("shows the server's refusal in the form and keeps it open", async () => {
    const refusal = json(
      { error: { code: "invalid_body", message: "context.model_name: no model named 'gone' is configured (configured: fast)" } },
      422,
    );
    const sent = serve(refusal);
    const onSaved = renderForm(agent("a-1", "Old", { context: { model_name: "gone" } }));
    // A model removed from the configuration stays shown as the agent's.
    expect((await screen.findByRole("option", { name: "gone (not configured)" })).getAttribute("value")).toBe("gone");
    await act(async () => {
      fireEvent.click(screen.getByTestId("save-agent"));
    });
    expect((await screen.findByTestId("agent-form-error")).textContent).toContain("no model named 'gone'");
    expect(sent).toHaveLength(1);
    expect(onSaved).not.toHaveBeenCalled();
    expect(field("Name").value).toBe("Old");
  });

  it("patches an agent: all skills again is left out, a tool subset is a list, other context keys stay", async () => {
    const sent = serve();
    const current = agent("a-1", "Translator", {
      version: 3,
      description: "French to English",
      context: { system_prompt: "Translate.", skills: ["pdf", "retired"], tools: ["ls"], ui_color: "blue" },
    });
    const onSaved = renderForm(current);
    await screen.findByRole("option", { name: "smart" });
    // The chosen skills are checked, one that is no longer enabled kept and marked.
    expect((choice("skills").getByRole("checkbox", { name: "pdf" }) as HTMLInputElement).checked).toBe(true);
    expect(choice("skills").getByText("not enabled")).toBeTruthy();
    fireEvent.click(choice("skills").getByLabelText("All enabled skills"));
    expect(choice("skills").queryAllByRole("checkbox")).toHaveLength(0);
    fireEvent.click(choice("tools").getByRole("checkbox", { name: "bash" }));
    fireEvent.change(field("Description"), { target: { value: "" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("save-agent"));
    });
    expect(sent).toEqual([
      {
        method: "PATCH",
        path: "/api/assistants/a-1",
        body: {
          name: "Translator",
          description: "",
          context: { ui_color: "blue", system_prompt: "Translate.", tools: ["bash", "ls"] },
        },
      },
    ]);
    expect(onSaved).toHaveBeenCalledTimes(1);
  });

  it("round-trips whose the agent's memory is: its own is sent, shared (the default) is left out", async () => {
    const sent = serve();
    renderForm();
    await screen.findByRole("option", { name: "smart" });
    const memory = field("Memory") as unknown as HTMLSelectElement;
    expect(memory.value).toBe("shared");
    expect(memory.selectedOptions[0]?.textContent).toBe("What it learns is shared with your other agents");
    fireEvent.change(field("Name"), { target: { value: "Private" } });
    fireEvent.change(memory, { target: { value: "assistant" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("save-agent"));
    });
    expect(sent[0]?.body).toEqual({ graph_id: "agent", name: "Private", context: { memory_scope: "assistant" } });
    cleanup();

    // An agent whose memory is its own shows so; back to shared, the key goes (other keys stay).
    const again = serve();
    renderForm(agent("a-1", "Private", { context: { memory_scope: "assistant", ui_color: "red" } }));
    await screen.findByRole("option", { name: "smart" });
    const scope = field("Memory") as unknown as HTMLSelectElement;
    expect(scope.value).toBe("assistant");
    expect(scope.selectedOptions[0]?.textContent).toBe("What it learns stays with this agent");
    fireEvent.change(scope, { target: { value: "shared" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("save-agent"));
    });
    expect(again[0]).toMatchObject({ method: "PATCH", body: { context: { ui_color: "red" } } });
  });

  it("counts the instructions against the schema's limit and will not save too many", async () => {
    const sent = serve();
    renderForm(agent("a-1", "Long"));
    await screen.findByRole("option", { name: "smart" });
    fireEvent.change(field("Instructions"), { target: { value: "x".repeat(20_003) } });
    expect(screen.getByTestId("instructions-count").textContent).toBe("20,003 / 20,000 characters: 3 too many");
    expect(field("Instructions").getAttribute("aria-invalid")).toBe("true");
    expect((screen.getByTestId("save-agent") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(field("Name"), { target: { value: "  " } });
    fireEvent.change(field("Instructions"), { target: { value: "ok" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("save-agent"));
    });
    // A name is needed: said here, nothing sent.
    await waitFor(() => expect(screen.getByTestId("agent-form-error").textContent).toBe("Give the agent a name."));
    expect(sent).toHaveLength(0);
  });
});

describe("Agent form: web tools (admins only)", () => {
  const webCheck = () => screen.getByLabelText("Web tools (search and read pages)") as HTMLInputElement;

  it("shows admins the web fields and people who are not admins none (nothing set)", async () => {
    serve(undefined, "admin");
    renderForm(null, true);
    await screen.findByRole("option", { name: "smart" });
    const group = within(screen.getByTestId("agent-web"));
    expect(group.getByText("Web tools")).toBeTruthy();
    expect(webCheck().checked).toBe(true);
    expect(webCheck().disabled).toBe(false);
    expect(field("Only these hosts").value).toBe("");
    expect(field("Never these hosts").value).toBe("");
    cleanup();

    serve(undefined, "user");
    renderForm(agent("a-1", "Plain"), true);
    await screen.findByRole("option", { name: "smart" });
    expect(screen.queryByTestId("agent-web")).toBeNull();
    expect(screen.queryByLabelText("Web tools (search and read pages)")).toBeNull();
    expect(screen.queryByLabelText("Only these hosts")).toBeNull();
    expect(screen.queryByLabelText("Never these hosts")).toBeNull();
    // The other admin-only fields are hidden from them alike.
    expect(screen.queryByLabelText("Sandbox image")).toBeNull();
  });

  it("sends web tools off with the hosts listed, one per line or comma-separated", async () => {
    const sent = serve(undefined, "admin");
    renderForm(null, true);
    await screen.findByRole("option", { name: "smart" });
    fireEvent.change(field("Name"), { target: { value: "Offline" } });
    fireEvent.click(webCheck());
    expect(webCheck().checked).toBe(false);
    fireEvent.change(field("Only these hosts"), { target: { value: " docs.rs\n*.python.org, 10.0.0.0/8\n\n" } });
    fireEvent.change(field("Never these hosts"), { target: { value: "ads.example.com" } });
    await save();
    expect(sent).toEqual([
      {
        method: "POST",
        path: "/api/assistants",
        body: {
          graph_id: "agent",
          name: "Offline",
          context: {
            web: {
              enabled: false,
              allowed_domains: ["docs.rs", "*.python.org", "10.0.0.0/8"],
              blocked_domains: ["ads.example.com"],
            },
          },
        },
      },
    ]);
  });

  it("leaves web out when the fields are left as they are, or emptied again", async () => {
    const sent = serve(undefined, "admin");
    renderForm(null, true);
    await screen.findByRole("option", { name: "smart" });
    fireEvent.change(field("Name"), { target: { value: "Default" } });
    await save();
    expect(sent[0]?.body).toEqual({ graph_id: "agent", name: "Default", context: {} });
    cleanup();

    // An admin clearing an agent's web settings takes them away (other keys stay).
    const again = serve(undefined, "admin");
    renderForm(agent("a-1", "Narrow", { context: { web: { blocked_domains: ["x.test"] }, ui_color: "red" } }), true);
    await screen.findByRole("option", { name: "smart" });
    fireEvent.change(field("Never these hosts"), { target: { value: "  " } });
    await save();
    expect(again[0]).toMatchObject({ method: "PATCH", path: "/api/assistants/a-1" });
    expect((again[0]?.body as { context: unknown }).context).toEqual({ ui_color: "red" });
  });

  it("loads an agent's web settings into the fields, and an admin's change is sent", async () => {
    const sent = serve(undefined, "admin");
    const current = agent("a-1", "Researcher", {
      context: { web: { enabled: false, allowed_domains: ["arxiv.org", "*.nih.gov"], blocked_domains: ["192.168.0.0/16"] } },
    });
    renderForm(current, true);
    await screen.findByRole("option", { name: "smart" });
    expect(webCheck().checked).toBe(false);
    expect(field("Only these hosts").value).toBe("arxiv.org\n*.nih.gov");
    expect(field("Never these hosts").value).toBe("192.168.0.0/16");
    fireEvent.click(webCheck());
    fireEvent.change(field("Only these hosts"), { target: { value: "arxiv.org" } });
    await save();
    expect((sent[0]?.body as { context: unknown }).context).toEqual({
      web: { allowed_domains: ["arxiv.org"], blocked_domains: ["192.168.0.0/16"] },
    });
  });

  it("keeps what an admin set when someone else saves other fields, shown to them read-only", async () => {
    const web = { enabled: true, allowed_domains: [] as string[] };
    const sent = serve(undefined, "user");
    renderForm(
      agent("a-1", "Locked", { context: { web, sandbox_image: "antler-sandbox:full", system_prompt: "Hi." } }),
      true,
    );
    await screen.findByRole("option", { name: "smart" });
    // {enabled: true, allowed_domains: []} shows as nothing set: hidden from them, like any unset field.
    expect(screen.queryByTestId("agent-web")).toBeNull();
    fireEvent.change(field("Instructions"), { target: { value: "Hello." } });
    await save();
    // Sent back exactly as it was, so the server sees no change to an admin-only setting.
    expect((sent[0]?.body as { context: unknown }).context).toEqual({
      system_prompt: "Hello.",
      sandbox_image: "antler-sandbox:full",
      web,
    });
    cleanup();

    const again = serve(undefined, "user");
    renderForm(agent("a-2", "Off", { context: { web: { enabled: false, blocked_domains: ["x.test"] } } }), true);
    await screen.findByRole("option", { name: "smart" });
    expect(webCheck().checked).toBe(false);
    expect(webCheck().disabled).toBe(true);
    expect(field("Never these hosts").disabled).toBe(true);
    expect(field("Never these hosts").value).toBe("x.test");
    fireEvent.change(field("Description"), { target: { value: "Changed" } });
    await save();
    expect(again[0]?.body).toMatchObject({
      description: "Changed",
      context: { web: { enabled: false, blocked_domains: ["x.test"] } },
    });
  });

  it("shows the server's refusal of a bad entry in the form", async () => {
    const refusal = json(
      { error: { code: "invalid_body", message: "context.web.allowed_domains[0]: presets (@packages) are not allowed here" } },
      422,
    );
    const sent = serve(refusal, "admin");
    const onSaved = renderForm(null, true);
    await screen.findByRole("option", { name: "smart" });
    fireEvent.change(field("Name"), { target: { value: "Bad" } });
    fireEvent.change(field("Only these hosts"), { target: { value: "@packages" } });
    await save();
    expect((await screen.findByTestId("agent-form-error")).textContent).toContain("context.web.allowed_domains[0]");
    expect(sent).toHaveLength(1);
    expect(onSaved).not.toHaveBeenCalled();
    expect(field("Only these hosts").value).toBe("@packages");
  });
});
