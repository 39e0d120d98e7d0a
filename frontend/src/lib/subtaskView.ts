// What a `task` call's card shows: its task's events while this page saw them; else (after a
// reload: a finished run's events are not replayed) what the call and its result say.
import type { RunUsage } from "../api/types";
import { t } from "../i18n";
import { formatDecimal } from "./format";
import type { ToolCall, ToolMessage } from "./messages";
import { textOf, tryParseArgs } from "./messages";
import type { Subtask, SubtaskStatus, ToolEntry } from "./subtasks";
import { str, toolHeading, toolSummary } from "./toolFormat";

/** The tool that hands a task to a subagent. */
export const TASK_TOOL = "task";

/** The status as the card's header says it. */
export const SUBTASK_STATUS_LABELS: Readonly<Record<SubtaskStatus, string>> = {
  // Getters: read in the language in use when shown.
  get queued() {
    return t("lib.subtask.queued");
  },
  get running() {
    return t("lib.subtask.running");
  },
  get completed() {
    return t("lib.subtask.completed");
  },
  get failed() {
    return t("lib.subtask.failed");
  },
  get cancelled() {
    return t("lib.subtask.cancelled");
  },
  get timed_out() {
    return t("lib.subtask.timedOut");
  },
};

/** Whether a task has ended. */
export const hasEnded = (s: SubtaskStatus): boolean => s !== "queued" && s !== "running";

export interface SubtaskView {
  status: SubtaskStatus;
  description: string;
  subagentType: string;
  /** What the agent asked of it. */
  prompt?: string;
  /** Why it failed or timed out. */
  error?: string;
  durationMs?: number;
  usage?: RunUsage;
  /** Its final answer. */
  answer?: string;
}


const ENDINGS: readonly SubtaskStatus[] = ["completed", "failed", "cancelled", "timed_out"];

/** What the result's artifact records of the task (`artifact.task`), if anything. */
function recorded(result: ToolMessage): Record<string, unknown> | undefined {
  const artifact = (result as { artifact?: unknown }).artifact;
  const task = artifact && typeof artifact === "object" ? (artifact as Record<string, unknown>)["task"] : undefined;
  return task && typeof task === "object" ? (task as Record<string, unknown>) : undefined;
}

/** How a task ended, from its result alone: the status the server recorded in the result's
 * artifact, else (older results) told apart by the error's wording. */
export function statusOfResult(result: ToolMessage): SubtaskStatus {
  const status = recorded(result)?.["status"];
  if (typeof status === "string" && (ENDINGS as readonly string[]).includes(status)) return status as SubtaskStatus;
  if (result.status !== "error") return "completed";
  const text = textOf(result.content);
  if (/did not finish within|ran past its limit/i.test(text)) return "timed_out";
  if (/was cancelled|run was stopped|was interrupted/i.test(text)) return "cancelled";
  return "failed";
}

/** The card of a `task` call: `task` from its events (when this page saw them), `result`
 * once the call has answered. An ending the events reported wins over the result's. */
export function subtaskView(call: ToolCall, result: ToolMessage | undefined, task: Subtask | undefined): SubtaskView {
  const ended = task && hasEnded(task.status) ? task : undefined;
  const status = ended?.status ?? (result ? statusOfResult(result) : (task?.status ?? "running"));
  const view: SubtaskView = {
    status,
    description: str(task?.description) ?? str(call.args["description"]) ?? t("lib.subtask.untitled"),
    subagentType: str(task?.subagentType) ?? str(call.args["subagent_type"]) ?? "",
  };
  const prompt = str(call.args["prompt"]);
  if (prompt) view.prompt = prompt;
  const resultText = result ? textOf(result.content) : "";
  if (status === "failed" || status === "timed_out") {
    view.error = str(task?.error) ?? (resultText.replace(/^Error:\s*/, "") || t("lib.subtask.failedDefault"));
  }
  const kept = result ? recorded(result) : undefined;
  const keptDuration = kept?.["duration_ms"];
  if (ended?.durationMs !== undefined) view.durationMs = ended.durationMs;
  else if (typeof keptDuration === "number") view.durationMs = keptDuration;
  if (ended?.usage) view.usage = ended.usage;
  const answer = str(task?.result) ?? (status === "completed" ? str(resultText) : undefined);
  if (answer) view.answer = answer;
  return view;
}

/** "1,200 tokens in, 300 out, 2 model calls". */
export function usageText(u: RunUsage): string {
  const n = (x: number) => formatDecimal(x);
  return t("lib.subtask.usage", {
    input: n(u.input_tokens),
    output: n(u.output_tokens),
    calls: t("lib.usage.calls", { count: u.model_calls, n: n(u.model_calls) }),
  });
}

/** A subagent's tool call in a line: its title and what it works on. */
export function toolLine(entry: ToolEntry): { title: string; summary: string } {
  const args = tryParseArgs(entry.rawArgs) ?? {};
  return { title: toolHeading(entry.name).title, summary: toolSummary({ name: entry.name, args }) };
}

/** The start of a result: its first line with text, cut at `max` characters. */
export function shortResult(text: string, max = 160): string {
  const lines = text.split("\n").filter((l) => l.trim());
  const first = (lines[0] ?? "").trim();
  const cut = first.length > max ? `${first.slice(0, max - 1)}…` : first;
  return lines.length > 1 && cut === first ? `${cut} …` : cut;
}
