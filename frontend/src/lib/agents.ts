// Custom agents (the server's assistants): their settings as the server reads them, what the
// graph's schema offers, and the request bodies the agent form sends.
import type { Assistant, AssistantCreate, AssistantPatch, AssistantSchemas } from "../api/types";
import { t } from "../i18n";

/** The graph every agent configures. */
export const GRAPH_ID = "agent";

/** The settings keys of an assistant's `context` (and of `config.configurable`). */
const SETTING_KEYS = [
  "system_prompt",
  "model_name",
  "skills",
  "tools",
  "memory_scope",
  "sandbox_image",
  "sandbox_network",
  "secrets",
  "web",
] as const;

/** How an agent's sandboxes reach the network ("" in a draft: the server's setting). */
export type NetworkMode = "none" | "allowlist" | "open";

export const NETWORK_MODES: readonly NetworkMode[] = ["none", "allowlist", "open"];

/** An agent's network policy over the server's (admins only). */
export interface AgentNetwork {
  mode?: NetworkMode;
  allowed_domains?: string[];
}

/**
 * An agent's web tools over the server's `web.*` (admins only): `enabled: false` takes
 * `web_search` and `web_fetch` away; `allowed_domains`, when given, are the only hosts they
 * may reach; `blocked_domains` hosts they may not (`example.com`, `*.example.com`, an IP or
 * a CIDR).
 */
export interface AgentWeb {
  enabled?: boolean;
  allowed_domains?: string[];
  blocked_domains?: string[];
}

/** Whose the facts an agent learns are: every agent's of the person (the default), or its own. */
export type MemoryScope = "shared" | "assistant";

export const MEMORY_SCOPES: readonly MemoryScope[] = ["shared", "assistant"];

/** An agent's settings; an absent list means "all", an empty one "none". */
export interface AgentSettings {
  system_prompt?: string;
  model_name?: string;
  skills?: string[];
  tools?: string[];
  memory_scope?: MemoryScope;
  /** The Docker image its sandboxes start from (admins only). */
  sandbox_image?: string;
  /** Its network policy (admins only). */
  sandbox_network?: AgentNetwork;
  /** Secrets its runs get, by name (admins only). */
  secrets?: string[];
  /** Its web tools (admins only). */
  web?: AgentWeb;
}

/** The built-in agent: read-only, every enabled skill and tool. */
export function isBuiltIn(a: Pick<Assistant, "metadata">): boolean {
  return a.metadata["created_by"] === "system";
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined;
}

/** The settings as the server reads them: `config.configurable`, then `context` over it. */
export function settingsOf(a: Pick<Assistant, "config" | "context">): AgentSettings {
  const configurable = a.config["configurable"];
  const merged: Record<string, unknown> = {};
  for (const source of [configurable, a.context]) {
    if (!source || typeof source !== "object") continue;
    for (const key of SETTING_KEYS) {
      if (key in source) merged[key] = (source as Record<string, unknown>)[key];
    }
  }
  const settings: AgentSettings = {};
  if (typeof merged["system_prompt"] === "string") settings.system_prompt = merged["system_prompt"];
  if (typeof merged["model_name"] === "string") settings.model_name = merged["model_name"];
  const skills = strings(merged["skills"]);
  if (skills) settings.skills = skills;
  const tools = strings(merged["tools"]);
  if (tools) settings.tools = tools;
  const scope = merged["memory_scope"];
  if (MEMORY_SCOPES.includes(scope as MemoryScope)) settings.memory_scope = scope as MemoryScope;
  if (typeof merged["sandbox_image"] === "string") settings.sandbox_image = merged["sandbox_image"];
  const net = merged["sandbox_network"];
  if (net && typeof net === "object") {
    const raw = net as Record<string, unknown>;
    const network: AgentNetwork = {};
    if (NETWORK_MODES.includes(raw["mode"] as NetworkMode)) network.mode = raw["mode"] as NetworkMode;
    const domains = strings(raw["allowed_domains"]);
    if (domains) network.allowed_domains = domains;
    settings.sandbox_network = network;
  }
  const secrets = strings(merged["secrets"]);
  if (secrets) settings.secrets = secrets;
  const web = merged["web"];
  if (web && typeof web === "object" && !Array.isArray(web)) {
    const raw = web as Record<string, unknown>;
    const policy: AgentWeb = {};
    if (typeof raw["enabled"] === "boolean") policy.enabled = raw["enabled"];
    const allowed = strings(raw["allowed_domains"]);
    if (allowed) policy.allowed_domains = allowed;
    const blocked = strings(raw["blocked_domains"]);
    if (blocked) policy.blocked_domains = blocked;
    settings.web = policy;
  }
  return settings;
}

/** What the settings schema offers: configured models, tool names, the instructions' limit. */
export interface AgentChoices {
  models: string[];
  tools: string[];
  maxPrompt: number;
}

/** The server's limit on instructions, used until the schema says otherwise. */
export const DEFAULT_MAX_PROMPT = 20_000;

function property(schema: unknown, ...path: string[]): unknown {
  let at = schema;
  for (const key of path) {
    if (!at || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** The choices `GET /api/assistants/agent/schemas` names in its `context_schema`. */
export function choicesOf(schemas: Pick<AssistantSchemas, "context_schema">): AgentChoices {
  const ctx = schemas.context_schema;
  const max = property(ctx, "properties", "system_prompt", "maxLength");
  return {
    models: strings(property(ctx, "properties", "model_name", "enum")) ?? [],
    tools: strings(property(ctx, "properties", "tools", "items", "enum")) ?? [],
    maxPrompt: typeof max === "number" && max > 0 ? max : DEFAULT_MAX_PROMPT,
  };
}

/** Characters as the server counts them (code points: an emoji is one). */
export function charCount(text: string): number {
  return Array.from(text).length;
}

/** What the agent form holds. `skills`/`tools` null: all of them. */
export interface AgentDraft {
  name: string;
  description: string;
  instructions: string;
  /** "" for the server's default model. */
  model: string;
  skills: string[] | null;
  tools: string[] | null;
  memoryScope: MemoryScope;
  /** "" for the server's image. */
  sandboxImage: string;
  /** "" for the server's network setting. */
  networkMode: NetworkMode | "";
  /** The allow-list, one entry per line; "" for the server's. */
  allowedDomains: string;
  /** Secrets its runs get, comma-separated. */
  secrets: string;
  /** Whether it has the web tools (unchecked: `web.enabled: false`). */
  webEnabled: boolean;
  /** The only hosts its web tools may reach, one entry per line; "" for no such limit. */
  webAllowed: string;
  /** Hosts its web tools may not reach, one entry per line. */
  webBlocked: string;
}

/** The form's starting values: empty for a new agent, else the agent's. */
export function draftOf(a?: Assistant | null): AgentDraft {
  if (!a)
    return {
      name: "",
      description: "",
      instructions: "",
      model: "",
      skills: null,
      tools: null,
      memoryScope: "shared",
      sandboxImage: "",
      networkMode: "",
      allowedDomains: "",
      secrets: "",
      webEnabled: true,
      webAllowed: "",
      webBlocked: "",
    };
  const s = settingsOf(a);
  return {
    name: a.name,
    description: a.description ?? "",
    instructions: s.system_prompt ?? "",
    model: s.model_name ?? "",
    skills: s.skills ?? null,
    tools: s.tools ?? null,
    memoryScope: s.memory_scope ?? "shared",
    sandboxImage: s.sandbox_image ?? "",
    networkMode: s.sandbox_network?.mode ?? "",
    allowedDomains: (s.sandbox_network?.allowed_domains ?? []).join("\n"),
    secrets: (s.secrets ?? []).join(", "),
    webEnabled: s.web?.enabled !== false,
    webAllowed: (s.web?.allowed_domains ?? []).join("\n"),
    webBlocked: (s.web?.blocked_domains ?? []).join("\n"),
  };
}

/** The settings of a draft: "all", empty and default fields are left out (the server's defaults). */
export function settingsOfDraft(d: AgentDraft): AgentSettings {
  const settings: AgentSettings = {};
  if (d.instructions.trim()) settings.system_prompt = d.instructions;
  if (d.model) settings.model_name = d.model;
  if (d.skills) settings.skills = d.skills;
  if (d.tools) settings.tools = d.tools;
  if (d.memoryScope !== "shared") settings.memory_scope = d.memoryScope;
  if (d.sandboxImage.trim()) settings.sandbox_image = d.sandboxImage.trim();
  const secrets = domainsOf(d.secrets);
  if (secrets.length) settings.secrets = secrets;
  const domains = domainsOf(d.allowedDomains);
  if (d.networkMode || domains.length) {
    settings.sandbox_network = {
      ...(d.networkMode ? { mode: d.networkMode } : {}),
      ...(domains.length ? { allowed_domains: domains } : {}),
    };
  }
  const allowed = domainsOf(d.webAllowed);
  const blocked = domainsOf(d.webBlocked);
  if (!d.webEnabled || allowed.length || blocked.length) {
    settings.web = {
      ...(d.webEnabled ? {} : { enabled: false }),
      ...(allowed.length ? { allowed_domains: allowed } : {}),
      ...(blocked.length ? { blocked_domains: blocked } : {}),
    };
  }
  return settings;
}

/** Allow-list entries from a text field: one per line or comma-separated. */
export function domainsOf(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((e) => e.trim())
    .filter(Boolean);
}

/** `POST /api/assistants` body. */
export function createBody(d: AgentDraft): AssistantCreate {
  const description = d.description.trim();
  return {
    graph_id: GRAPH_ID,
    name: d.name.trim(),
    ...(description ? { description } : {}),
    context: { ...settingsOfDraft(d) },
  };
}

function withoutSettings(source: unknown): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...(source && typeof source === "object" ? source : {}) };
  for (const key of SETTING_KEYS) delete rest[key];
  return rest;
}

/**
 * `PATCH /api/assistants/{id}` body. The context is replaced as a whole, so keys other clients
 * keep there stay; the description is always sent ("" clears it: null would keep it); settings
 * in `config.configurable` (SDK clients put them there) are dropped, or they would come back
 * from under a setting left at "all". Web settings the form leaves as they were are sent as the
 * agent has them.
 */
export function patchBody(a: Assistant, d: AgentDraft): AssistantPatch {
  const configurable = a.config["configurable"];
  const stale =
    !!configurable && typeof configurable === "object" && SETTING_KEYS.some((k) => k in (configurable as object));
  const settings = settingsOfDraft(d);
  // Web settings left as they were go back as they were (the server lets only admins change
  // them, and compares them exactly: `{enabled: true}` or an empty list must not be dropped).
  const web = settingsOf(a).web;
  const was = draftOf(a);
  if (web && d.webEnabled === was.webEnabled && d.webAllowed === was.webAllowed && d.webBlocked === was.webBlocked) {
    settings.web = web;
  }
  return {
    name: d.name.trim(),
    description: d.description.trim(),
    context: { ...withoutSettings(a.context), ...settings },
    ...(stale ? { config: { ...a.config, configurable: withoutSettings(configurable) } } : {}),
  };
}

/** "All skills", "No skills", "1 skill", "3 skills" (`noun`: what the list holds). */
export function countLabel(list: string[] | undefined, noun: "skill" | "tool"): string {
  if (!list) return t(`lib.agents.${noun}s.all`);
  if (list.length === 0) return t(`lib.agents.${noun}s.none`);
  return t(`lib.agents.${noun}s.count`, { count: list.length });
}

/** The built-in first, then by name. */
export function sortAgents(list: Assistant[]): Assistant[] {
  return [...list].sort(
    (a, b) => Number(isBuiltIn(b)) - Number(isBuiltIn(a)) || a.name.localeCompare(b.name, undefined, { sensitivity: "base" }),
  );
}

/**
 * The agent a run uses for `wanted` (a choice, or a thread's `assistant_id`), given the agents
 * known (`undefined`: not loaded yet, then `wanted` as it is). An agent the list does not
 * have (deleted; or `agent`/`lead_agent`, the built-in's other names) is the built-in;
 * nothing wanted: undefined (the default, the built-in).
 */
export function resolveAgent(list: Assistant[] | undefined, wanted: string | null | undefined): string | undefined {
  if (!wanted) return undefined;
  if (!list) return wanted;
  if (list.some((a) => a.assistant_id === wanted)) return wanted;
  return list.find(isBuiltIn)?.assistant_id ?? wanted;
}
