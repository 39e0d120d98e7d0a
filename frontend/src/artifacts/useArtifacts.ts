// A thread's files, refetched when `version` changes.
import { useCallback, useEffect, useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { Artifact } from "../api/types";

export function useArtifacts(threadId: string, version = 0) {
  // Kept with the thread they belong to: another thread's files never show meanwhile.
  const [loaded, setLoaded] = useState<{ threadId: string; artifacts: Artifact[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let cancelled = false;
    setLoading(true);
    api.artifacts(threadId).then(
      (list) => {
        if (cancelled) return;
        setLoaded({ threadId, artifacts: list.artifacts });
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (cancelled) return;
        setError(errorMessage(e));
        setLoading(false);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [threadId, version, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const artifacts = loaded?.threadId === threadId ? loaded.artifacts : null;
  return { artifacts, error, loading, reload };
}

/** The text of a file (for previews), bounded in size. */
export function useText(url: string | null, enabled = true) {
  const [state, setState] = useState<{ text: string | null; error: string | null; loading: boolean }>({
    text: null,
    error: null,
    loading: !!url && enabled,
  });
  useEffect(() => {
    if (!url || !enabled) return;
    // Aborted when another file is chosen: a large download does not go on in the background.
    const abort = new AbortController();
    setState({ text: null, error: null, loading: true });
    fetch(url, { signal: abort.signal })
      .then(async (r) => {
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        return r.text();
      })
      .then(
        (text) => !abort.signal.aborted && setState({ text, error: null, loading: false }),
        (e: unknown) => !abort.signal.aborted && setState({ text: null, error: errorMessage(e), loading: false }),
      );
    return () => abort.abort();
  }, [url, enabled]);
  return state;
}
