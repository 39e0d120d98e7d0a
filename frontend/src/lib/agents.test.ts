import { describe, expect, it } from "vitest";
import { BUILT_IN_ID, agent, builtIn, schemas } from "../test/agents";
import { choicesOf, countLabel, createBody, domainsOf, draftOf, patchBody, resolveAgent, settingsOf, sortAgents } from "./agents";

describe("agent settings", () => {
  it("reads config.configurable, then context over it, as the server does", () => {
    const a = agent("a-1", "Mixed", {
      config: { configurable: { model_name: "fast", system_prompt: "old" } },
      context: { system_prompt: "new", skills: ["pdf"], ui_color: "red" },
    });
    expect(settingsOf(a)).toEqual({ system_prompt: "new", model_name: "fast", skills: ["pdf"] });
  });

  it("reads whose the agent's memory is, ignoring a scope the server would refuse", () => {
    expect(settingsOf(agent("a", "A", { config: { configurable: { memory_scope: "assistant" } } }))).toEqual({ memory_scope: "assistant" });
    expect(settingsOf(agent("a", "A", { context: { memory_scope: "everyone" } }))).toEqual({});
    expect(draftOf(agent("a", "A")).memoryScope).toBe("shared");
  });

  it("reads and writes the sandbox image an admin set, and keeps it on an edit", () => {
    const a = agent("a", "A", { context: { sandbox_image: "acme/sandbox:2" } });
    expect(settingsOf(a)).toEqual({ sandbox_image: "acme/sandbox:2" });
    const draft = draftOf(a);
    expect(draft.sandboxImage).toBe("acme/sandbox:2");
    expect(patchBody(a, { ...draft, name: "B" }).context).toEqual({ sandbox_image: "acme/sandbox:2" });
    expect(patchBody(a, { ...draft, sandboxImage: "  " }).context).toEqual({});
    expect(createBody({ ...draftOf(null), name: "N", sandboxImage: " x:1 " }).context).toEqual({ sandbox_image: "x:1" });
  });

  it("takes the models, tools and instructions limit from the context schema", () => {
    expect(choicesOf(schemas(["fast", "smart"], ["bash", "ls"], 500))).toEqual({
      models: ["fast", "smart"],
      tools: ["bash", "ls"],
      maxPrompt: 500,
    });
    expect(choicesOf({ context_schema: {} })).toEqual({ models: [], tools: [], maxPrompt: 20_000 });
  });

  it("leaves out of a new agent what is empty or all", () => {
    const draft = { ...draftOf(null), name: "  Reviewer ", instructions: "  " };
    expect(createBody(draft)).toEqual({ graph_id: "agent", name: "Reviewer", context: {} });
    expect(createBody({ ...draft, description: "x", model: "fast", skills: [], tools: ["ls"] })).toEqual({
      graph_id: "agent",
      name: "Reviewer",
      description: "x",
      context: { model_name: "fast", skills: [], tools: ["ls"] },
    });
  });

  it("patches the whole context, keeping other clients' keys and dropping settings from config", () => {
    const a = agent("a-1", "Old", {
      description: "was",
      config: { configurable: { tools: ["bash"], thread_ttl: 5 }, tags: ["x"] },
      context: { skills: ["pdf"], ui_color: "red" },
    });
    const draft = { ...draftOf(a), skills: null, description: "" };
    expect(draftOf(a).tools).toEqual(["bash"]);
    expect(patchBody(a, draft)).toEqual({
      name: "Old",
      description: "",
      context: { ui_color: "red", tools: ["bash"] },
      config: { configurable: { thread_ttl: 5 }, tags: ["x"] },
    });
    // Nothing in config: it is not sent.
    expect(patchBody(agent("a-2", "B"), draftOf(agent("a-2", "B")))).toEqual({
      name: "B",
      description: "B agent",
      context: {},
    });
  });

  it("counts skills and tools, all when absent", () => {
    expect(countLabel(undefined, "skill")).toBe("All skills");
    expect(countLabel([], "tool")).toBe("No tools");
    expect(countLabel(["a"], "skill")).toBe("1 skill");
    expect(countLabel(["a", "b"], "tool")).toBe("2 tools");
  });
});

describe("resolveAgent", () => {
  const list = sortAgents([agent("a-2", "zeta"), agent("a-1", "Alpha"), builtIn]);

  it("puts the built-in first, then the names in order", () => {
    expect(list.map((a) => a.name)).toEqual(["Antler", "Alpha", "zeta"]);
  });

  it("keeps an agent that exists, and falls back to the built-in for one that does not", () => {
    expect(resolveAgent(list, "a-1")).toBe("a-1");
    expect(resolveAgent(list, "deleted")).toBe(BUILT_IN_ID);
    expect(resolveAgent(list, "lead_agent")).toBe(BUILT_IN_ID);
    expect(resolveAgent(list, null)).toBeUndefined();
    // Not loaded yet: as wanted.
    expect(resolveAgent(undefined, "deleted")).toBe("deleted");
  });
  it("keeps an agent's network policy and builds it from the form's fields", () => {
    const a = agent("a", "A", { context: { sandbox_network: { mode: "allowlist", allowed_domains: ["pypi.org", "*.npmjs.org"] } } });
    const draft = draftOf(a);
    expect(draft.networkMode).toBe("allowlist");
    expect(draft.allowedDomains).toBe("pypi.org\n*.npmjs.org");
    expect(patchBody(a, draft).context).toEqual({ sandbox_network: { mode: "allowlist", allowed_domains: ["pypi.org", "*.npmjs.org"] } });
    expect(patchBody(a, { ...draft, networkMode: "", allowedDomains: " " }).context).toEqual({});
    expect(createBody({ ...draftOf(null), name: "N", networkMode: "none" }).context).toEqual({ sandbox_network: { mode: "none" } });
    expect(domainsOf("a.com, b.com\n\n @packages ")).toEqual(["a.com", "b.com", "@packages"]);
    const withSecrets = agent("s", "S", { context: { secrets: ["IMAGE_API_KEY", "TOKEN"] } });
    expect(draftOf(withSecrets).secrets).toBe("IMAGE_API_KEY, TOKEN");
    expect(patchBody(withSecrets, draftOf(withSecrets)).context).toEqual({ secrets: ["IMAGE_API_KEY", "TOKEN"] });
  });
  it("reads an agent's web settings (from config.configurable too) and sends unchanged ones back as they were", () => {
    const web = { enabled: true, allowed_domains: [], blocked_domains: ["x.test"] };
    const sdk = agent("w", "W", { config: { configurable: { web } } });
    expect(settingsOf(sdk)).toEqual({ web });
    const draft = draftOf(sdk);
    expect([draft.webEnabled, draft.webAllowed, draft.webBlocked]).toEqual([true, "", "x.test"]);
    // Unchanged: exactly as it was (moved into the context with the other settings).
    expect(patchBody(sdk, draft)).toMatchObject({ context: { web }, config: { configurable: {} } });
    // Changed: as the fields say; all empty and checked, left out.
    expect(patchBody(sdk, { ...draft, webEnabled: false }).context).toEqual({
      web: { enabled: false, blocked_domains: ["x.test"] },
    });
    expect(patchBody(sdk, { ...draft, webBlocked: "" }).context).toEqual({});
    expect(createBody({ ...draftOf(null), name: "N", webAllowed: "a.com, *.b.com" }).context).toEqual({
      web: { allowed_domains: ["a.com", "*.b.com"] },
    });
    expect(settingsOf(agent("x", "X", { context: { web: { enabled: "no", allowed_domains: [1, "a.com"] } } }))).toEqual({
      web: { allowed_domains: ["a.com"] },
    });
  });
});
