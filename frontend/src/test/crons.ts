// A fake crons API for tests: schedules as the server answers them, and a `fetch` that keeps
// them and records every call.
import { vi } from "vitest";
import type { Cron } from "../api/crons";
import { builtIn, json } from "./agents";
import { methodOf, pathOf, requestOf } from "./fetch";

/** A schedule as `POST /api/runs/crons/search` answers one. */
export function cron(id: string, extra: Partial<Cron> = {}): Cron {
  return {
    cron_id: id,
    assistant_id: builtIn.assistant_id,
    thread_id: null,
    on_run_completed: "keep",
    end_time: null,
    schedule: "0 9 * * 1-5",
    timezone: "Europe/Paris",
    created_at: "2026-03-01T10:00:00Z",
    updated_at: "2026-03-01T10:00:00Z",
    payload: { input: { messages: [{ role: "user", content: `Summarise the news for ${id} please, in five short bullet points` }] } },
    user_id: "u1",
    next_run_date: new Date(Date.now() + 3 * 3600_000).toISOString(),
    metadata: {},
    enabled: true,
    last_run: null,
    ...extra,
  };
}

export interface Call {
  method: string;
  path: string;
  body?: Record<string, unknown>;
}

export interface FakeCrons {
  calls: Call[];
  crons: () => Cron[];
  /** The next call to `path` (with `method`) fails with this envelope. */
  failNext: (method: string, path: string, status: number, message: string) => void;
}

/** Serves `initial` schedules and the built-in agent. */
export function serveCrons(initial: Cron[]): FakeCrons {
  let all = [...initial];
  const calls: Call[] = [];
  const failures: { method: string; path: string; status: number; message: string }[] = [];
  let created = 0;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = pathOf(input);
      const method = methodOf(input, init);
      const text = method === "GET" || method === "DELETE" ? "" : await requestOf(input, init).text();
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      calls.push({ method, path, ...(body ? { body } : {}) });
      const failing = failures.findIndex((f) => f.method === method && f.path === path);
      if (failing >= 0) {
        const [f] = failures.splice(failing, 1);
        return json({ error: { code: "invalid_request", message: f?.message ?? "" } }, f?.status ?? 422);
      }
      if (path === "/api/assistants/search") return json([builtIn]);
      if (path === "/api/runs/crons/search") return json(all);
      const threadCron = /^\/api\/threads\/([^/]+)\/runs\/crons$/.exec(path);
      if ((path === "/api/runs/crons" || threadCron) && method === "POST") {
        const made = cron(`new-${++created}`, {
          assistant_id: String(body?.["assistant_id"]),
          schedule: String(body?.["schedule"]),
          timezone: String(body?.["timezone"] ?? "UTC"),
          payload: { input: body?.["input"] },
          metadata: (body?.["metadata"] as Record<string, unknown>) ?? {},
          thread_id: threadCron?.[1] ?? null,
        });
        all = [...all, made];
        return json(made);
      }
      const [, id, action] = /^\/api\/runs\/crons\/([^/]+)(?:\/(\w+))?$/.exec(path) ?? [];
      const found = all.find((c) => c.cron_id === id);
      if (!found) return json({ error: { code: "not_found", message: "schedule not found" } }, 404);
      if (action === "run" && method === "POST") {
        return json({
          run_id: "run-now-1",
          thread_id: "thread-of-run",
          assistant_id: found.assistant_id,
          status: "pending",
          created_at: new Date().toISOString(),
          updated_at: new Date().toISOString(),
          metadata: {},
          kwargs: {},
          multitask_strategy: "enqueue",
        });
      }
      if (method === "PATCH") {
        const next: Cron = { ...found, ...(body as Partial<Cron>) };
        if (body?.["input"]) next.payload = { ...found.payload, input: body["input"] };
        if (body?.["enabled"] === false) next.next_run_date = null;
        all = all.map((c) => (c.cron_id === id ? next : c));
        return json(next);
      }
      if (method === "DELETE") {
        all = all.filter((c) => c.cron_id !== id);
        return new Response(null, { status: 204 });
      }
      if (method === "GET") return json(found);
      return json({ error: { code: "not_found", message: "not found" } }, 404);
    }),
  );
  return {
    calls,
    crons: () => all,
    failNext: (method, path, status, message) => failures.push({ method, path, status, message }),
  };
}
