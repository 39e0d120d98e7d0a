// @vitest-environment jsdom
// Plan mode: the composer's choice goes into every run's context and is remembered; the plan
// the agent writes (`values.todos`) follows the stream, the stored state and the version shown.
import { act, cleanup } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { json } from "../test/agents";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { FakeThread, ai, human } from "../test/history";
import type { Todo } from "../lib/todos";
import { planModeStore, runContext, setPlanMode } from "./planMode";
import { ThreadSession } from "./session";

interface Wire {
  send: (event: string, data: unknown) => void;
  end: () => void;
}

/** Serves a thread whose runs stream what the test sends; records the run bodies. The stored
 * state is `final`. */
function serve(final: Record<string, unknown> = { messages: [] }) {
  const bodies: Record<string, unknown>[] = [];
  let wire: (w: Wire) => void = () => undefined;
  const ready = new Promise<Wire>((r) => {
    wire = r;
  });
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = pathOf(input);
      if (path.endsWith("/runs/stream")) {
        bodies.push((await requestOf(input, init).json()) as Record<string, unknown>);
        const encoder = new TextEncoder();
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            const write = (event: string, data: unknown) =>
              controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
            write("metadata", { run_id: `run-${bodies.length}`, attempt: 1 });
            wire({
              send: write,
              end: () => {
                write("end", null);
                controller.close();
              },
            });
          },
        });
        return new Response(stream, { status: 200, headers: { "Content-Type": "text/event-stream" } });
      }
      if (path.endsWith("/state")) return json({ values: final, next: [], checkpoint: null });
      if (path.endsWith("/history")) return json([]);
      if (path.endsWith("/runs") && methodOf(input, init) === "GET") return json([]);
      if (path === "/api/threads/search") return json([]);
      return json({ error: { code: "not_found", message: path } }, 404);
    }),
  );
  return { bodies, wire: ready };
}

const first: Todo[] = [
  { content: "Read the data", status: "in_progress" },
  { content: "Write the report", status: "pending" },
];
const second: Todo[] = [
  { content: "Read the data", status: "completed" },
  { content: "Write the report", status: "in_progress" },
];

beforeEach(() => {
  localStorage.clear();
  setPlanMode(false);
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("plan mode", () => {
  it("adds plan_mode to the context of the runs started while it is on, and nothing while it is off", async () => {
    const server = serve();
    const session = new ThreadSession("t-plan-1");
    session.markFresh();
    act(() => session.send("without a plan"));
    (await server.wire).end();
    await vi.waitFor(() => expect(session.store.get().streaming).toBe(false));
    expect(server.bodies[0]).not.toHaveProperty("context");

    setPlanMode(true);
    act(() => session.send("with a plan"));
    await vi.waitFor(() => expect(server.bodies).toHaveLength(2));
    expect(server.bodies[1]?.["context"]).toEqual({ plan_mode: true });
    expect(server.bodies[1]?.["input"]).toMatchObject({ messages: [{ role: "user", content: "with a plan" }] });
  });

  it("is remembered by the browser, and merges into a context the run already sends", () => {
    expect(localStorage.getItem("antler-plan-mode")).toBeNull();
    setPlanMode(true);
    expect(localStorage.getItem("antler-plan-mode")).toBe("on");
    expect(planModeStore.get()).toBe(true);
    expect(runContext({ model_name: "fast" })).toEqual({ model_name: "fast", plan_mode: true });
    setPlanMode(false);
    expect(localStorage.getItem("antler-plan-mode")).toBeNull();
    expect(runContext()).toBeUndefined();
    expect(runContext({ model_name: "fast" })).toEqual({ model_name: "fast" });
  });

  it("follows the plan as values stream, and keeps the stored one when the run ends", async () => {
    const server = serve({ messages: [human("h1", "plan it")], todos: second });
    const session = new ThreadSession("t-plan-2");
    session.markFresh();
    setPlanMode(true);
    act(() => session.send("plan it"));
    const w = await server.wire;
    w.send("values", { messages: [human("h1", "plan it")], todos: first });
    await vi.waitFor(() => expect(session.store.get().todos).toEqual(first));
    const shown = session.store.get().todos;
    // A values event with the same plan keeps it as it was (nothing to redraw).
    w.send("values", { messages: [human("h1", "plan it"), ai("a1", "")], todos: first });
    await vi.waitFor(() => expect(session.store.get().conversation.base).toHaveLength(2));
    expect(session.store.get().todos).toBe(shown);
    w.send("values", { messages: [human("h1", "plan it")], todos: second });
    await vi.waitFor(() => expect(session.store.get().todos).toEqual(second));
    // A state without todos has no plan (the server leaves the key out when it is empty).
    w.send("values", { messages: [human("h1", "plan it")] });
    await vi.waitFor(() => expect(session.store.get().todos).toEqual([]));
    w.end();
    await vi.waitFor(() => expect(session.store.get().streaming).toBe(false));
    await vi.waitFor(() => expect(session.store.get().todos).toEqual(second));
  });

  it("shows the plan of the version shown", async () => {
    const t = new FakeThread("t-plan-3");
    const old = t.run({ human: human("h1", "first try"), replies: [ai("a1", "first")] });
    t.get(old).values.todos = first;
    const h1 = t.firstHolding("h1")?.parent_checkpoint?.checkpoint_id;
    const newer = t.run({ ...(h1 ? { from: h1 } : {}), human: human("h1b", "second try"), replies: [ai("a1b", "second")] });
    t.get(newer).values.todos = second;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
        const path = pathOf(input);
        if (path.endsWith("/state")) return json(t.history()[0]);
        if (path.endsWith("/history")) return json(t.history());
        if (path.endsWith("/runs") && methodOf(input, init) === "GET") return json([]);
        return json({}, 404);
      }),
    );
    const session = new ThreadSession(t.threadId);
    await act(() => session.load());
    expect(session.store.get().todos).toEqual(second);
    const previous = session.store.get().view?.byMessage.get("h1b")?.options?.previous;
    expect(previous).toBeDefined();
    act(() => session.showBranch(previous ?? []));
    expect(session.store.get().todos).toEqual(first);
  });
});
