// What the Scheduled page and the schedule dialog read from a cron object, and the request
// bodies they send: a schedule's name and message, its run state, the form's draft.
import type { Cron, CronCreate, CronPatch } from "../api/crons";
import { t } from "../i18n";
import { textOf } from "../lib/messages";

/** How many words of the message name a schedule without a name. */
const NAME_WORDS = 6;

/** The message each run sends: the last message of the stored input. */
export function messageOf(cron: Pick<Cron, "payload">): string {
  const input = cron.payload["input"];
  if (!input || typeof input !== "object") return "";
  const messages = (input as { messages?: unknown }).messages;
  if (!Array.isArray(messages) || messages.length === 0) return "";
  const last: unknown = messages.at(-1);
  if (!last || typeof last !== "object") return "";
  return textOf((last as { content?: unknown }).content).trim();
}

/** The first words of `text`, with "…" when there were more. */
export function firstWords(text: string, count = NAME_WORDS): string {
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words.length <= count) return words.join(" ");
  return `${words.slice(0, count).join(" ")}…`;
}

/** The name people gave a schedule, else the first words of its message. */
export function nameOf(cron: Pick<Cron, "payload" | "metadata">): string {
  const name = cron.metadata["name"];
  if (typeof name === "string" && name.trim()) return name.trim();
  return firstWords(messageOf(cron)) || t("scheduled.untitled");
}

/** What the schedule field and its neighbours hold. */
export interface ScheduleDraft {
  name: string;
  message: string;
  /** The schedule as typed: English or cron. */
  when: string;
  timezone: string;
  assistantId: string;
  /** Runs continue the conversation instead of starting a new one each time. */
  inThread: boolean;
}

/** The run input of a message, as the chat sends one. */
export function inputOf(message: string): Record<string, unknown> {
  return { messages: [{ role: "user", content: message.trim() }] };
}

function metadataOf(draft: ScheduleDraft, previous: Record<string, unknown> = {}): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...previous };
  if (draft.name.trim()) metadata["name"] = draft.name.trim();
  else delete metadata["name"];
  return metadata;
}

/** The body creating a schedule sends (`cron`: the parsed schedule). */
export function createBody(draft: ScheduleDraft, cron: string, enabled = true): CronCreate {
  return {
    assistant_id: draft.assistantId,
    schedule: cron,
    timezone: draft.timezone.trim(),
    input: inputOf(draft.message),
    metadata: metadataOf(draft),
    enabled,
    // A new conversation each time stays readable afterwards (the default deletes it).
    ...(draft.inThread ? {} : { on_run_completed: "keep" as const }),
  };
}

/** The body changing `cron` sends: only what differs from it. */
export function patchBody(cron: Cron, draft: ScheduleDraft, schedule: string): CronPatch {
  const patch: CronPatch = {};
  if (schedule !== cron.schedule) patch.schedule = schedule;
  if (draft.timezone.trim() !== (cron.timezone ?? "UTC")) patch.timezone = draft.timezone.trim();
  if (draft.message.trim() !== messageOf(cron)) patch.input = inputOf(draft.message);
  const metadata = metadataOf(draft, cron.metadata);
  if (JSON.stringify(metadata) !== JSON.stringify(cron.metadata)) patch.metadata = metadata;
  return patch;
}

/** The draft of an existing schedule (the dialog's Edit). */
export function draftOf(cron: Cron): ScheduleDraft {
  const name = cron.metadata["name"];
  return {
    name: typeof name === "string" ? name : "",
    message: messageOf(cron),
    when: cron.schedule,
    timezone: cron.timezone ?? "UTC",
    assistantId: cron.assistant_id,
    inThread: !!cron.thread_id,
  };
}

/** The badge style of a run status. */
export function statusKind(status: string): "ok" | "error" | "warn" | "info" {
  if (status === "success") return "ok";
  if (status === "error" || status === "timeout") return "error";
  if (status === "interrupted") return "warn";
  return "info";
}
