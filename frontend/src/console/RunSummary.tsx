// The head of a run's detail: how it ended, who ran it with which agent, when and how long,
// what it used, and links to its conversation (and to the run that started it).
import { Link } from "react-router-dom";
import { useT } from "../i18n";
import { formatDate } from "../lib/format";
import { runPath } from "./RunTable";
import { costLabel, durationLabel, statusClass, statusLabel, stopReasonLabel, tokensLabel, userLabel } from "./runView";
import { ToolChips } from "./ToolChips";
import type { ConsoleRun } from "./types";

export function RunSummary({ run, agentName }: { run: ConsoleRun; agentName?: string }) {
  const t = useT();
  return (
    <section className="console-summary" aria-label={t("console.summary")}>
      <div className="console-summary-title">
        <span className={statusClass(run.status)} data-testid="detail-status">
          {statusLabel(run.status)}
        </span>
        {run.stop_reason && <span className="muted">{stopReasonLabel(run.stop_reason)}</span>}
        <Link to={`/threads/${encodeURIComponent(run.thread_id)}`} data-testid="conversation-link">
          {t("common.openConversation")}
        </Link>
        {run.parent_run_id && <Link to={runPath(run.parent_run_id)}>{t("console.parentRun")}</Link>}
      </div>
      <dl className="console-facts">
        <div>
          <dt>{t("console.columns.user")}</dt>
          <dd title={run.user_id}>{userLabel(run)}</dd>
        </div>
        <div>
          <dt>{t("console.columns.agent")}</dt>
          <dd title={run.assistant_id}>{agentName ?? run.assistant_id}</dd>
        </div>
        <div>
          <dt>{t("console.columns.started")}</dt>
          <dd>{formatDate(run.created_at)}</dd>
        </div>
        <div>
          <dt>{t("console.columns.duration")}</dt>
          <dd>{durationLabel(run)}</dd>
        </div>
        <div>
          <dt>{t("console.columns.models")}</dt>
          <dd>{run.models.length ? run.models.join(", ") : "—"}</dd>
        </div>
        <div>
          <dt>{t("console.columns.tokens")}</dt>
          <dd data-testid="detail-tokens">
            {tokensLabel(run)} · {t("console.calls", { count: run.usage.model_calls })}
          </dd>
        </div>
        <div>
          <dt>{t("console.columns.cost")}</dt>
          <dd>{costLabel(run)}</dd>
        </div>
        <div>
          <dt>{t("console.columns.tools")}</dt>
          <dd>
            <ToolChips tools={run.tools} />
          </dd>
        </div>
      </dl>
      {run.error && (
        <div className="error-box" role="alert" data-testid="detail-error">
          {run.error}
        </div>
      )}
    </section>
  );
}
