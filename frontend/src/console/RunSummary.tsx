// The head of a run's detail: how it ended, who ran it with which agent, when and how long,
// what it used, and links to its conversation (and to the run that started it).
import { Link } from "react-router-dom";
import { formatDate } from "../lib/format";
import { runPath } from "./RunTable";
import { costLabel, durationLabel, statusClass, tokensLabel, userLabel } from "./runView";
import { ToolChips } from "./ToolChips";
import type { ConsoleRun } from "./types";

export function RunSummary({ run, agentName }: { run: ConsoleRun; agentName?: string }) {
  return (
    <section className="console-summary" aria-label="Run summary">
      <div className="console-summary-title">
        <span className={statusClass(run.status)} data-testid="detail-status">
          {run.status}
        </span>
        {run.stop_reason && <span className="muted">{run.stop_reason.replace(/_/g, " ")}</span>}
        <Link to={`/threads/${encodeURIComponent(run.thread_id)}`} data-testid="conversation-link">
          Open the conversation
        </Link>
        {run.parent_run_id && <Link to={runPath(run.parent_run_id)}>Parent run</Link>}
      </div>
      <dl className="console-facts">
        <div>
          <dt>User</dt>
          <dd title={run.user_id}>{userLabel(run)}</dd>
        </div>
        <div>
          <dt>Agent</dt>
          <dd title={run.assistant_id}>{agentName ?? run.assistant_id}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatDate(run.created_at)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{durationLabel(run)}</dd>
        </div>
        <div>
          <dt>Models</dt>
          <dd>{run.models.length ? run.models.join(", ") : "—"}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd data-testid="detail-tokens">
            {tokensLabel(run)} · {run.usage.model_calls} {run.usage.model_calls === 1 ? "call" : "calls"}
          </dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{costLabel(run)}</dd>
        </div>
        <div>
          <dt>Tools</dt>
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
