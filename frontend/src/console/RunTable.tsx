// The console's table of runs: one row per run with when, who, which agent, how it ended, how
// long it took, what it used (models, tokens, cost, tools) and its error; a row opens the run.
import type { MouseEvent } from "react";
import { Link, useLocation, useNavigate } from "react-router-dom";
import { useT } from "../i18n";
import { formatDate, formatRelative } from "../lib/format";
import { costLabel, durationLabel, statusClass, statusLabel, tokensLabel, truncate, userLabel } from "./runView";
import { FeedbackCell } from "./RunFeedback";
import { ToolChips } from "./ToolChips";
import type { ConsoleRun } from "./types";

/** Where a run's detail is. */
export const runPath = (runId: string) => `/admin/runs/${encodeURIComponent(runId)}`;

/** Where the detail's "All runs" link goes back to: the list with its filters. */
export interface BackState {
  search: string;
}

interface Props {
  runs: ConsoleRun[];
  /** An agent's name, when known. */
  agentName?: (assistantId: string) => string | undefined;
}

function RunRow({ run, agentName, back }: { run: ConsoleRun; agentName?: Props["agentName"]; back: BackState }) {
  const navigate = useNavigate();
  const open = (e: MouseEvent) => {
    // The time cell's link navigates by itself; a selection of text is not a click.
    if ((e.target as HTMLElement).closest("a") || window.getSelection()?.toString()) return;
    navigate(runPath(run.run_id), { state: back });
  };
  const agent = agentName?.(run.assistant_id);
  const t = useT();
  return (
    <tr className="console-row" data-testid="run-row" data-run-id={run.run_id} onClick={open}>
      <td>
        <Link to={runPath(run.run_id)} state={back} title={formatDate(run.created_at)}>
          {formatRelative(run.created_at)}
        </Link>
      </td>
      <td className="console-user" title={run.user_id}>
        {userLabel(run)}
      </td>
      <td title={run.assistant_id}>{agent ?? truncate(run.assistant_id, 14)}</td>
      <td>
        <span className={statusClass(run.status)} data-testid="run-status">
          {statusLabel(run.status)}
        </span>
      </td>
      <td className="num">{durationLabel(run)}</td>
      <td className="console-models">{run.models.length ? run.models.join(", ") : "—"}</td>
      <td className="num" title={t("console.tokensTitle", { input: run.usage.input_tokens, output: run.usage.output_tokens })}>
        {tokensLabel(run)}
      </td>
      <td className="num">{costLabel(run)}</td>
      <td>
        <ToolChips tools={run.tools} />
      </td>
      <td>
        <FeedbackCell run={run} />
      </td>
      <td className="console-error" title={run.error ?? undefined} data-testid="run-error">
        {run.error ? truncate(run.error) : ""}
      </td>
    </tr>
  );
}

export function RunTable({ runs, agentName }: Props) {
  const { search } = useLocation();
  const back: BackState = { search };
  const t = useT();
  return (
    <div className="console-table-wrap">
      <table className="console-table" aria-label={t("console.title")}>
        <thead>
          <tr>
            <th scope="col">{t("console.columns.time")}</th>
            <th scope="col">{t("console.columns.user")}</th>
            <th scope="col">{t("console.columns.agent")}</th>
            <th scope="col">{t("console.columns.status")}</th>
            <th scope="col">{t("console.columns.duration")}</th>
            <th scope="col">{t("console.columns.models")}</th>
            <th scope="col">{t("console.columns.tokens")}</th>
            <th scope="col">{t("console.columns.cost")}</th>
            <th scope="col">{t("console.columns.tools")}</th>
            <th scope="col">{t("feedback.column")}</th>
            <th scope="col">{t("console.columns.error")}</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <RunRow key={run.run_id} run={run} agentName={agentName} back={back} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
