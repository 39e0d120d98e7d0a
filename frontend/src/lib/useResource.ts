// One way to load data for a component: the load starts when `key` names something, the
// previous one is aborted when it changes (or on unmount), an answer that arrives late is
// ignored, failures become a message for people, and `reload` loads the same key again.
import { useCallback, useEffect, useRef, useState } from "react";
import { errorMessage } from "../api/http";

export interface Resource<T> {
  /** The last data loaded for this scope (kept while a reload runs or fails). */
  data: T | null;
  /** Why the last load failed. */
  error: string | null;
  /** A load is running. */
  loading: boolean;
  /** Loads the same key again. */
  reload: () => void;
}

interface State<T> {
  key: string | null;
  scope: string | null;
  data: T | null;
  error: string | null;
  loading: boolean;
}

/**
 * Loads `load(signal)` for `key` (`null`: nothing to load). `scope` (default: the key) says
 * which data belongs together: data of the same scope stays shown while a newer key of that
 * scope loads (a refresh), never data of another scope (another thread's files).
 */
export function useResource<T>(
  key: string | null,
  load: (signal: AbortSignal) => Promise<T>,
  scope: string | null = key,
): Resource<T> {
  const [state, setState] = useState<State<T>>({ key, scope, data: null, error: null, loading: key !== null });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    if (key === null) {
      setState({ key, scope, data: null, error: null, loading: false });
      return;
    }
    const abort = new AbortController();
    setState((s) => ({ key, scope, data: s.scope === scope ? s.data : null, error: null, loading: true }));
    loadRef.current(abort.signal).then(
      (data) => {
        if (!abort.signal.aborted) setState({ key, scope, data, error: null, loading: false });
      },
      (e: unknown) => {
        if (abort.signal.aborted) return;
        setState((s) => ({
          key,
          scope,
          data: s.scope === scope ? s.data : null,
          error: errorMessage(e),
          loading: false,
        }));
      },
    );
    return () => abort.abort();
  }, [key, scope, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const same = state.scope === scope;
  return {
    data: same ? state.data : null,
    error: state.key === key ? state.error : null,
    loading: state.key === key ? state.loading : key !== null,
    reload,
  };
}
