import { describe, expect, it } from "vitest";
import { ApiError } from "../api/http";
import type { AIMessage, Message } from "./messages";
import { addUsage, contextUsed, hasUsage, formatCost, formatTokens, messageUsage, usageDetails, usageSummary } from "./usage";
import { describeLimit, formatResetTime, usageLimitOf } from "./usageLimit";

const answer = (id: string, usage: Record<string, unknown> | undefined, meta: Record<string, unknown> = {}): AIMessage =>
  ({ type: "ai", id, content: "ok", usage_metadata: usage, response_metadata: meta }) as AIMessage;

describe("usage", () => {
  it("reads LangChain's usage_metadata, cost and model of an AI message", () => {
    const m = answer(
      "a1",
      { input_tokens: 1200, output_tokens: 300, total_tokens: 1500, input_token_details: { cache_read: 1000 }, output_token_details: { reasoning: 120 } },
      { model_name: "claude", cost_usd: 0.0042 },
    );
    expect(messageUsage(m)).toEqual({ calls: 1, input: 1200, cached: 1000, cacheWrite: 0, output: 300, reasoning: 120, cost: 0.0042, models: ["claude"] });
    expect(messageUsage(answer("a2", undefined))).toBeUndefined();
    expect(messageUsage({ type: "human", id: "h", content: "hi" } as Message)).toBeUndefined();
  });

  it("adds a reply's calls up; the cost only when some call was priced", () => {
    const a = messageUsage(answer("a1", { input_tokens: 100, output_tokens: 10, total_tokens: 110 }, { model_name: "x", cost_usd: 0.01 }));
    const b = messageUsage(answer("a2", { input_tokens: 200, output_tokens: 20, total_tokens: 220 }, { model_name: "x" }));
    const sum = addUsage(a, b);
    expect(sum).toMatchObject({ calls: 2, input: 300, output: 30, cost: 0.01, models: ["x"] });
    const unpriced = addUsage(b, b);
    expect(unpriced?.cost).toBeUndefined();
    expect(addUsage(undefined, b)).toBe(b);
  });

  it("has nothing to show when a server counts nothing", () => {
    const zero = messageUsage(answer("a0", { input_tokens: 0, output_tokens: 0, total_tokens: 0 }));
    expect(zero).toBeDefined();
    expect(hasUsage(zero)).toBe(false);
    expect(hasUsage(undefined)).toBe(false);
    expect(hasUsage(zero && { ...zero, cost: 0 })).toBe(true);
    expect(hasUsage(zero && { ...zero, input: 3 })).toBe(true);
  });

  it("formats token counts and costs compactly", () => {
    expect([950, 1234, 12_345, 1_300_000, 0].map(formatTokens)).toEqual(["950", "1.2k", "12k", "1.3M", "0"]);
    expect(formatTokens(1000)).toBe("1k");
    expect([0.0042, 0.004, 0.123, 12.5, 0, 0.00001].map(formatCost)).toEqual(["$0.0042", "$0.004", "$0.12", "$12.50", "$0", "<$0.0001"]);
  });

  it("summarises a reply in one line and every figure in its tooltip", () => {
    const u = { calls: 2, input: 1234, cached: 1000, cacheWrite: 50, output: 350, reasoning: 100, cost: 0.0042, models: ["claude"] };
    expect(usageSummary(u)).toBe("1.2k in · 1k cached · 350 out · $0.0042");
    expect(usageSummary({ ...u, cost: undefined })).toBe("1.2k in · 1k cached · 350 out");
    expect(usageDetails(u)).toBe(
      "2 model calls (claude)\nInput: 1,234 tokens (1,000 from cache, 50 written to cache)\nOutput: 350 tokens (100 reasoning)\nCost: $0.0042",
    );
  });

  it("measures the context from the last AI message that reports usage", () => {
    const messages: Message[] = [
      answer("a1", { input_tokens: 100, output_tokens: 10, total_tokens: 110 }),
      { type: "human", id: "h", content: "more" } as Message,
      answer("a2", { input_tokens: 500, output_tokens: 40, total_tokens: 540 }),
      answer("a3", undefined),
    ];
    expect(contextUsed(messages)).toBe(540);
    expect(contextUsed([])).toBeUndefined();
  });
});

describe("usage limit", () => {
  const envelope = { error: { code: "usage_limit_exceeded", message: "Daily token limit of 1000 reached.", details: { resets_at: "2030-01-02T00:00:00Z" } } };

  it("recognises the 429 refusal as the SDK and this app's client report it", () => {
    expect(usageLimitOf({ status: 429, text: JSON.stringify(envelope) })).toEqual({
      message: "Daily token limit of 1000 reached.",
      resetsAt: "2030-01-02T00:00:00Z",
    });
    expect(usageLimitOf(new ApiError(429, "usage_limit_exceeded", "over", { resets_at: "2030-01-02T00:00:00Z" }))).toEqual({
      message: "over",
      resetsAt: "2030-01-02T00:00:00Z",
    });
  });

  it("says which limit was reached from the details, else with the server's words", () => {
    const tokens = { error: { ...envelope.error, details: { ...envelope.error.details, limit: "tokens_per_day", limit_value: 1000, used: 1200 } } };
    const reached = usageLimitOf({ status: 429, text: JSON.stringify(tokens) });
    expect(reached?.reached).toEqual({ kind: "tokens", limit: 1000, used: 1200 });
    expect(describeLimit(reached ?? { message: "" })).toBe("You have used 1,200 of your 1,000 tokens for today.");
    expect(describeLimit({ message: "m", reached: { kind: "cost", limit: 0.5, used: 0.5123 } })).toBe("You have used $0.51 of your $0.50 for today.");
    expect(describeLimit({ message: "Over the limit." })).toBe("Over the limit.");
  });

  it("leaves other failures alone", () => {
    expect(usageLimitOf({ status: 429, text: JSON.stringify({ error: { code: "quota_exceeded", message: "disk" } }) })).toBeUndefined();
    expect(usageLimitOf({ status: 500, text: JSON.stringify(envelope) })).toBeUndefined();
    expect(usageLimitOf({ status: 429, text: "Too Many Requests" })).toBeUndefined();
    expect(usageLimitOf(new ApiError(429, "rate_limited", "slow down"))).toBeUndefined();
    expect(usageLimitOf(new TypeError("network"))).toBeUndefined();
  });

  it("says when a limit resets in local time: today, tomorrow, or the date", () => {
    const now = new Date(2030, 0, 1, 15, 0);
    expect(formatResetTime(new Date(2030, 0, 1, 18, 30).toISOString(), now)).toMatch(/^today at .*18.30|^today at .*6.30/);
    expect(formatResetTime(new Date(2030, 0, 2, 1, 0).toISOString(), now)).toMatch(/^tomorrow at /);
    expect(formatResetTime(new Date(2030, 0, 5, 1, 0).toISOString(), now)).not.toMatch(/^(today|tomorrow)/);
    expect(formatResetTime("not a date", now)).toBe("");
  });
});
