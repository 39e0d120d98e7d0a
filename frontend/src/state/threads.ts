// The sidebar's thread list, newest activity first.
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { Thread } from "../api/types";
import { Store } from "./store";

export interface ThreadsState {
  threads: Thread[];
  loaded: boolean;
  loading: boolean;
  error?: string;
}

export const threadsStore = new Store<ThreadsState>({ threads: [], loaded: false, loading: false });

function sorted(threads: Thread[]): Thread[] {
  return [...threads].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
}

export async function refreshThreads(): Promise<void> {
  threadsStore.update({ loading: true });
  try {
    const threads = await api.searchThreads({
      limit: 200,
      offset: 0,
      sort_by: "updated_at",
      sort_order: "desc",
    });
    threadsStore.set({ threads: sorted(threads), loaded: true, loading: false });
  } catch (e) {
    threadsStore.update({ loading: false, loaded: true, error: errorMessage(e) });
  }
}

export function upsertThread(thread: Thread): void {
  threadsStore.set((s) => ({
    ...s,
    threads: sorted([thread, ...s.threads.filter((t) => t.thread_id !== thread.thread_id)]),
  }));
}

/** A generated title arrived in a run's events. */
export function setGeneratedTitle(threadId: string, title: string): void {
  threadsStore.set((s) => ({
    ...s,
    threads: s.threads.map((t) =>
      t.thread_id === threadId ? { ...t, values: { ...t.values, title } } : t,
    ),
  }));
}

export async function renameThread(threadId: string, title: string): Promise<void> {
  const thread = await api.renameThread(threadId, title);
  threadsStore.set((s) => ({
    ...s,
    threads: s.threads.map((t) =>
      t.thread_id === threadId ? { ...t, metadata: thread.metadata } : t,
    ),
  }));
}

export async function deleteThread(threadId: string): Promise<void> {
  await api.deleteThread(threadId);
  threadsStore.set((s) => ({ ...s, threads: s.threads.filter((t) => t.thread_id !== threadId) }));
}
