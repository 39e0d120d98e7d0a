// One conversation's live state: loading it, streaming runs through the LangGraph SDK,
// stopping them, and joining a run that is still going after a page reload. Kept outside
// React so navigating between pages never drops a stream.
import { api } from "../api/client";
import { ApiError, errorMessage } from "../api/http";
import { ASSISTANT_ID, STREAM_MODES, langgraph, sdkErrorMessage } from "../api/langgraph";
import type { CustomEvent, RunFailure, ThreadValues } from "../api/types";
import {
  type Conversation,
  addOptimistic,
  applyMessageEvent,
  applyValues,
  emptyConversation,
  endsUnanswered,
  lastHumanText,
} from "../lib/conversation";
import { uuid } from "../lib/id";
import type { HumanMessage } from "../lib/messages";
import type { PastedImage } from "../chat/usePastedImages";
import { refreshThreads, setGeneratedTitle } from "./threads";
import { Store } from "./store";

export interface SessionState {
  conversation: Conversation;
  loaded: boolean;
  loading: boolean;
  loadError?: string;
  /** The thread does not exist (404). */
  notFound: boolean;
  streaming: boolean;
  /** The run being streamed (known once the server answers). */
  runId?: string;
  stopping: boolean;
  /** The last run was stopped by the person. */
  stopped: boolean;
  /** The last run failed. */
  error?: string;
  /** Transient status: retries, loop warnings, reconnection. */
  notice?: string;
  artifacts: string[];
  /** Bumped whenever files may have changed, so artifact lists refetch. */
  filesVersion: number;
}

const initial: SessionState = {
  conversation: emptyConversation,
  loaded: false,
  loading: false,
  notFound: false,
  streaming: false,
  stopping: false,
  stopped: false,
  artifacts: [],
  filesVersion: 0,
};

interface StreamPart {
  event: string;
  data: unknown;
}

/** Runs `f` before the next paint (a timer where frames do not run, as in tests). */
const nextFrame = (f: () => void): void => {
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(f);
  else setTimeout(f, 16);
};

export class ThreadSession {
  readonly store = new Store<SessionState>(initial);
  private abort?: AbortController;
  private loadPromise?: Promise<void>;
  /** Token chunks not yet applied: applied once per frame, not once per token. */
  private chunks: unknown[] = [];

  constructor(readonly threadId: string) {}

  /** A thread created here has nothing to load. */
  markFresh(): void {
    this.store.update({ loaded: true });
  }

  ensureLoaded(): Promise<void> {
    const s = this.store.get();
    if (s.loaded || s.streaming) return Promise.resolve();
    this.loadPromise ??= this.load().finally(() => {
      this.loadPromise = undefined;
    });
    return this.loadPromise;
  }

  /** Reads the thread's state, then joins a run that is still going. */
  async load(): Promise<void> {
    this.store.update({ loading: true, loadError: undefined, notFound: false });
    try {
      const state = await api.threadState(this.threadId);
      this.applyState(state.values);
      this.store.update({ loaded: true, loading: false });
    } catch (e) {
      this.store.update({
        loading: false,
        loaded: true,
        loadError: errorMessage(e),
        notFound: e instanceof ApiError && e.status === 404,
      });
      return;
    }
    try {
      const running = (await api.runs(this.threadId, "running"))[0]
        ?? (await api.runs(this.threadId, "pending"))[0];
      if (running && !this.store.get().streaming) this.join(running.run_id);
    } catch {
      // No run information: the state above is still right.
    }
  }

  private applyState(values: ThreadValues): void {
    this.store.set((s) => ({
      ...s,
      conversation: applyValues(s.conversation, values.messages ?? []),
      artifacts: values.artifacts ?? s.artifacts,
      filesVersion: s.filesVersion + 1,
    }));
  }

  /** Sends a message (with pasted images, as LangChain image blocks) and streams the run. */
  send(text: string, images: PastedImage[] = []): void {
    const trimmed = text.trim();
    if ((!trimmed && images.length === 0) || this.store.get().streaming) return;
    const content: string | Record<string, string>[] = images.length
      ? [
          ...(trimmed ? [{ type: "text", text: trimmed }] : []),
          ...images.map((i) => ({ type: "image", mimeType: i.mimeType, data: i.data })),
        ]
      : trimmed;
    const id = uuid();
    this.store.set((s) => ({
      ...s,
      conversation: addOptimistic({ ...s.conversation, live: [] }, { type: "human", id, content } as HumanMessage),
      error: undefined,
      stopped: false,
      notice: undefined,
        }));
    this.start({ messages: [{ role: "user", content, id }] });
  }

  /** Streams a new run; no input answers the thread's unanswered last message. */
  private start(input: Record<string, unknown> | null): void {
    const abort = this.begin();
    const stream = langgraph().runs.stream(this.threadId, ASSISTANT_ID, {
      input,
      streamMode: [...STREAM_MODES],
      onDisconnect: "continue",
      signal: abort.signal,
      onRunCreated: ({ run_id }) => this.store.update({ runId: run_id }),
    });
    void this.consume(stream as AsyncIterable<StreamPart>, abort);
  }

  /** Joins a run that is already going (after a reload, or from another tab). */
  join(runId: string): void {
    const abort = this.begin();
    this.store.update({ runId, notice: "Reconnected to the running answer." });
    const stream = langgraph().runs.joinStream(this.threadId, runId, { signal: abort.signal });
    void this.consume(stream as AsyncIterable<StreamPart>, abort);
  }

  dispose(): void {
    const abort = this.abort;
    this.abort = undefined;
    abort?.abort();
    this.store.update({ streaming: false, stopping: false });
  }

  /** Runs the last message again: without re-sending it when it has no answer stored. */
  retry(): void {
    const s = this.store.get();
    if (s.streaming) return;
    if (endsUnanswered(s.conversation)) {
      this.store.update({ error: undefined, stopped: false, notice: undefined });
      this.start(null);
      return;
    }
    const text = lastHumanText(s.conversation);
    if (text) this.send(text);
  }

  /** Stops the run: the server interrupts the model stream and any running command. */
  async stop(): Promise<void> {
    const s = this.store.get();
    if (!s.streaming || s.stopping) return;
    // Marked stopped at once: the stream may end before the cancel request answers.
    this.store.update({ stopping: true, stopped: true });
    const runId = s.runId ?? (await this.waitForRunId());
    try {
      if (runId) await api.cancelRun(this.threadId, runId);
    } catch (e) {
      // 409: the run had already ended by itself.
      const ended = e instanceof ApiError && e.status === 409;
      this.store.update({ stopped: false, ...(ended ? {} : { error: `Could not stop the run: ${errorMessage(e)}` }) });
    } finally {
      // The stream ends with the run; do not wait forever if it does not.
      const abort = this.abort;
      setTimeout(() => {
        if (this.abort === abort && this.store.get().streaming) abort?.abort();
      }, 5000);
    }
  }

  private waitForRunId(): Promise<string | undefined> {
    return new Promise((resolve) => {
      const deadline = Date.now() + 5000;
      const tick = () => {
        const id = this.store.get().runId;
        if (id || Date.now() > deadline || !this.store.get().streaming) resolve(id);
        else setTimeout(tick, 50);
      };
      tick();
    });
  }

  private begin(): AbortController {
    this.abort?.abort();
    const abort = new AbortController();
    this.abort = abort;
    this.store.update({ streaming: true, stopping: false, runId: undefined, loaded: true });
    return abort;
  }

  private handle(part: StreamPart): void {
    const { event, data } = part;
    if (event === "messages" || event.startsWith("messages/")) {
      if (this.chunks.push(data) === 1) nextFrame(() => this.flushChunks());
      return;
    }
    // Everything else comes after the tokens before it.
    this.flushChunks();
    if (event === "metadata") {
      const runId = (data as { run_id?: unknown } | null)?.run_id;
      if (typeof runId === "string") this.store.update({ runId });
    } else if (event === "values") {
      const values = (data ?? {}) as ThreadValues;
      this.store.set((s) => ({
        ...s,
        conversation: applyValues(s.conversation, values.messages ?? []),
        artifacts: values.artifacts ?? s.artifacts,
        filesVersion:
          (values.artifacts ?? []).length !== s.artifacts.length ? s.filesVersion + 1 : s.filesVersion,
      }));
      if (typeof values.title === "string" && values.title) setGeneratedTitle(this.threadId, values.title);
    } else if (event === "custom") {
      this.custom(data);
    } else if (event === "error") {
      // The person stopped the run: the server's "cancelled" error is expected.
      if (this.store.get().stopped) return;
      const d = (data ?? {}) as Partial<RunFailure>;
      const message = typeof d.message === "string" ? d.message : String(d.error ?? "The run failed.");
      this.store.update({ error: message });
    }
  }

  private flushChunks(): void {
    const chunks = this.chunks;
    if (chunks.length === 0) return;
    this.chunks = [];
    this.store.set((s) => ({ ...s, conversation: chunks.reduce(applyMessageEvent, s.conversation) }));
  }

  private custom(data: unknown): void {
    if (!data || typeof data !== "object" || typeof (data as { type?: unknown }).type !== "string") return;
    const event = data as CustomEvent;
    switch (event.type) {
      case "title":
        setGeneratedTitle(this.threadId, event.title);
        break;
      case "llm_retry":
        this.store.update({
          notice: `The model call failed (${event.reason}); retrying, attempt ${event.attempt} of ${event.max_retries}…`,
        });
        break;
      case "loop_warning":
        this.store.update({ notice: "The agent is repeating the same tool calls; it was asked to change approach." });
        break;
      case "loop_detected":
        this.store.update({ notice: "The agent kept repeating the same tool calls and was stopped." });
        break;
      default: {
        // A kind this UI does not know yet (a newer server): nothing to show.
        const unknown: never = event;
        void unknown;
      }
    }
  }

  private async consume(stream: AsyncIterable<StreamPart>, abort: AbortController): Promise<void> {
    try {
      for await (const part of stream) {
        if (abort.signal.aborted) break;
        this.handle(part);
        if (part.event === "end") break;
      }
    } catch (e) {
      if (!abort.signal.aborted) this.store.update({ error: sdkErrorMessage(e) });
    }
    this.flushChunks();
    if (this.abort !== abort) return; // a newer stream took over
    this.abort = undefined;
    this.store.update({ streaming: false, stopping: false, notice: undefined });
    await this.sync();
    void refreshThreads();
  }

  /** After a run: the stored state is the truth (a stopped answer keeps what streamed). */
  private async sync(): Promise<void> {
    try {
      const state = await api.threadState(this.threadId);
      const keepPartial = this.store.get().stopped;
      this.store.set((s) => {
        const conv = applyValues(s.conversation, state.values.messages ?? []);
        return {
          ...s,
          conversation: keepPartial
            ? conv
            : { ...conv, live: s.error ? conv.live.filter((l) => l.optimistic) : [] },
          artifacts: state.values.artifacts ?? s.artifacts,
          filesVersion: s.filesVersion + 1,
        };
      });
    } catch {
      // keep what streamed
    }
  }
}

const sessions = new Map<string, ThreadSession>();
/** Threads deleted from this page: never fetched again. */
const deleted = new Set<string>();

export function sessionFor(threadId: string): ThreadSession {
  let s = sessions.get(threadId);
  if (!s) {
    s = new ThreadSession(threadId);
    if (deleted.has(threadId)) s.store.update({ loaded: true, notFound: true, loadError: "This conversation was deleted." });
    sessions.set(threadId, s);
  }
  return s;
}

/** The thread was deleted: stop following it. */
export function forgetSession(threadId: string): void {
  deleted.add(threadId);
  sessions.get(threadId)?.dispose();
  sessions.delete(threadId);
}
