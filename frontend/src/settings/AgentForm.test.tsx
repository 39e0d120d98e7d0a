// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Assistant, Skill } from "../api/types";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { agent, json, schemas } from "../test/agents";
import { AgentForm } from "./AgentForm";
import { polyfillDialog } from "../test/dialog";

const skill = (name: string, enabled = true): Partial<Skill> => ({ name, enabled, category: "public" });

interface Sent {
  method: string;
  path: string;
  body: unknown;
}

/** Serves the choices; a save answers `answer` (the saved agent by default) and is recorded. */
function serve(answer?: Response) {
  const sent: Sent[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = pathOf(input);
      const method = methodOf(input, init);
      if (path === "/api/assistants/agent/schemas") return json(schemas(["fast", "smart"], ["bash", "ls", "read_file"]));
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

function renderForm(current: Assistant | null = null) {
  const onSaved = vi.fn();
  render(<AgentForm open agent={current} onClose={() => undefined} onSaved={onSaved} />);
  return onSaved;
}

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
