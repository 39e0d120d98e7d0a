// The admin runs console's calls through openapi-fetch (paths, queries and answers from the
// generated OpenAPI types): `GET /api/admin/runs` (a filtered page of runs) and
// `GET /api/admin/runs/{run_id}` (one run with its timeline). Failures are `ApiError`s
// carrying the server's error envelope (a non-admin gets 403).
import { call, client } from "../api/typed";
import type { ConsoleQuery, ConsoleRunDetail, ConsoleRunList } from "./types";

/** The runs one page of the list shows. */
export const PAGE_SIZE = 50;

export const consoleApi = {
  /** Runs matching `query` (see `queryOfFilters`), newest first, from `offset`. */
  runs: (query: ConsoleQuery, offset: number, limit: number, signal?: AbortSignal): Promise<ConsoleRunList> =>
    call(
      client.GET("/api/admin/runs", {
        params: { query: { ...query, limit: String(limit), offset: String(offset) } },
        signal,
      }),
    ),
  /** One run, its timeline and its subagents' runs. */
  run: (runId: string, signal?: AbortSignal): Promise<ConsoleRunDetail> =>
    call(client.GET("/api/admin/runs/{run_id}", { params: { path: { run_id: runId } }, signal })),
};
