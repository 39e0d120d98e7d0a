// Feedback on answers: the person's thumbs up or down (and optional comment) on the runs of a
// conversation. Each thread's ratings are read once, when one of its answers first shows
// (`GET …/feedback`), and kept in a store per thread that the thumbs of every answer share;
// a change shows at once and is undone when the server refuses it.
import { useEffect } from "react";
import type { components } from "../api/schema";
import { call, client } from "../api/typed";
import { Store, useStore } from "../state/store";

/** Thumbs up or down. */
export type Rating = components["schemas"]["Rating"];
/** The caller's feedback on one run. */
export type Feedback = components["schemas"]["Feedback"];

/** Longest comment the server takes, in characters. */
export const MAX_COMMENT_CHARS = 2000;

export const feedbackApi = {
  list: (threadId: string) =>
    call(client.GET("/api/threads/{thread_id}/feedback", { params: { path: { thread_id: threadId } } })),
  put: (threadId: string, runId: string, rating: Rating, comment?: string) =>
    call(
      client.PUT("/api/threads/{thread_id}/runs/{run_id}/feedback", {
        params: { path: { thread_id: threadId, run_id: runId } },
        body: { rating, comment: comment ?? null },
      }),
    ),
  remove: (threadId: string, runId: string) =>
    call(
      client.DELETE("/api/threads/{thread_id}/runs/{run_id}/feedback", {
        params: { path: { thread_id: threadId, run_id: runId } },
      }),
    ),
};

/** A thread's ratings, by run id. */
export interface ThreadFeedback {
  status: "idle" | "loading" | "loaded" | "failed";
  byRun: Readonly<Record<string, Feedback>>;
}

const stores = new Map<string, Store<ThreadFeedback>>();

/** The store of a thread's ratings (empty until [`loadFeedback`]). */
export function feedbackStore(threadId: string): Store<ThreadFeedback> {
  let store = stores.get(threadId);
  if (!store) {
    store = new Store<ThreadFeedback>({ status: "idle", byRun: {} });
    stores.set(threadId, store);
  }
  return store;
}

/** Reads a thread's ratings once (again only after a failure). */
export async function loadFeedback(threadId: string): Promise<void> {
  const store = feedbackStore(threadId);
  const status = store.get().status;
  if (status === "loading" || status === "loaded") return;
  store.update({ status: "loading" });
  const changed = new Set<string>();
  changedWhileLoading.set(threadId, changed);
  try {
    const { feedback } = await feedbackApi.list(threadId);
    const byRun: Record<string, Feedback> = {};
    for (const f of feedback) if (!changed.has(f.run_id)) byRun[f.run_id] = f;
    // Changes made while it loaded (ratings given or taken back) are newer than what it read.
    store.set((s) => {
      const merged = { ...byRun };
      for (const runId of changed) {
        const now = s.byRun[runId];
        if (now) merged[runId] = now;
      }
      return { status: "loaded", byRun: merged };
    });
  } catch {
    store.update({ status: "failed" });
  } finally {
    changedWhileLoading.delete(threadId);
  }
}

/** Runs rated or un-rated while a thread's feedback loads (their state wins over the list). */
const changedWhileLoading = new Map<string, Set<string>>();
/** Per run: the number of the latest click, and the chain of its requests. */
const clicks = new Map<string, number>();
const requests = new Map<string, Promise<unknown>>();

function setRun(threadId: string, runId: string, feedback: Feedback | undefined): void {
  feedbackStore(threadId).set((s) => {
    const byRun = { ...s.byRun };
    if (feedback) byRun[runId] = feedback;
    else delete byRun[runId];
    return { ...s, byRun };
  });
}

/**
 * Rates a run (`rating` undefined takes the rating back): shown at once, then stored; the
 * earlier state comes back when the server refuses, and the error is thrown.
 */
export async function rateRun(threadId: string, runId: string, rating: Rating | undefined, comment?: string): Promise<void> {
  const key = `${threadId}\n${runId}`;
  const click = (clicks.get(key) ?? 0) + 1;
  clicks.set(key, click);
  changedWhileLoading.get(threadId)?.add(runId);
  const before = feedbackStore(threadId).get().byRun[runId];
  const now = new Date().toISOString();
  setRun(
    threadId,
    runId,
    rating && {
      run_id: runId,
      thread_id: threadId,
      rating,
      comment: comment?.trim() || null,
      created_at: before?.created_at ?? now,
      updated_at: now,
    },
  );
  // One request at a time per run, in click order, so the server ends with the last choice;
  // only the last click's answer (or failure) changes what is shown.
  const request = (requests.get(key) ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => (rating ? feedbackApi.put(threadId, runId, rating, comment) : feedbackApi.remove(threadId, runId)));
  requests.set(key, request);
  try {
    const saved = await request;
    if (clicks.get(key) === click && rating && saved) setRun(threadId, runId, saved as Feedback);
  } catch (e) {
    if (clicks.get(key) === click) setRun(threadId, runId, before);
    throw e;
  }
}

/** The caller's feedback on a run of a thread, loading the thread's on first use. */
export function useRunFeedback(threadId: string, runId: string): Feedback | undefined {
  const state = useStore(feedbackStore(threadId));
  useEffect(() => {
    void loadFeedback(threadId);
  }, [threadId]);
  return state.byRun[runId];
}

/** Forgets every thread's ratings (tests). */
export function resetFeedback(): void {
  stores.clear();
}
