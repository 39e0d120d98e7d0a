// The facts Settings → Memory shows: loaded for the search, category and page size asked
// for, and changed in place by what the page does (add, correct, delete, the settings), so
// a change shows at once without reading everything again.
import { useCallback, useRef, useState } from "react";
import { api } from "../api/client";
import type { Fact, FactCategory, MemoryList, MemorySettings } from "../api/types";
import { useResource } from "../lib/useResource";

export interface MemoryQuery {
  /** Words to search for ("" for none: newest first). */
  q: string;
  /** One category ("" for all). */
  category: FactCategory | "";
  limit: number;
}

/** Changes the page makes to the list it shows. */
export interface MemoryEdits {
  added: (fact: Fact) => void;
  /** `old` was corrected: `next` is its new version. */
  replaced: (old: string, next: Fact) => void;
  removed: (id: string) => void;
  settingsSaved: (settings: MemorySettings) => void;
}

export function useMemoryList(query: MemoryQuery) {
  const { q, category, limit } = query;
  const resource = useResource(
    JSON.stringify(query),
    (signal) => api.memory({ ...(q ? { q } : {}), ...(category ? { category } : {}), limit }, signal),
    // One scope: the list stays shown while another search loads.
    "memory",
  );
  // Local changes apply to the data they were made on; the next load replaces both.
  const [edited, setEdited] = useState<{ base: MemoryList; list: MemoryList } | null>(null);
  const loaded = useRef(resource.data);
  loaded.current = resource.data;
  const list = edited && edited.base === resource.data ? edited.list : resource.data;

  const change = useCallback((f: (list: MemoryList) => MemoryList) => {
    setEdited((prev) => {
      const base = loaded.current;
      if (!base) return prev;
      return { base, list: f(prev && prev.base === base ? prev.list : base) };
    });
  }, []);

  const edits: MemoryEdits = {
    added: (fact) => change((l) => ({ ...l, facts: [fact, ...l.facts], total: l.total + 1 })),
    replaced: (old, next) =>
      change((l) => ({ ...l, facts: l.facts.map((f) => (f.fact_id === old ? next : f)) })),
    removed: (id) =>
      change((l) => ({ ...l, facts: l.facts.filter((f) => f.fact_id !== id), total: Math.max(0, l.total - 1) })),
    settingsSaved: (settings) => change((l) => ({ ...l, enabled: settings.enabled, summary: settings.summary ?? null })),
  };
  return { list, error: resource.error, loading: resource.loading, reload: resource.reload, edits };
}
