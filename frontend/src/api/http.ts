// A small fetch wrapper: JSON in and out, and every failure as an `ApiError` carrying the
// server's error envelope (`{"error": {"code", "message", "details"?}}`), its message in the
// UI's language (`errorText`).
import { t } from "../i18n";
import { errorText } from "./errorText";
import type { ErrorEnvelope, InstallFinding } from "./types";

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  /** The message as the server (or this client) said it, in English. */
  readonly serverMessage: string;

  /** `message` is the server's (English); the error's own `message` is it for people. */
  constructor(status: number, code: string, message: string, details?: unknown) {
    super(errorText(code, message));
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
    this.serverMessage = message;
  }

  /** Validation findings of a refused archive (`error.details.findings`). */
  get findings(): InstallFinding[] {
    return findingsOf(this.details);
  }
}

export function findingsOf(details: unknown): InstallFinding[] {
  if (!details || typeof details !== "object") return [];
  const list = (details as { findings?: unknown }).findings;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (f): f is InstallFinding =>
      !!f && typeof f === "object" && typeof (f as InstallFinding).message === "string",
  );
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  if (!body || typeof body !== "object") return false;
  const error = (body as { error?: unknown }).error;
  return (
    !!error &&
    typeof error === "object" &&
    typeof (error as { message?: unknown }).message === "string"
  );
}

/** Turns a failed response into an `ApiError` (envelope when present, else the status text). */
export async function errorFrom(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return apiErrorOf(response, body);
}

/** The `ApiError` of a failed response whose body was already read (`body`: parsed JSON or
 * text). */
export function apiErrorOf(response: Response, body: unknown): ApiError {
  const text = typeof body === "string" ? body : "";
  if (isEnvelope(body)) {
    return new ApiError(
      response.status,
      body.error.code || "error",
      body.error.message,
      body.error.details,
    );
  }
  const reason = response.statusText || `HTTP ${response.status}`;
  const snippet = text && text.length < 200 && !text.trim().startsWith("<") ? `: ${text.trim()}` : "";
  return new ApiError(response.status, "http_error", `${reason}${snippet}`);
}

/** What a request that reached no server says (in English; `errors.network_error` translates it). */
export const NETWORK_ERROR = "Cannot reach the server. Check that it is running.";

export interface RequestOptions {
  method?: string;
  json?: unknown;
  body?: BodyInit;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** Fetches `path` and answers the parsed JSON body (`undefined` for 204). */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  let body = options.body;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  }
  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? (body === undefined ? "GET" : "POST"),
      headers,
      body,
      signal: options.signal,
    });
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new ApiError(0, "network_error", NETWORK_ERROR);
  }
  if (!response.ok) throw await errorFrom(response);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  if (!text) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(response.status, "invalid_response", "The server sent a response that is not JSON.");
  }
}

/** A message for people from anything thrown. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === "string") return e;
  return t("errors.unknown");
}
