// How a tool call and its result read in a compact card.
import type { ToolCall, ToolMessage } from "./messages";
import { imagesOf, textOf } from "./messages";
import { basename, languageFor } from "./fileKind";
import { progressLabel, todosOf } from "./todos";
import { formatDecimal } from "./format";
import { t } from "../i18n";

/** The built-in tools with a title of their own (`lib.tools.<name>` in the catalogues). */
const TITLED = new Set([
  "bash",
  "ls",
  "read_file",
  "write_file",
  "str_replace",
  "glob",
  "grep",
  "present_files",
  "ask_clarification",
  "tool_search",
  "write_todos",
  "web_search",
  "web_fetch",
]);

/** "Run command" for `bash`; any other tool by its own name. */
export function toolTitle(name: string): string {
  return TITLED.has(name) ? t(`lib.tools.${name}`) : name;
}

/** Where an MCP tool call goes: the server and the tool's MCP name. */
export interface McpOrigin {
  server: string;
  tool: string;
}

/**
 * The MCP server and tool of a call: from its result's `artifact.mcp` (the exact names), else
 * from the model-facing name `mcp__<server>__<tool>` (cleaned for the model, so close enough
 * while the call runs). None for other tools.
 */
export function mcpOrigin(name: string, result?: Pick<ToolMessage, "artifact">): McpOrigin | undefined {
  const mcp = result?.artifact?.["mcp"];
  if (mcp && typeof mcp === "object") {
    const { server, tool } = mcp as { server?: unknown; tool?: unknown };
    if (typeof server === "string" && typeof tool === "string") return { server, tool };
  }
  const m = /^mcp__(.+?)__(.+)$/.exec(name);
  return m?.[1] && m[2] ? { server: m[1], tool: m[2] } : undefined;
}

/** A card's title, and the MCP server it calls (shown as a label). */
export function toolHeading(name: string, result?: Pick<ToolMessage, "artifact">): { title: string; mcp?: McpOrigin } {
  const mcp = mcpOrigin(name, result);
  return mcp ? { title: mcp.tool, mcp } : { title: toolTitle(name) };
}

/** Images an MCP tool returned (`artifact.images`: `{mimeType, data}`), as data URLs. */
export function resultImages(result: Pick<ToolMessage, "artifact"> | undefined): string[] {
  const images = result?.artifact?.["images"];
  if (!Array.isArray(images)) return [];
  // Only inline base64 images: a URL in a tool's artifact would make the browser fetch it.
  return imagesOf(
    images.map((i: unknown) => {
      const { mimeType, data } = (i && typeof i === "object" ? i : {}) as { mimeType?: unknown; data?: unknown };
      return { type: "image", mimeType, data };
    }),
  );
}

/** A string with something in it, or undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value : undefined;
}

function firstLine(text: string, max = 120): string {
  const line = text.split("\n")[0] ?? "";
  const cut = line.length > max ? `${line.slice(0, max - 1)}…` : line;
  return text.includes("\n") ? `${cut} …` : cut;
}

/** One line naming what the call works on (command, path, pattern…). */
export function toolSummary(call: Pick<ToolCall, "name" | "args">): string {
  const a = call.args;
  switch (call.name) {
    case "bash":
      return str(a["command"]) ? `$ ${firstLine(str(a["command"]) ?? "")}` : "";
    case "ls":
    case "read_file":
    case "write_file":
    case "str_replace":
      return str(a["path"]) ?? "";
    case "glob":
    case "grep": {
      const pattern = str(a["pattern"]) ?? "";
      const path = str(a["path"]);
      return path ? t("lib.tool.patternIn", { pattern, path }) : pattern;
    }
    case "present_files": {
      const files = Array.isArray(a["filepaths"]) ? a["filepaths"] : [];
      return files.filter((f): f is string => typeof f === "string").map(basename).join(", ");
    }
    case "ask_clarification":
      return str(a["question"]) ?? "";
    case "tool_search":
    case "web_search":
      return str(a["query"]) ?? "";
    case "web_fetch":
      return str(a["url"]) ?? "";
    case "write_todos": {
      const todos = todosOf(a["todos"]);
      return todos.length ? progressLabel(todos) : "";
    }
    default:
      return "";
  }
}

/** The model's stated reason for the call (the `description` argument), if any. */
export function toolPurpose(call: Pick<ToolCall, "args">): string | undefined {
  return str(call.args["description"]);
}

/** The arguments worth showing, pretty-printed (without `description`). */
export function formatArgs(args: Record<string, unknown>): string {
  const { description: _omit, ...rest } = args;
  void _omit;
  return Object.keys(rest).length ? JSON.stringify(rest, null, 2) : "";
}

export type ToolStatus = "running" | "success" | "error";

export interface ToolResultView {
  status: ToolStatus;
  /** Output text (bash: without the trailing `[exit code: N]` line). */
  output: string;
  exitCode?: number | null;
  timedOut?: boolean;
  cancelled?: boolean;
  /** Highlighting language for the output (read_file of a code file). */
  language?: string;
  /** What a command connected to through the egress proxy. */
  network?: NetworkView;
}

/** One connection through the egress proxy (the tool artifact's `network` entries). */
export interface NetworkConnection {
  host: string;
  port: number;
  method: string;
  allowed: boolean;
  error?: string;
  address?: string;
  bytes_sent: number;
  bytes_received: number;
  duration_ms: number;
}

/** A command's connections, counted for the card. */
export interface NetworkView {
  connections: NetworkConnection[];
  hosts: number;
  bytes: number;
  refused: number;
  failed: number;
}

/** `812 B`, `3.1 MB` (decimal units, as the server's summary line). */
export function humanBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit + 1 < units.length) {
    value /= 1000;
    unit += 1;
  }
  return `${formatDecimal(value, 1, true)} ${units[unit]}`;
}

function networkOf(raw: unknown): NetworkView | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const connections = raw.filter(
    (c): c is NetworkConnection => typeof c === "object" && c !== null && typeof (c as NetworkConnection).host === "string",
  );
  if (!connections.length) return undefined;
  return {
    connections,
    hosts: new Set(connections.map((c) => c.host)).size,
    bytes: connections.reduce((n, c) => n + (Number(c.bytes_sent) || 0) + (Number(c.bytes_received) || 0), 0),
    refused: connections.filter((c) => !c.allowed).length,
    failed: connections.filter((c) => c.allowed && c.error).length,
  };
}

/** "network: 2 hosts, 3.1 MB; 1 refused". */
export function networkLabel(n: NetworkView): string {
  let label = t("lib.tool.network", { count: n.hosts, bytes: humanBytes(n.bytes) });
  if (n.refused) label += t("lib.tool.networkRefused", { n: n.refused });
  if (n.failed) label += t("lib.tool.networkFailed", { n: n.failed });
  return label;
}

const EXIT_LINE = /\n?\[(exit code: (-?\d+|unknown)|timed out[^\]]*|cancelled)\]\s*$/;
/** The server's line on a command's connections, after its exit line. */
const NETWORK_LINE = /\n\[network: [^\n]*\]\s*$/;

export function toolResultView(
  call: Pick<ToolCall, "name" | "args"> | undefined,
  result: ToolMessage | undefined,
): ToolResultView {
  if (!result) return { status: "running", output: "" };
  const text = textOf(result.content);
  const failed = result.status === "error";
  const view: ToolResultView = { status: failed ? "error" : "success", output: text };
  const name = call?.name ?? result.name ?? "";
  if (name === "bash") {
    const art = (result.artifact ?? {}) as {
      exit_code?: number | null;
      timed_out?: boolean;
      cancelled?: boolean;
      network?: unknown;
    };
    view.network = networkOf(art.network);
    const net = NETWORK_LINE.exec(text);
    const body = net ? text.slice(0, net.index) : text;
    const m = EXIT_LINE.exec(body);
    view.output = m ? body.slice(0, m.index) : body;
    let code: number | null | undefined = art.exit_code;
    if (code === undefined && m?.[2] && m[2] !== "unknown") code = Number(m[2]);
    view.exitCode = code ?? null;
    view.timedOut = art.timed_out ?? /timed out/.test(m?.[1] ?? "");
    view.cancelled = art.cancelled ?? m?.[1] === "cancelled";
    if (view.timedOut || (typeof code === "number" && code !== 0)) view.status = "error";
  } else if (name === "read_file" && !failed) {
    const path = str(call?.args["path"]);
    if (path) view.language = languageFor(path);
  }
  return view;
}

/** Short status text for the card header. */
export function statusLabel(view: ToolResultView): string {
  if (view.status === "running") return t("lib.tool.running");
  if (view.timedOut) return t("lib.tool.timedOut");
  if (view.cancelled) return t("lib.tool.cancelled");
  if (view.exitCode !== undefined && view.exitCode !== null) return t("lib.tool.exit", { code: view.exitCode });
  return view.status === "error" ? t("lib.tool.error") : t("lib.tool.done");
}
