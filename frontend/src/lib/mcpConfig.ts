// Changing the MCP servers' configuration from Settings → Tools. `PUT /api/mcp/config` replaces
// the whole set, and `env`/`headers` values are never shown: every change reads the set, changes
// one server and sends the set back, the other servers as they were read with `null` for each
// hidden value (the server then keeps it).
import { api } from "../api/client";
import type { HiddenValue, McpConfigView, McpServerConfigView, McpTransport } from "../api/types";
import { t } from "../i18n";

/** One server as `PUT /api/mcp/config` takes it; a `null` env/header value keeps the current one. */
export interface McpServerBody {
  transport: McpTransport;
  command: string | null;
  args: string[];
  env: Record<string, string | null>;
  url: string | null;
  headers: Record<string, string | null>;
  enabled: boolean;
  description: string | null;
  eager: boolean;
  sandboxed?: boolean;
  init_timeout_secs?: number;
  call_timeout_secs: number;
  allow_tools: string[];
  deny_tools: string[];
}

export type McpServersBody = Record<string, McpServerBody>;

/** What the server takes as a name. */
export const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;
/** The rule of `SERVER_NAME` in English; `serverNameRule()` says it in the UI's language. */
export const SERVER_NAME_RULE = "1–32 letters, digits, - or _";
/** The rule of `SERVER_NAME`, for people (in the language in use when read). */
export function serverNameRule(): string {
  return t("lib.mcp.nameRule");
}
export const DEFAULT_CALL_TIMEOUT = 120;

/** Every key of a hidden map, sent as `null`: kept as it is. */
function keepAll(values: Record<string, HiddenValue>): Record<string, null> {
  return Object.fromEntries(Object.keys(values).map((k) => [k, null]));
}

/** A server sent back unchanged: as read, its hidden values kept. */
export function keptServer(view: McpServerConfigView): McpServerBody {
  return {
    transport: view.transport,
    command: view.command ?? null,
    args: view.args,
    env: keepAll(view.env),
    url: view.url ?? null,
    headers: keepAll(view.headers),
    enabled: view.enabled,
    description: view.description ?? null,
    eager: view.eager,
    sandboxed: view.sandboxed,
    init_timeout_secs: view.init_timeout_secs,
    call_timeout_secs: view.call_timeout_secs,
    allow_tools: view.allow_tools,
    deny_tools: view.deny_tools,
  };
}

/** The whole set as read, ready to be sent back. */
export function keptServers(config: McpConfigView): McpServersBody {
  return Object.fromEntries(Object.entries(config.servers).map(([name, view]) => [name, keptServer(view)]));
}

/** How a hidden value is shown: the variables it names, never the value. */
export function hiddenLabel(value: HiddenValue): string {
  const vars = value.variables.map((v) => `$${v}`).join(", ");
  if (!vars) return value.literal ? t("lib.mcp.hidden") : t("lib.mcp.hiddenEmpty");
  return value.literal ? t("lib.mcp.hiddenUsesAndText", { vars }) : t("lib.mcp.hiddenUses", { vars });
}

/**
 * Reads the set, lets `change` change it (the others as read), and sends it back. `change`
 * may throw to stop (its message is shown). Answers the configuration the server kept.
 */
export async function changeMcpServers(
  change: (servers: McpServersBody, read: McpConfigView) => void,
): Promise<McpConfigView> {
  const read = await api.mcpConfig();
  const servers = keptServers(read);
  change(servers, read);
  return api.putMcpConfig(servers as Record<string, unknown>);
}

/** One row of the environment or headers: `hidden` set for a value already configured. */
export interface KeyValueRow {
  id: number;
  key: string;
  /** The configured value, as shown; null for a row the admin added. */
  hidden: HiddenValue | null;
  /** What the admin typed; for a configured value, empty keeps it. */
  value: string;
}

/** The form's fields. */
export interface McpServerDraft {
  name: string;
  transport: McpTransport;
  command: string;
  /** One per line. */
  args: string;
  url: string;
  description: string;
  env: KeyValueRow[];
  headers: KeyValueRow[];
  enabled: boolean;
  eager: boolean;
  /** stdio: started inside each conversation's sandbox. */
  sandboxed: boolean;
  callTimeout: string;
  /** Comma separated. */
  allowTools: string;
  denyTools: string;
}

let nextRow = 1;
export const rowId = () => nextRow++;

function rowsOf(values: Record<string, HiddenValue>): KeyValueRow[] {
  return Object.entries(values).map(([key, hidden]) => ({ id: rowId(), key, hidden, value: "" }));
}

/** The form of `view` (named `name`), or of a new server when `view` is null. */
export function draftOfServer(name: string, view: McpServerConfigView | null): McpServerDraft {
  return {
    name,
    transport: view?.transport ?? "stdio",
    command: view?.command ?? "",
    args: (view?.args ?? []).join("\n"),
    url: view?.url ?? "",
    description: view?.description ?? "",
    env: view ? rowsOf(view.env) : [],
    headers: view ? rowsOf(view.headers) : [],
    enabled: view?.enabled ?? true,
    eager: view?.eager ?? false,
    sandboxed: view?.sandboxed ?? false,
    callTimeout: String(view?.call_timeout_secs ?? DEFAULT_CALL_TIMEOUT),
    allowTools: (view?.allow_tools ?? []).join(", "),
    denyTools: (view?.deny_tools ?? []).join(", "),
  };
}

const list = (text: string, separator: RegExp) =>
  text
    .split(separator)
    .map((s) => s.trim())
    .filter(Boolean);

/** The rows as sent: a configured value left empty is kept (`null`), a removed row is left out. */
function valuesOf(rows: KeyValueRow[], what: "variable" | "header"): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const row of rows) {
    const key = row.key.trim();
    if (!key) {
      if (row.value) throw new Error(t(`lib.mcp.${what}NeedsName`));
      continue;
    }
    if (key in out) throw new Error(t(`lib.mcp.${what}Twice`, { key }));
    out[key] = row.hidden && row.value === "" ? null : row.value;
  }
  return out;
}

/**
 * The server the form describes, on top of what was read (`view`, null for a new one: what the
 * form does not show, like the start timeout, stays as read). Throws what is wrong with it.
 */
export function serverOfDraft(draft: McpServerDraft, view: McpServerConfigView | null): McpServerBody {
  const stdio = draft.transport === "stdio";
  if (stdio && !draft.command.trim()) throw new Error(t("lib.mcp.needCommand"));
  if (!stdio && !/^https?:\/\//.test(draft.url.trim())) throw new Error(t("lib.mcp.needUrl"));
  const timeout = Number(draft.callTimeout);
  if (!Number.isInteger(timeout) || timeout < 1) throw new Error(t("lib.mcp.badTimeout"));
  const body: McpServerBody = {
    transport: draft.transport,
    command: stdio ? draft.command.trim() : null,
    args: stdio ? list(draft.args, /\r?\n/) : [],
    env: stdio ? valuesOf(draft.env, "variable") : {},
    url: stdio ? null : draft.url.trim(),
    headers: stdio ? {} : valuesOf(draft.headers, "header"),
    enabled: draft.enabled,
    description: draft.description.trim() || null,
    eager: draft.eager,
    sandboxed: stdio && draft.sandboxed,
    call_timeout_secs: timeout,
    allow_tools: list(draft.allowTools, /,/),
    deny_tools: list(draft.denyTools, /,/),
  };
  if (view) body.init_timeout_secs = view.init_timeout_secs;
  return body;
}
