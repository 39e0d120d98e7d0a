// The one typed client of the Antler API (openapi-fetch over the generated OpenAPI `paths`)
// and how its answers become data or an `ApiError`, shared by every module that calls it.
import createClient from "openapi-fetch";
import { ApiError, NETWORK_ERROR, apiErrorOf } from "./http";
import type { paths } from "./schema";

/** The typed client: every path, parameter, body and answer from the OpenAPI document. */
export const client = createClient<paths>({
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
export async function call<T>(pending: Promise<Result<T>>): Promise<T> {
  let result: Result<T>;
  try {
    result = await pending;
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new ApiError(0, "network_error", NETWORK_ERROR);
  }
  if (!result.response.ok) throw apiErrorOf(result.response, result.error);
  return result.data as T;
}
