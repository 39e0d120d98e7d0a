// What model calls used, as AI messages carry it (LangChain's `usage_metadata`, and
// `response_metadata.cost_usd` / `model_name`): summed per reply, formatted compactly, and
// how full the model's context window is.
import { t } from "../i18n";
import { formatDecimal } from "./format";
import type { Message } from "./messages";

export interface Usage {
  /** Model calls counted. */
  calls: number;
  /** Prompt tokens, cached ones included. */
  input: number;
  /** Prompt tokens read from the provider's cache. */
  cached: number;
  /** Prompt tokens written to the provider's cache. */
  cacheWrite: number;
  /** Completion tokens, reasoning included. */
  output: number;
  reasoning: number;
  /** US dollars; undefined when no call was priced. */
  cost?: number;
  /** The configured models that answered. */
  models: string[];
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The usage an AI message reports; undefined when it reports none. */
export function messageUsage(m: Message): Usage | undefined {
  if (m.type !== "ai") return undefined;
  const u = obj(m.usage_metadata);
  if (!("input_tokens" in u) && !("output_tokens" in u)) return undefined;
  const inDetails = obj(u["input_token_details"]);
  const outDetails = obj(u["output_token_details"]);
  const meta = obj(m.response_metadata);
  const cost = meta["cost_usd"];
  const model = meta["model_name"];
  return {
    calls: 1,
    input: num(u["input_tokens"]),
    cached: num(inDetails["cache_read"]),
    cacheWrite: num(inDetails["cache_creation"]),
    output: num(u["output_tokens"]),
    reasoning: num(outDetails["reasoning"]),
    ...(typeof cost === "number" && Number.isFinite(cost) ? { cost } : {}),
    models: typeof model === "string" && model ? [model] : [],
  };
}

/** Something worth showing: tokens were counted or a cost was (a server that counts nothing
 * reports zeros). */
export const hasUsage = (u: Usage | undefined): u is Usage => !!u && (u.input > 0 || u.output > 0 || u.cost !== undefined);

/** Two usages added up. */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a || !b) return a ?? b;
  const cost = a.cost === undefined && b.cost === undefined ? undefined : (a.cost ?? 0) + (b.cost ?? 0);
  return {
    calls: a.calls + b.calls,
    input: a.input + b.input,
    cached: a.cached + b.cached,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
    ...(cost !== undefined ? { cost } : {}),
    models: [...new Set([...a.models, ...b.models])],
  };
}

/** "950", "1.2k", "12k", "1.3M": a token count at a glance. */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n) || n < 0) return "0";
  if (n < 1000) return String(Math.round(n));
  if (n < 10_000) return `${trim((n / 1000).toFixed(1))}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  if (n < 10_000_000) return `${trim((n / 1_000_000).toFixed(1))}M`;
  return `${Math.round(n / 1_000_000)}M`;
}

const trim = (s: string) => s.replace(/\.0$/, "");

/** "$0.0042", "$0.12", "$12.50": a cost with the digits that matter. */
export function formatCost(usd: number): string {
  if (!Number.isFinite(usd) || usd <= 0) return "$0";
  if (usd < 0.0001) return "<$0.0001";
  if (usd < 0.01) return `$${usd.toPrecision(2).replace(/0+$/, "")}`;
  return `$${usd.toFixed(2)}`;
}

/** The line under an answer: "1.2k in · 0 cached · 350 out · $0.0042". */
export function usageSummary(u: Usage): string {
  const parts = [
    t("lib.usage.in", { n: formatTokens(u.input) }),
    t("lib.usage.cached", { n: formatTokens(u.cached) }),
    t("lib.usage.out", { n: formatTokens(u.output) }),
  ];
  if (u.cost !== undefined) parts.push(formatCost(u.cost));
  return parts.join(" · ");
}

/** Every figure, for the line's tooltip. */
export function usageDetails(u: Usage): string {
  const n = (v: number) => formatDecimal(v);
  const calls = t("lib.usage.calls", { count: u.calls, n: n(u.calls) });
  const lines = [
    u.models.length ? t("lib.usage.callsOf", { calls, models: u.models.join(", ") }) : calls,
    u.cacheWrite
      ? t("lib.usage.inputCacheWrite", { input: n(u.input), cached: n(u.cached), written: n(u.cacheWrite) })
      : t("lib.usage.input", { input: n(u.input), cached: n(u.cached) }),
    u.reasoning
      ? t("lib.usage.outputReasoning", { output: n(u.output), reasoning: n(u.reasoning) })
      : t("lib.usage.output", { output: n(u.output) }),
  ];
  if (u.cost !== undefined) {
    lines.push(t("lib.usage.cost", { cost: `$${u.cost.toFixed(6).replace(/0+$/, "").replace(/\.$/, "")}` }));
  }
  return lines.join("\n");
}

/** How full the next request will be: the last AI message's input plus output tokens (what
 * it read and what it added). Undefined before any answer reports usage. */
export function contextUsed(messages: Message[]): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    const u = m ? messageUsage(m) : undefined;
    if (u) return u.input + u.output;
  }
  return undefined;
}
