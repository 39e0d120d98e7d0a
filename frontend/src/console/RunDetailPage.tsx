// `/admin/runs/:runId` (admins): one run's summary and its timeline of model calls, tool
// calls and subagents.
import { Link, useLocation, useParams } from "react-router-dom";
import { Icon } from "../components/Icon";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useT } from "../i18n";
import { useResource } from "../lib/useResource";
import { AdminOnly } from "./AdminOnly";
import { consoleApi } from "./consoleApi";
import { FeedbackSection } from "./RunFeedback";
import { RunSummary } from "./RunSummary";
import type { BackState } from "./RunTable";
import { RunTimeline } from "./RunTimeline";
import { useAgentChoices } from "./useChoices";
import "./console.css";

function RunDetail({ runId }: { runId: string }) {
  const { data, error, loading, reload } = useResource(`console-run:${runId}`, (signal) => consoleApi.run(runId, signal));
  const back = (useLocation().state as BackState | null)?.search ?? "";
  const { agentName } = useAgentChoices(null);
  const t = useT();
  return (
    <main className="page console-page" id="main">
      <div className="page-head">
        <Link to={`/admin/runs${back}`} className="btn btn-sm btn-ghost">
          <Icon name="chevronLeft" size={14} /> {t("console.allRuns")}
        </Link>
        <h1 className="console-run-id">{t("console.runTitle", { id: runId })}</h1>
        <div className="page-actions">
          <button type="button" className="btn btn-sm" onClick={reload} aria-label={t("common.refresh")} disabled={loading}>
            <Icon name="refresh" size={14} />
          </button>
        </div>
      </div>
      {error && <ErrorState message={error} onRetry={reload} />}
      {!data && !error && <Spinner label={t("console.loadingRun")} />}
      {data && (
        <>
          <RunSummary run={data.run} agentName={agentName(data.run.assistant_id)} />
          <FeedbackSection run={data.run} />
          <h2>{t("console.timeline")}</h2>
          <RunTimeline detail={data} />
        </>
      )}
    </main>
  );
}

export function RunDetailPage() {
  const { runId } = useParams();
  const t = useT();
  return (
    <AdminOnly>
      {runId ? <RunDetail runId={runId} /> : <EmptyState icon="alert" title={t("console.noRunNamed")} />}
    </AdminOnly>
  );
}
