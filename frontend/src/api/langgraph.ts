// The official LangGraph JS SDK client, pointed at this server's API.
import { Client } from "@langchain/langgraph-sdk";
import { t } from "../i18n";
import { errorText } from "./errorText";

let client: Client | undefined;

export function langgraph(): Client {
  client ??= new Client({
    apiUrl: `${window.location.origin}/api`,
    callerOptions: { maxRetries: 1 },
  });
  return client;
}

export const ASSISTANT_ID = "lead_agent";
export const STREAM_MODES = ["values", "messages-tuple", "custom"] as const;

/** A message for people from an SDK error (`HTTP 409: {"error": …}`) or anything else. */
export function sdkErrorMessage(e: unknown): string {
  if (e && typeof e === "object" && "status" in e && "text" in e) {
    const { status, text } = e as { status: number; text: unknown };
    if (typeof text === "string") {
      try {
        const body = JSON.parse(text) as { error?: { code?: unknown; message?: string } };
        if (body.error?.message) return errorText(typeof body.error.code === "string" ? body.error.code : "", body.error.message);
      } catch {
        // not JSON
      }
      if (text && text.length < 300) return `HTTP ${status}: ${text}`;
    }
    return `HTTP ${status}`;
  }
  if (e instanceof TypeError) return t("errors.connection_lost");
  if (e instanceof Error) return e.message;
  return t("errors.unknown");
}
