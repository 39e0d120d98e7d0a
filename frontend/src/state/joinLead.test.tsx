// @vitest-environment jsdom
// A page opened while a run works joins that run's stream: the lead agent's, not one of its
// subagents' (their runs are listed too, newest first, with `metadata.parent_run_id`).
import { afterEach, describe, expect, it, vi } from "vitest";
import { json } from "../test/agents";
import { pathOf } from "../test/fetch";
import { ThreadSession } from "./session";

afterEach(() => {
  vi.unstubAllGlobals();
});

const run = (run_id: string, metadata: Record<string, unknown> = {}) => ({
  run_id,
  thread_id: "t1",
  assistant_id: "agent",
  status: "running",
  metadata,
  created_at: "2026-11-26T00:00:00Z",
  updated_at: "2026-11-26T00:00:00Z",
});

describe("joining a running thread", () => {
  it("follows the lead's run, not a subagent's", async () => {
    const joined: string[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) => {
        const path = pathOf(input);
        const url = new URL(input instanceof Request ? input.url : String(input), "http://localhost");
        if (path.endsWith("/state")) return json({ values: { messages: [] }, next: [], checkpoint: null });
        if (path.endsWith("/history")) return json([]);
        if (path.endsWith("/runs") && url.searchParams.get("status") === "running") {
          return json([run("child-1", { parent_run_id: "lead-1", task_id: "c1" }), run("lead-1")]);
        }
        if (path.endsWith("/runs")) return json([]);
        const stream = path.match(/\/runs\/([^/]+)\/stream$/);
        if (stream?.[1]) {
          joined.push(stream[1]);
          return new Response("event: end\ndata: null\n\n", { status: 200, headers: { "Content-Type": "text/event-stream" } });
        }
        if (path === "/api/threads/search") return json([]);
        if (path === "/api/threads/t1") return json({ thread_id: "t1", status: "busy", metadata: {}, values: { messages: [] } });
        return json({ error: { code: "not_found", message: path } }, 404);
      }),
    );
    const session = new ThreadSession("t1");
    await session.load();
    await vi.waitFor(() => expect(joined).toEqual(["lead-1"]));
  });
});
