// `/admin/runs` (admins): recent runs across people with what they used, filtered by user,
// agent, status and days (kept in the URL query), a page at a time, refreshed on demand or
// every few seconds.
import { useEffect, useMemo, useState } from "react";
import { useSearchParams } from "react-router-dom";
import { useOptionalAuth } from "../auth/auth";
import { Icon } from "../components/Icon";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useT } from "../i18n";
import { AdminOnly } from "./AdminOnly";
import { filtersFromSearch, hasFilters, NO_FILTERS, searchOfFilters, type RunFilters as Filters } from "./filters";
import { FeedbackExportLink } from "./RunFeedback";
import { RunFilters } from "./RunFilters";
import { RunTable } from "./RunTable";
import { useAgentChoices, useUserChoices } from "./useChoices";
import { useConsoleRuns } from "./useConsoleRuns";
import "./console.css";

/** How often auto-refresh reloads the list. */
export const AUTO_REFRESH_MS = 10_000;

/** Calls `refresh` every `AUTO_REFRESH_MS` while `on`. */
function useAutoRefresh(on: boolean, refresh: () => void) {
  useEffect(() => {
    if (!on) return;
    const timer = window.setInterval(refresh, AUTO_REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [on, refresh]);
}

function Toolbar(props: { auto: boolean; onAuto: (on: boolean) => void; onRefresh: () => void; loading: boolean }) {
  const t = useT();
  return (
    <div className="page-actions">
      <button
        type="button"
        className={props.auto ? "btn btn-sm btn-primary" : "btn btn-sm"}
        aria-pressed={props.auto}
        title={t("console.autoRefreshTitle", { seconds: AUTO_REFRESH_MS / 1000 })}
        onClick={() => props.onAuto(!props.auto)}
      >
        {t("console.autoRefresh")}
      </button>
      <button type="button" className="btn btn-sm" onClick={props.onRefresh} aria-label={t("common.refresh")} disabled={props.loading}>
        <Icon name="refresh" size={14} />
      </button>
    </div>
  );
}

function ConsoleList() {
  const [search, setSearch] = useSearchParams();
  const filters = useMemo(() => filtersFromSearch(search), [search]);
  const setFilters = (next: Filters) => setSearch(searchOfFilters(next), { replace: true });
  const { runs, total, error, loading, loadMore, refresh } = useConsoleRuns(filters);
  const [auto, setAuto] = useState(false);
  useAutoRefresh(auto, refresh);
  const open = useOptionalAuth()?.open ?? false;
  const users = useUserChoices(runs, open);
  const { agents, agentName } = useAgentChoices(runs);
  const t = useT();
  return (
    <main className="page console-page" id="main">
      <div className="page-head">
        <h1>{t("console.title")}</h1>
        <div className="page-actions">
          <FeedbackExportLink filters={filters} />
          <Toolbar auto={auto} onAuto={setAuto} onRefresh={refresh} loading={loading} />
        </div>
      </div>
      <p className="muted">{t("console.intro")}</p>
      <RunFilters filters={filters} onChange={setFilters} users={users} agents={agents} />
      {error && <ErrorState message={error} onRetry={refresh} />}
      {!runs && !error && <Spinner label={t("console.loadingRuns")} />}
      {runs && runs.length === 0 && !error && (
        <EmptyState icon="info" title={hasFilters(filters) ? t("console.noMatch") : t("console.noRuns")}>
          {hasFilters(filters) && (
            <button type="button" className="btn btn-sm" onClick={() => setFilters(NO_FILTERS)}>
              {t("console.filters.clear")}
            </button>
          )}
        </EmptyState>
      )}
      {runs && runs.length > 0 && (
        <>
          <p className="console-count" data-testid="run-count">
            {t("console.count", { shown: runs.length, count: total })}
          </p>
          <RunTable runs={runs} agentName={agentName} />
          {runs.length < total && (
            <div className="console-more">
              <button type="button" className="btn btn-sm" onClick={loadMore} disabled={loading}>
                {loading ? t("common.loading") : t("console.loadMore")}
              </button>
            </div>
          )}
        </>
      )}
    </main>
  );
}

export function RunsConsolePage() {
  return (
    <AdminOnly>
      <ConsoleList />
    </AdminOnly>
  );
}
