// One schedule on the Scheduled page: what it asks, when it runs next, how its last run went,
// and its actions (pause or resume, run now, edit, delete). An action's failure shows in the row.
import { type ReactNode, useState } from "react";
import { Link } from "react-router-dom";
import { type Cron, cronsApi } from "../api/crons";
import { errorMessage } from "../api/http";
import { Icon } from "../components/Icon";
import { Switch } from "../components/Switch";
import { useT } from "../i18n";
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
  const t = useT();
  if (!cron.enabled) return <span className="muted">{t("scheduled.row.paused")}</span>;
  if (!cron.next_run_date) return <span className="muted">{t("scheduled.row.noMoreRuns")}</span>;
  const timezone = cron.timezone ?? "UTC";
  return (
    <span>
      <time
        dateTime={cron.next_run_date}
        title={t("scheduled.row.inTimezone", { time: formatRunTime(cron.next_run_date, timezone), timezone })}
      >
        {formatRunTime(cron.next_run_date)}
      </time>{" "}
      <span className="muted">({formatUntil(cron.next_run_date)})</span>
    </span>
  );
}

function LastRun({ cron }: { cron: Cron }) {
  const run = cron.last_run;
  const t = useT();
  if (!run) return <span className="muted">{t("scheduled.row.notRunYet")}</span>;
  return (
    <ThreadLink threadId={run.thread_id} data-testid="cron-last-run" title={t("scheduled.row.lastRunTitle")}>
      <span className={`badge badge-${statusKind(run.status)}`}>
        {t(`common.runStatus.${run.status}`, { defaultValue: run.status })}
      </span>{" "}
      <span className="muted">{formatRelative(run.created_at)}</span>
    </ThreadLink>
  );
}

export function CronRow({ cron, agentName, onChanged, onEdit, onDelete }: CronRowProps) {
  const [busy, setBusy] = useState<"toggle" | "run" | null>(null);
  const [error, setError] = useState<string>();
  const [started, setStarted] = useState<string>();
  const t = useT();
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
          {!cron.enabled && <span className="badge badge-warn">{t("scheduled.row.pausedBadge")}</span>}
        </div>
        {message && message !== name && <p className="cron-message muted">{message}</p>}
        <dl className="cron-facts">
          <div>
            <dt>{t("scheduled.row.when")}</dt>
            <dd data-testid="cron-schedule">{describeSchedule(cron.schedule, cron.timezone)}</dd>
          </div>
          <div>
            <dt>{t("scheduled.row.nextRun")}</dt>
            <dd data-testid="cron-next">
              <NextRun cron={cron} />
            </dd>
          </div>
          <div>
            <dt>{t("scheduled.row.lastResult")}</dt>
            <dd>
              <LastRun cron={cron} />
            </dd>
          </div>
          <div>
            <dt>{t("scheduled.row.runsIn")}</dt>
            <dd>
              {cron.thread_id ? (
                <ThreadLink threadId={cron.thread_id}>{t("scheduled.row.itsConversation")}</ThreadLink>
              ) : (
                t("scheduled.row.newEachTime")
              )}
              {agentName && <span className="muted"> · {agentName}</span>}
            </dd>
          </div>
        </dl>
        {!cron.enabled && typeof cron.metadata["disabled_reason"] === "string" && (
          <p className="muted cron-reason" data-testid="cron-disabled-reason">
            {t("scheduled.row.pausedByServer", { reason: cron.metadata["disabled_reason"] })}
          </p>
        )}
        {started && (
          <p className="cron-started" role="status">
            {t("scheduled.row.runStarted")}{" "}
            <ThreadLink threadId={started} data-testid="cron-run-link">
              {t("common.openConversation")}
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
          <Switch
            checked={cron.enabled}
            onChange={toggle}
            label={t("scheduled.row.activeLabel", { name })}
            busy={busy === "toggle"}
          />
          <span aria-hidden="true">{cron.enabled ? t("scheduled.row.active") : t("scheduled.row.paused")}</span>
        </label>
        <button
          type="button"
          className="btn btn-sm"
          onClick={runNow}
          disabled={busy === "run"}
          aria-label={t("scheduled.row.runNowLabel", { name })}
        >
          <Icon name="send" size={14} /> {t("scheduled.row.runNow")}
        </button>
        <button type="button" className="btn btn-sm" onClick={() => onEdit(cron)} aria-label={t("scheduled.row.editLabel", { name })}>
          <Icon name="edit" size={14} /> {t("scheduled.row.edit")}
        </button>
        <button
          type="button"
          className="btn btn-sm btn-ghost"
          onClick={() => onDelete(cron)}
          aria-label={t("scheduled.row.deleteLabel", { name })}
        >
          <Icon name="trash" size={14} /> {t("common.delete")}
        </button>
      </div>
    </li>
  );
}
