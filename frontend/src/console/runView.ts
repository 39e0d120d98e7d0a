// How the console shows a run's facts: status colours, who and which agent, tokens, cost and
// how long it took.
import { t } from "../i18n";
import { formatDuration } from "../lib/format";
import { formatCost, formatTokens } from "../lib/usage";
import type { ConsoleRun, RunStatus, RunStepStatus } from "./types";

const STATUS_CLASS: Record<RunStatus, string> = {
  success: "badge-ok",
  error: "badge-error",
  timeout: "badge-error",
  interrupted: "badge-warn",
  running: "badge-public",
  pending: "badge-public",
};

/** The badge class of a run's status (green done, red failed, amber stopped, blue working). */
export const statusClass = (status: RunStatus) => `badge ${STATUS_CLASS[status] ?? ""}`.trim();

/** A run's status in the reader's language (an unknown one as it is). */
export const statusLabel = (status: string) => t(`common.runStatus.${status}`, { defaultValue: status });

/** A step's status in the reader's language. */
export const stepStatusLabel = (status: RunStepStatus) => t(`console.steps.status.${status}`, { defaultValue: status });

/** Why a run stopped, in words ("loop detected"). */
export const stopReasonLabel = (reason: string) =>
  t(`console.stopReason.${reason}`, { defaultValue: reason.replace(/_/g, " ") });

/** The badge class of a step's status. */
export const stepStatusClass = (status: RunStepStatus) =>
  status === "ok" ? "badge badge-ok" : status === "error" ? "badge badge-error" : "badge badge-warn";

/** The owner as people know them: the email of an account, else the id (`local`). */
export const userLabel = (run: Pick<ConsoleRun, "user_id" | "user_email">) => run.user_email || run.user_id;

/** "1.2k in / 350 out". */
export const tokensLabel = (run: Pick<ConsoleRun, "usage">) =>
  t("console.tokensInOut", { input: formatTokens(run.usage.input_tokens), output: formatTokens(run.usage.output_tokens) });

/** The cost, or a dash when nothing was priced. */
export const costLabel = (run: Pick<ConsoleRun, "usage">) => {
  const cost = run.usage.cost_usd ?? 0;
  return cost > 0 ? formatCost(cost) : "—";
};

/** How long it took, "running…" while it works. */
export function durationLabel(run: Pick<ConsoleRun, "status" | "duration_ms">): string {
  if (run.duration_ms !== null && run.duration_ms !== undefined) return formatDuration(run.duration_ms);
  return run.status === "pending" ? t("console.waiting") : run.status === "running" ? t("console.running") : "—";
}

/** A step's duration, milliseconds under a second. */
export const stepDuration = (ms: number) =>
  ms < 1000 ? t("console.milliseconds", { n: Math.round(ms) }) : formatDuration(ms);

/** The first `max` characters of a message, with an ellipsis when cut. */
export function truncate(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
