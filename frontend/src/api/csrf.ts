// Every request the page makes goes through `fetch`: this wrapper adds the session's CSRF
// token (the `antler_csrf` cookie) to unsafe same-origin requests, whoever makes them (the
// typed client, the LangGraph SDK, uploads), and announces a 401 so the app can ask the
// person to sign in again.

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Dispatched on `window` when the server answers 401 to an API call. */
export const SIGNED_OUT_EVENT = "antler:signed-out";

/** The CSRF token of the current session, if any. */
export function csrfToken(cookies: string = globalThis.document?.cookie ?? ""): string | undefined {
  for (const pair of cookies.split(";")) {
    const [name, ...value] = pair.trim().split("=");
    if (name === "antler_csrf" && value.join("=")) return decodeURIComponent(value.join("="));
  }
  return undefined;
}

/** `request` with the CSRF header when it needs one. */
export function withCsrf(request: Request, origin: string, token: string | undefined): Request {
  if (!token || SAFE_METHODS.has(request.method.toUpperCase())) return request;
  if (new URL(request.url).origin !== origin) return request;
  const headers = new Headers(request.headers);
  headers.set("X-CSRF-Token", token);
  return new Request(request, { headers });
}

/** Wraps `globalThis.fetch` once. */
export function installFetchHooks(): void {
  const original = globalThis.fetch.bind(globalThis);
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = withCsrf(new Request(input, init), window.location.origin, csrfToken());
    const response = await original(request);
    const path = new URL(request.url).pathname;
    if (response.status === 401 && path.startsWith("/api/") && !path.startsWith("/api/auth/login")) {
      window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
    }
    return response;
  };
}
