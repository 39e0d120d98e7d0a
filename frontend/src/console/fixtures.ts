// Runs as the console's API answers them, and a `fetch` serving them, for the console's tests.
import { vi } from "vitest";
import { builtIn, json } from "../test/agents";
import { pathOf } from "../test/fetch";
import type { ConsoleRun, ConsoleRunDetail, RunStep } from "./types";

/** A finished run of the built-in agent, 12 s long, that used one tool. */
export function consoleRun(id: string, extra: Partial<ConsoleRun> = {}): ConsoleRun {
  return {
    run_id: id,
    thread_id: `thread-${id}`,
    user_id: "u1",
    user_email: "ada@example.com",
    assistant_id: builtIn.assistant_id,
    status: "success",
    stop_reason: "completed",
    error: null,
    created_at: "2026-03-01T10:00:00.000Z",
    updated_at: "2026-03-01T10:00:12.000Z",
    duration_ms: 12_000,
    models: ["gpt-4o-mini"],
    usage: { input_tokens: 1200, cached_input_tokens: 0, output_tokens: 350, reasoning_tokens: 0, model_calls: 2, cost_usd: 0.0042 },
    tools: [{ name: "bash", calls: 2, errors: 0 }],
    tool_errors: 0,
    parent_run_id: null,
    ...extra,
  };
}

/** A step starting `at` ms after 2026-03-01T10:00:00Z. */
export function step(kind: RunStep["kind"], name: string, at: number, duration: number, extra: Partial<RunStep> = {}): RunStep {
  return {
    kind,
    name,
    started_at: new Date(Date.parse("2026-03-01T10:00:00.000Z") + at).toISOString(),
    duration_ms: duration,
    status: "ok",
    ...extra,
  };
}

/** A run of 10 s: a model call, a failed tool call, a subagent (its own model call and tool
 * call), and a last model call. */
export function detailWithSubagent(): ConsoleRunDetail {
  const child: ConsoleRunDetail = {
    run: consoleRun("child-1", {
      created_at: "2026-03-01T10:00:04.000Z",
      updated_at: "2026-03-01T10:00:08.000Z",
      duration_ms: 4000,
      parent_run_id: "run-1",
    }),
    timeline: [
      step("model_call", "gpt-4o-mini", 4000, 1000, { input_tokens: 300, output_tokens: 20, finish_reason: "tool_calls" }),
      step("tool_call", "bash", 5000, 3000, { tool_call_id: "c-sub" }),
    ],
    subagents: [],
  };
  return {
    run: consoleRun("run-1", {
      updated_at: "2026-03-01T10:00:10.000Z",
      duration_ms: 10_000,
      tools: [
        { name: "read_file", calls: 1, errors: 1 },
        { name: "task", calls: 1, errors: 0 },
      ],
      tool_errors: 1,
    }),
    timeline: [
      step("model_call", "gpt-4o-mini", 0, 2000, {
        input_tokens: 900,
        output_tokens: 40,
        finish_reason: "tool_calls",
        first_token_ms: 450,
      }),
      step("tool_call", "read_file", 2000, 500, { status: "error", error: "file not found: /mnt/x", tool_call_id: "c1" }),
      step("subagent", "general-purpose", 4000, 4000, { tool_call_id: "c2", child_run_id: "child-1" }),
      step("model_call", "gpt-4o-mini", 9000, 1000, { input_tokens: 1000, output_tokens: 60, finish_reason: "stop" }),
    ],
    subagents: [child],
  };
}

export interface ConsoleCall {
  path: string;
  query: Record<string, string>;
}

export interface FakeConsole {
  calls: ConsoleCall[];
  /** The list's calls only. */
  listCalls: () => ConsoleCall[];
  /** The next list call fails with this envelope. */
  failNext: (status: number, message: string) => void;
}

/** Serves `runs` (filtered by `status` and `user`, paged) and `details`, the built-in agent
 * and two accounts. */
export function serveConsole(runs: ConsoleRun[], details: ConsoleRunDetail[] = []): FakeConsole {
  const calls: ConsoleCall[] = [];
  const failures: { status: number; message: string }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const url = new URL(input instanceof Request ? input.url : String(input), "http://localhost");
      const path = pathOf(input);
      const query = Object.fromEntries(url.searchParams.entries());
      calls.push({ path, query });
      if (path === "/api/assistants/search") return json([builtIn]);
      if (path === "/api/users") {
        return json([
          { id: "u1", email: "ada@example.com", role: "admin", disabled: false, created_at: "2026-01-01T00:00:00Z" },
          { id: "u2", email: "bob@example.com", role: "user", disabled: false, created_at: "2026-01-01T00:00:00Z" },
        ]);
      }
      if (path === "/api/admin/runs") {
        const failure = failures.shift();
        if (failure) return json({ error: { code: "internal", message: failure.message } }, failure.status);
        const matching = runs.filter(
          (r) => (!query["status"] || r.status === query["status"]) && (!query["user"] || r.user_id === query["user"]),
        );
        const offset = Number(query["offset"] ?? 0);
        const limit = Number(query["limit"] ?? 50);
        return json({ runs: matching.slice(offset, offset + limit), total: matching.length });
      }
      const id = /^\/api\/admin\/runs\/([^/]+)$/.exec(path)?.[1];
      const found = details.find((d) => d.run.run_id === decodeURIComponent(id ?? ""));
      if (found) return json(found);
      return json({ error: { code: "not_found", message: "run not found" } }, 404);
    }),
  );
  return {
    calls,
    listCalls: () => calls.filter((c) => c.path === "/api/admin/runs"),
    failNext: (status, message) => failures.push({ status, message }),
  };
}
