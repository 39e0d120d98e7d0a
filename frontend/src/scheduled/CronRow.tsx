// One schedule on the Scheduled page: what it asks, when it runs next, how its last run went,
// and its actions (pause or resume, run now, edit, delete). An action's failure shows in the row.
import { type ReactNode, useState } from "react";
import { Link } from "react-router-dom";
import { type Cron, cronsApi } from "../api/crons";
import { errorMessage } from "../api/http";
import { Icon } from "../components/Icon";
import { Switch } from "../components/Switch";
import { formatRelative } from "../lib/format";
import { describeSchedule, formatRunTime, formatUntil } from "../lib/schedule";
import { sessionFor } from "../state/session";
import { messageOf, nameOf, statusKind } from "./cronView";

export interface CronRowProps {
  cron: Cron;
  /** The agent's name, when it is known. */
  agentName?: string | undefined;
  onChanged: (cron: Cron) => void;
  onEdit: (cron: Cron) => void;
  onDelete: (cron: Cron) => void;
}

/**
 * A link to a conversation a schedule runs in. A conversation this tab has open already is read
 * again on the way (its scheduled runs were started elsewhere, so it would show them only after
 * a reload), and a run still going is joined.
 */
function ThreadLink({ threadId, children, ...rest }: { threadId: string; children: ReactNode; title?: string; "data-testid"?: string }) {
  const refresh = () => {
    const session = sessionFor(threadId);
    const s = session.store.get();
    if (s.loaded && !s.streaming && !s.loading) void session.load();
  };
  return (
    <Link to={`/threads/${encodeURIComponent(threadId)}`} onClick={refresh} {...rest}>
      {children}
    </Link>
  );
}

function NextRun({ cron }: { cron: Cron }) {
  if (!cron.enabled) return <span className="muted">Paused</span>;
  if (!cron.next_run_date) return <span className="muted">No more runs</span>;
  return (
    <span>
      <time dateTime={cron.next_run_date} title={`${formatRunTime(cron.next_run_date, cron.timezone ?? "UTC")} in ${cron.timezone ?? "UTC"}`}>
        {formatRunTime(cron.next_run_date)}
      </time>{" "}
      <span className="muted">({formatUntil(cron.next_run_date)})</span>
    </span>
  );
}

function LastRun({ cron }: { cron: Cron }) {
  const run = cron.last_run;
  if (!run) return <span className="muted">Not run yet</span>;
  return (
    <ThreadLink threadId={run.thread_id} data-testid="cron-last-run" title="Open the conversation of the last run">
      <span className={`badge badge-${statusKind(run.status)}`}>{run.status}</span>{" "}
      <span className="muted">{formatRelative(run.created_at)}</span>
    </ThreadLink>
  );
}

export function CronRow({ cron, agentName, onChanged, onEdit, onDelete }: CronRowProps) {
  const [busy, setBusy] = useState<"toggle" | "run" | null>(null);
  const [error, setError] = useState<string>();
  const [started, setStarted] = useState<string>();
  const name = nameOf(cron);
  const message = messageOf(cron);
  const act = async (kind: "toggle" | "run", action: () => Promise<void>) => {
    setBusy(kind);
    setError(undefined);
    try {
      await action();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(null);
    }
  };
  const toggle = (enabled: boolean) =>
    void act("toggle", async () => {
      onChanged(await cronsApi.update(cron.cron_id, { enabled }));
    });
  const runNow = () =>
    void act("run", async () => {
      const run = await cronsApi.runNow(cron.cron_id);
      setStarted(run.thread_id);
      // The list shows the new run as the last one.
      onChanged({ ...cron, last_run: { run_id: run.run_id, thread_id: run.thread_id, status: run.status, created_at: run.created_at } });
    });
  return (
    <li className={`cron-row ${cron.enabled ? "" : "cron-paused"}`} data-testid="cron-row" data-enabled={cron.enabled} aria-label={name}>
      <div className="cron-main">
        <div className="cron-title">
          <strong data-testid="cron-name">{name}</strong>
          {!cron.enabled && <span className="badge badge-warn">paused</span>}
        </div>
        {message && message !== name && <p className="cron-message muted">{message}</p>}
        <dl className="cron-facts">
          <div>
            <dt>When</dt>
            <dd data-testid="cron-schedule">{describeSchedule(cron.schedule, cron.timezone)}</dd>
          </div>
          <div>
            <dt>Next run</dt>
            <dd data-testid="cron-next">
              <NextRun cron={cron} />
            </dd>
          </div>
          <div>
            <dt>Last result</dt>
            <dd>
              <LastRun cron={cron} />
            </dd>
          </div>
          <div>
            <dt>Runs in</dt>
            <dd>
              {cron.thread_id ? (
                <ThreadLink threadId={cron.thread_id}>its conversation</ThreadLink>
              ) : (
                "a new conversation each time"
              )}
              {agentName && <span className="muted"> · {agentName}</span>}
            </dd>
          </div>
        </dl>
        {!cron.enabled && typeof cron.metadata["disabled_reason"] === "string" && (
          <p className="muted cron-reason" data-testid="cron-disabled-reason">
            Paused by the server: {cron.metadata["disabled_reason"]}
          </p>
        )}
        {started && (
          <p className="cron-started" role="status">
            Run started.{" "}
            <ThreadLink threadId={started} data-testid="cron-run-link">
              Open the conversation
            </ThreadLink>
          </p>
        )}
        {error && (
          <p className="form-error" role="alert" data-testid="cron-error">
            {error}
          </p>
        )}
      </div>
      <div className="cron-actions">
        <label className="cron-switch">
          <Switch checked={cron.enabled} onChange={toggle} label={`Active: ${name}`} busy={busy === "toggle"} />
          <span aria-hidden="true">{cron.enabled ? "Active" : "Paused"}</span>
        </label>
        <button type="button" className="btn btn-sm" onClick={runNow} disabled={busy === "run"} aria-label={`Run now: ${name}`}>
          <Icon name="send" size={14} /> Run now
        </button>
        <button type="button" className="btn btn-sm" onClick={() => onEdit(cron)} aria-label={`Edit: ${name}`}>
          <Icon name="edit" size={14} /> Edit
        </button>
        <button type="button" className="btn btn-sm btn-ghost" onClick={() => onDelete(cron)} aria-label={`Delete: ${name}`}>
          <Icon name="trash" size={14} /> Delete
        </button>
      </div>
    </li>
  );
}
