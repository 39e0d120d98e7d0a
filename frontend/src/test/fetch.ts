// What a replaced `fetch` was asked for, whether it got a URL and options or a `Request`.

/** The path of a `fetch` call's target. */
export function pathOf(input: RequestInfo | URL): string {
  const url = input instanceof Request ? input.url : String(input);
  return new URL(url, "http://localhost").pathname;
}

/** The method of a `fetch` call. */
export function methodOf(input: RequestInfo | URL, init?: RequestInit): string {
  return input instanceof Request ? input.method : (init?.method ?? "GET");
}

/** A `fetch` call as a `Request`, to read its headers and body. */
export function requestOf(input: RequestInfo | URL, init?: RequestInit): Request {
  return input instanceof Request ? input : new Request(new URL(String(input), "http://localhost"), init);
}
