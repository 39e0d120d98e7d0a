// @vitest-environment jsdom
// The model choice: sent as every run's context (made valid for the configured models),
// restored from the thread's metadata, remembered for new chats; a run refused over a daily
// limit is reported as such.
import { act } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ModelCaps } from "../lib/modelChoice";
import { agent, builtIn, json } from "../test/agents";
import { assistantsStore } from "./assistants";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { effectiveChoice, modelsStore, rememberChoice, setModels } from "./modelChoice";
import { ThreadSession } from "./session";

const plain: ModelCaps = { name: "fast", model: "m", provider: "openai", supports_reasoning: false, supports_vision: false, supports_thinking: false, supports_reasoning_effort: false, demo: false };
const effort: ModelCaps = { ...plain, name: "o4", supports_thinking: true, supports_reasoning_effort: true, context_window: 128_000 };

/** A thread with `metadata`; runs answer `runStatus` (200: a stream that ends at once). */
function serve({ metadata = {}, runStatus = 200, refusal }: { metadata?: Record<string, unknown>; runStatus?: number; refusal?: unknown } = {}) {
  const bodies: Record<string, unknown>[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = pathOf(input);
      if (path.endsWith("/runs/stream")) {
        bodies.push((await requestOf(input, init).json()) as Record<string, unknown>);
        if (runStatus !== 200) return json(refusal, runStatus);
        const body = `event: metadata\ndata: {"run_id":"run-${bodies.length}"}\n\nevent: end\ndata: null\n\n`;
        return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
      }
      if (path.endsWith("/state")) return json({ values: { messages: [] }, next: [], checkpoint: null });
      if (path.endsWith("/history")) return json([]);
      if (path.endsWith("/runs") && methodOf(input, init) === "GET") return json([]);
      if (path === "/api/threads/search") return json([]);
      if (/^\/api\/threads\/[^/]+$/.test(path)) {
        return json({ thread_id: "t", created_at: "", updated_at: "", metadata, status: "idle", values: {} });
      }
      return json({ error: { code: "not_found", message: path } }, 404);
    }),
  );
  return { bodies };
}

beforeEach(() => {
  localStorage.clear();
  modelsStore.set({ models: [] });
  setModels([plain, effort], "fast");
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("model choice in runs", () => {
  it("sends the picked model and effort as the run's context, and the default model when none was picked", async () => {
    const server = serve();
    const session = new ThreadSession("t-model-1");
    session.markFresh();
    act(() => session.send("first"));
    await vi.waitFor(() => expect(session.store.get().streaming).toBe(false));
    expect(server.bodies[0]?.["context"]).toEqual({ model_name: "fast", thinking: false });

    session.chooseModel({ model_name: "o4", thinking: true, reasoning_effort: "high" });
    act(() => session.send("second"));
    await vi.waitFor(() => expect(server.bodies).toHaveLength(2));
    expect(server.bodies[1]?.["context"]).toEqual({ model_name: "o4", thinking: true, reasoning_effort: "high" });
  });

  it("restores the thread's last choice from its metadata when it opens", async () => {
    serve({ metadata: { model_choice: { model_name: "o4", thinking: true, reasoning_effort: "low" } } });
    const session = new ThreadSession("t-model-2");
    await session.load();
    expect(session.store.get().modelChoice).toEqual({ model_name: "o4", thinking: true, reasoning_effort: "low" });
  });

  it("keeps a pick made before the thread's metadata arrives", async () => {
    serve({ metadata: { model_choice: { model_name: "o4", thinking: true, reasoning_effort: "low" } } });
    const session = new ThreadSession("t-model-3");
    session.chooseModel({ model_name: "fast", thinking: false, reasoning_effort: null });
    await session.load();
    expect(session.store.get().modelChoice?.model_name).toBe("fast");
  });

  it("runs an agent's own model in a conversation that has no choice of its own, and the conversation's choice over it", async () => {
    const writer = agent("a-writer", "Writer", { context: { model_name: "o4" } });
    assistantsStore.update({ list: [builtIn, writer] });
    rememberChoice({ model_name: "fast", thinking: false, reasoning_effort: null });
    const server = serve();
    const session = new ThreadSession("t-model-5");
    session.markFresh();
    session.chooseAssistant("a-writer");
    act(() => session.send("first"));
    await vi.waitFor(() => expect(server.bodies).toHaveLength(1));
    expect(server.bodies[0]?.["context"]).toEqual({ model_name: "o4", thinking: false });

    session.chooseModel({ model_name: "fast", thinking: false, reasoning_effort: null });
    await vi.waitFor(() => expect(session.store.get().streaming).toBe(false));
    act(() => session.send("second"));
    await vi.waitFor(() => expect(server.bodies).toHaveLength(2));
    expect(server.bodies[1]?.["context"]).toEqual({ model_name: "fast", thinking: false });
    assistantsStore.update({ list: undefined });
  });

  it("remembers the last pick in the browser for new chats, made valid for the models configured now", () => {
    rememberChoice({ model_name: "o4", thinking: true, reasoning_effort: "medium" });
    expect(JSON.parse(localStorage.getItem("antler-model-choice") ?? "null")).toEqual({ model_name: "o4", thinking: true, reasoning_effort: "medium" });
    expect(effectiveChoice(undefined)).toEqual({ model_name: "o4", thinking: true, reasoning_effort: "medium" });
    setModels([plain], "fast");
    expect(effectiveChoice(undefined)).toEqual({ model_name: "fast", thinking: false, reasoning_effort: null });
  });

  it("reports a run refused over a daily limit with its reset time, not as a failure to retry", async () => {
    const refusal = { error: { code: "usage_limit_exceeded", message: "Daily token limit reached.", details: { resets_at: "2030-01-02T00:00:00Z" } } };
    serve({ runStatus: 429, refusal });
    const session = new ThreadSession("t-model-4");
    session.markFresh();
    act(() => session.send("over the limit"));
    await vi.waitFor(() => expect(session.store.get().streaming).toBe(false), { timeout: 10_000 });
    expect(session.store.get().limit).toEqual({ message: "Daily token limit reached.", resetsAt: "2030-01-02T00:00:00Z" });
    expect(session.store.get().error).toBeUndefined();
  });
});
