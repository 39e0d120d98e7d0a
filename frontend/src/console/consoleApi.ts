// The admin runs console's calls through openapi-fetch (paths, queries and answers from the
// generated OpenAPI types): `GET /api/admin/runs` (a filtered page of runs) and
// `GET /api/admin/runs/{run_id}` (one run with its timeline). Failures are `ApiError`s
// carrying the server's error envelope (a non-admin gets 403).
import createClient from "openapi-fetch";
import { ApiError, apiErrorOf } from "../api/http";
import type { paths } from "../api/schema";
import type { ConsoleQuery, ConsoleRunDetail, ConsoleRunList } from "./types";

/** The runs one page of the list shows. */
export const PAGE_SIZE = 50;

const client = createClient<paths>({
  // A `Request` needs an absolute URL outside a page (unit tests); in the browser, the page's origin.
  baseUrl: globalThis.location?.origin ?? "http://localhost",
  // Looked up on each call, so the `fetch` in force then is used (tests replace it).
  fetch: (request: Request) => globalThis.fetch(request),
});

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful call; an `ApiError` (the envelope, or the status) otherwise. */
async function call<T>(pending: Promise<Result<T>>): Promise<T> {
  let result: Result<T>;
  try {
    result = await pending;
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new ApiError(0, "network_error", "Cannot reach the server. Check that it is running.");
  }
  if (!result.response.ok) throw apiErrorOf(result.response, result.error);
  return result.data as T;
}

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
