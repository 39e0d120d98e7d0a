// The console's list of runs for a set of filters: the first page loads when the filters
// change (the previous load is aborted, a late answer ignored), "load more" appends the next
// page, and a refresh reloads what is shown in one request while it stays on screen.
import { useCallback, useEffect, useRef, useState } from "react";
import { errorMessage } from "../api/http";
import { consoleApi, PAGE_SIZE } from "./consoleApi";
import { queryOfFilters, type RunFilters } from "./filters";
import type { ConsoleQuery, ConsoleRun } from "./types";

/** The API's largest page. */
const MAX_LIMIT = 200;

export interface ConsoleRuns {
  /** The runs loaded so far, newest first; null before the first page arrives. */
  runs: ConsoleRun[] | null;
  /** How many runs match the filters. */
  total: number;
  /** Why the last load failed. */
  error: string | null;
  /** A load is running. */
  loading: boolean;
  /** Loads the next page after the runs shown. */
  loadMore: () => void;
  /** Loads the runs shown again (at least one page). */
  refresh: () => void;
}

interface State {
  key: string;
  runs: ConsoleRun[] | null;
  total: number;
  error: string | null;
  loading: boolean;
}

/** `more` after `runs`, without the ones already there (newer runs shift the offsets). */
function appended(runs: ConsoleRun[], more: ConsoleRun[]): ConsoleRun[] {
  const seen = new Set(runs.map((r) => r.run_id));
  return [...runs, ...more.filter((r) => !seen.has(r.run_id))];
}

export function useConsoleRuns(filters: RunFilters): ConsoleRuns {
  const query = queryOfFilters(filters);
  const key = JSON.stringify(query);
  const [state, setState] = useState<State>({ key, runs: null, total: 0, error: null, loading: true });
  const stateRef = useRef(state);
  stateRef.current = state;
  const pending = useRef<AbortController | null>(null);

  /** Loads `limit` runs from `offset` for `key`; `append` adds them to the ones shown. */
  const load = useCallback((key: string, offset: number, limit: number, append: boolean) => {
    pending.current?.abort();
    const abort = new AbortController();
    pending.current = abort;
    setState((s) => ({ ...s, key, error: null, loading: true, ...(s.key === key ? {} : { runs: null, total: 0 }) }));
    consoleApi.runs(JSON.parse(key) as ConsoleQuery, offset, limit, abort.signal).then(
      (page) => {
        if (abort.signal.aborted) return;
        setState((s) => ({
          key,
          runs: append && s.runs ? appended(s.runs, page.runs) : page.runs,
          total: page.total,
          error: null,
          loading: false,
        }));
      },
      (e: unknown) => {
        if (abort.signal.aborted) return;
        setState((s) => ({ ...s, error: errorMessage(e), loading: false }));
      },
    );
  }, []);

  useEffect(() => {
    load(key, 0, PAGE_SIZE, false);
  }, [key, load]);
  useEffect(() => () => pending.current?.abort(), []);

  const loadMore = useCallback(() => {
    const s = stateRef.current;
    load(s.key, s.runs?.length ?? 0, PAGE_SIZE, true);
  }, [load]);
  const refresh = useCallback(() => {
    const s = stateRef.current;
    const shown = s.runs?.length ?? 0;
    load(s.key, 0, Math.min(MAX_LIMIT, Math.max(PAGE_SIZE, shown)), false);
  }, [load]);

  const current = state.key === key;
  return {
    runs: current ? state.runs : null,
    total: current ? state.total : 0,
    error: current ? state.error : null,
    loading: current ? state.loading : true,
    loadMore,
    refresh,
  };
}
