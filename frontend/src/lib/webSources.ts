// The web pages a run searched up or read (`web_search`, `web_fetch`): numbered once for the
// whole run, subagents included, and cited by the answer as `[n]`. They come from the calls'
// results (`artifact.web.sources`; a subagent's task's `artifact.task.sources`, when the server
// records them) and, while a run streams, from its `sources` events (a subagent's inside its
// task's `task_event`s, kept under the lead's `task` call).
import type { components } from "../api/schema";
import type { CustomEvent } from "../api/types";
import type { AssistantGroup } from "./grouping";
import type { ToolCall, ToolMessage } from "./messages";

export type WebSource = components["schemas"]["WebSource"];
export type SourcesEvent = Extract<CustomEvent, { type: "sources" }>;

export const WEB_SEARCH = "web_search";
export const WEB_FETCH = "web_fetch";

/** Sources the run's calls reported while it streamed, by call id (a subagent's by its
 * `task` call); kept after the run, like subagents' tasks. */
export type SourceMap = Readonly<Record<string, readonly WebSource[]>>;

export const NO_SOURCES: SourceMap = {};

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** The address a link may point at: only http(s) URLs (never `javascript:`, `data:`…). */
export function safeHref(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** The host of a URL for display (without `www.`), or "". */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return "";
  }
}

/** The well-formed sources of a list from the wire. */
export function sourcesOf(raw: unknown): WebSource[] {
  if (!Array.isArray(raw)) return [];
  const out: WebSource[] = [];
  for (const item of raw as unknown[]) {
    if (!item || typeof item !== "object") continue;
    const s = item as Record<string, unknown>;
    const index = num(s["index"]);
    const url = typeof s["url"] === "string" ? s["url"] : undefined;
    if (index === undefined || index < 1 || !Number.isInteger(index) || url === undefined) continue;
    const domain = typeof s["domain"] === "string" ? s["domain"] : hostOf(url);
    out.push({
      index,
      url,
      domain,
      title: str(s["title"]) ?? (domain || url),
      kind: s["kind"] === "fetch" ? "fetch" : "search",
    });
  }
  return out;
}

/** A call's result's `artifact.web`, if it has one. */
function webArtifact(result: Pick<ToolMessage, "artifact"> | undefined): Record<string, unknown> | undefined {
  const web = result?.artifact?.["web"];
  return web && typeof web === "object" && !Array.isArray(web) ? (web as Record<string, unknown>) : undefined;
}

/** `map` with the sources a call reported added (the same map when there are none). */
export function withSources(map: SourceMap, callId: string, sources: readonly WebSource[]): SourceMap {
  if (!callId || sources.length === 0) return map;
  return { ...map, [callId]: [...(map[callId] ?? []), ...sources] };
}

/** The call and sources of a `sources` event: the lead's own, or a subagent's inside a
 * `task_event` (kept under the task's call, where the lead's answer is). */
export function sourcesEventOf(event: CustomEvent): { callId: string; sources: WebSource[] } | undefined {
  if (event.type === "sources") return { callId: event.tool_call_id, sources: sourcesOf(event.sources) };
  if (event.type === "task_event" && event.event === "custom") {
    const data = event.data as { type?: unknown; sources?: unknown } | null;
    if (data?.type === "sources") return { callId: event.task_id, sources: sourcesOf(data.sources) };
  }
  return undefined;
}

/**
 * One list from several reports, by number. A run reports a source again when its page is read
 * (then `fetch`, with the page's title when the search gave none): what is known of the same
 * page is kept whichever report came first; another page under the same number (a later run
 * in the same reply) replaces it.
 */
export function mergeSources(lists: Iterable<readonly WebSource[]>): WebSource[] {
  const byIndex = new Map<number, WebSource>();
  for (const list of lists) {
    for (const s of list) {
      const old = byIndex.get(s.index);
      if (!old || old.url !== s.url) {
        byIndex.set(s.index, s);
        continue;
      }
      const titled = (x: WebSource) => x.title !== x.domain;
      byIndex.set(s.index, {
        ...s,
        title: titled(old) && !titled(s) ? old.title : s.title,
        kind: old.kind === "fetch" || s.kind === "fetch" ? "fetch" : "search",
      });
    }
  }
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
}

/** The sources a call's result records: a web tool's (`artifact.web.sources`), or those a
 * subagent's task numbered (`artifact.task.sources`). */
function resultSources(result: Pick<ToolMessage, "artifact"> | undefined): WebSource[] {
  const web = webArtifact(result);
  if (web) return sourcesOf(web["sources"]);
  const task = result?.artifact?.["task"];
  return task && typeof task === "object" ? sourcesOf((task as Record<string, unknown>)["sources"]) : [];
}

/** The web sources of one reply: its calls' results, and what its calls reported live. */
export function turnSources(block: Pick<AssistantGroup, "items">, live: SourceMap = NO_SOURCES): WebSource[] {
  const lists: (readonly WebSource[])[] = [];
  for (const item of block.items) {
    if (item.kind !== "tool") continue;
    const fromResult = resultSources(item.result);
    if (fromResult.length) lists.push(fromResult);
    const reported = live[item.call.id];
    if (reported?.length) lists.push(reported);
  }
  return lists.length ? mergeSources(lists) : [];
}

/** The page anchor of a reply's source `n` (unique on the page: the reply's key is in it). */
export function sourceAnchor(turnKey: string, index: number): string {
  return `source-${turnKey.replace(/[^A-Za-z0-9_-]/g, "_")}-${index}`;
}

/** What a citation `[n]` links to. */
export interface CitationTarget {
  /** The Sources item's id. */
  anchor: string;
  title: string;
}

const NO_TARGETS: ReadonlyMap<number, CitationTarget> = new Map();

/** Citation targets by number, for a reply's sources. */
export function citationTargets(turnKey: string, sources: readonly WebSource[]): ReadonlyMap<number, CitationTarget> {
  if (sources.length === 0) return NO_TARGETS;
  return new Map(sources.map((s) => [s.index, { anchor: sourceAnchor(turnKey, s.index), title: s.title }]));
}

/** One result of a search. */
export interface WebResult {
  /** Its source number (none past the run's limit). */
  index?: number;
  title: string;
  url: string;
  domain: string;
  snippet?: string;
  published?: string;
}

/** What a web tool card shows of its result. */
export type WebView =
  | { kind: "search"; query: string; provider?: string; results: WebResult[] }
  | {
      kind: "fetch";
      url: string;
      /** The address asked for, when it was redirected elsewhere. */
      requestedUrl?: string;
      title?: string;
      domain: string;
      index?: number;
      contentType?: string;
      characters?: number;
      offset?: number;
      end?: number;
    };

/** The card view of a `web_search` or `web_fetch` call's result (none for other tools, or
 * before the result, or when it failed). */
export function webView(call: Pick<ToolCall, "name" | "args"> | undefined, result: ToolMessage | undefined): WebView | undefined {
  const name = call?.name ?? result?.name;
  const web = webArtifact(result);
  if (!web || result?.status === "error") return undefined;
  const sources = sourcesOf(web["sources"]);
  if (name === WEB_SEARCH) {
    const raw = Array.isArray(web["results"]) ? (web["results"] as unknown[]) : [];
    const results: WebResult[] = [];
    for (const r of raw) {
      if (!r || typeof r !== "object") continue;
      const o = r as Record<string, unknown>;
      const url = typeof o["url"] === "string" ? o["url"] : "";
      if (!url) continue;
      const index = num(o["index"]);
      const source = index !== undefined ? sources.find((s) => s.index === index) : undefined;
      const domain = source?.domain ?? hostOf(url);
      results.push({
        ...(index !== undefined ? { index } : {}),
        title: str(o["title"]) ?? source?.title ?? (domain || url),
        url,
        domain,
        ...(str(o["snippet"]) ? { snippet: str(o["snippet"]) } : {}),
        ...(str(o["published"]) ? { published: str(o["published"]) } : {}),
      });
    }
    return {
      kind: "search",
      query: str(web["query"]) ?? str(call?.args["query"]) ?? "",
      ...(str(web["provider"]) ? { provider: str(web["provider"]) } : {}),
      results,
    };
  }
  if (name === WEB_FETCH) {
    const url = typeof web["url"] === "string" ? web["url"] : (str(call?.args["url"]) ?? "");
    const requested = str(web["requested_url"]);
    const source = sources.find((s) => s.url === url) ?? sources[0];
    const title = str(web["title"]) ?? (source && source.title !== source.domain ? source.title : undefined);
    const n = (key: string) => num(web[key]);
    return {
      kind: "fetch",
      url,
      ...(requested && requested !== url ? { requestedUrl: requested } : {}),
      ...(title ? { title } : {}),
      domain: source?.domain ?? hostOf(url),
      ...(source ? { index: source.index } : {}),
      ...(str(web["content_type"]) ? { contentType: str(web["content_type"]) } : {}),
      ...(n("characters") !== undefined ? { characters: n("characters") } : {}),
      ...(n("offset") !== undefined ? { offset: n("offset") } : {}),
      ...(n("end") !== undefined ? { end: n("end") } : {}),
    };
  }
  return undefined;
}
