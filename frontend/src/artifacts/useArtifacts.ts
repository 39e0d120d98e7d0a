// A thread's files and the text of one file, loaded through `useResource`.
import { useCallback, useEffect } from "react";
import { api } from "../api/client";
import type { Artifact } from "../api/types";
import { useResource } from "../lib/useResource";

/** A thread's files, refetched when `version` changes; another thread's files never show meanwhile. */
export function useArtifacts(threadId: string, version = 0) {
  const load = useCallback(
    async (signal: AbortSignal): Promise<Artifact[]> => (await api.artifacts(threadId, signal)).artifacts,
    [threadId],
  );
  const { data, error, loading, reload } = useResource(`${threadId}:${version}`, load, threadId);
  return { artifacts: data, error, loading, reload };
}

/** The text of a file (for previews); aborted when another file is chosen, so a large download does not go on in the background. */
/** A file fetched whole as a blob URL (revoked when no longer shown); a failure carries the
 * server's error message. */
export function useBlobUrl(url: string | null) {
  const load = useCallback(
    async (signal: AbortSignal) => {
      const r = await fetch(url ?? "", { signal });
      if (!r.ok) {
        const body = await r.json().catch(() => null);
        throw new Error(body?.error?.message ?? `HTTP ${r.status}`);
      }
      return URL.createObjectURL(await r.blob());
    },
    [url],
  );
  const { data, error, loading } = useResource(url, load);
  useEffect(() => () => {
    if (data) URL.revokeObjectURL(data);
  }, [data]);
  return { blobUrl: data, error, loading };
}

export function useText(url: string | null, enabled = true) {
  const load = useCallback(
    async (signal: AbortSignal) => {
      const r = await fetch(url ?? "", { signal });
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return r.text();
    },
    [url],
  );
  const { data, error, loading } = useResource(url && enabled ? url : null, load);
  return { text: data, error, loading };
}
