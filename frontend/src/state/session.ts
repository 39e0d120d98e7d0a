// One conversation's live state: loading it, streaming runs through the LangGraph SDK,
// stopping them, and joining a run that is still going after a page reload; its versions
// (Edit, Regenerate, ‹ i/n ›) come from the checkpoint history. Kept outside React so
// navigating between pages never drops a stream.
import { api } from "../api/client";
import { runErrorText } from "../api/errorText";
import { ApiError, errorMessage } from "../api/http";
import { ASSISTANT_ID, STREAM_MODES, langgraph, sdkErrorMessage } from "../api/langgraph";
import type { CustomEvent, RunFailure, Summary, ThreadState, ThreadValues } from "../api/types";
import { t } from "../i18n";
import { resolveAgent } from "../lib/agents";
import { type Branch, type BranchView, branchTo, branchView, newestCheckpoint } from "../lib/branches";
import {
  type Conversation,
  addOptimistic,
  applyMessageEvent,
  applyValues,
  emptyConversation,
  endsUnanswered,
  lastHumanText,
  visibleMessages,
} from "../lib/conversation";
import { type HumanContent, editedContent, humanContent } from "../lib/humanContent";
import { uuid } from "../lib/id";
import type { HumanMessage } from "../lib/messages";
import { type ModelChoice, choiceContext, parseChoice } from "../lib/modelChoice";
import { NO_RUN_MEMORY, type RunMemory, runStarted, withAnswerMemory } from "../lib/runMemory";
import { NO_SUBTASKS, type SubtaskMap, type TaskEvent, isTaskEvent, withTaskEvents } from "../lib/subtasks";
import { NO_PROGRESS, type ToolProgressMap, withProgress, withoutAnswered } from "../lib/toolProgress";
import type { Todo } from "../lib/todos";
import { type UsageLimit, usageLimitOf } from "../lib/usageLimit";
import { NO_SOURCES, type SourceMap, sourcesEventOf, withSources } from "../lib/webSources";
import type { PastedImage } from "../chat/usePastedImages";
import { type Suggested, lateSuggestions, suggestedOf } from "../chat/suggestions";
import { assistantsStore } from "./assistants";
import { agentChoice, effectiveChoice } from "./modelChoice";
import { runContext } from "./planMode";
import { refreshThreads, setGeneratedTitle } from "./threads";
import { Store } from "./store";
import { FrameBatch, HISTORY_LIMIT, NO_OUTCOME, type StreamPart, checkpointRef, shownValues, valuesAt } from "./sessionParts";

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
  /** The last run was refused: its user reached a daily usage limit. */
  limit?: UsageLimit | undefined;
  /** Transient status: retries, loop warnings, reconnection. */
  notice?: string;
  /** What running tool calls last reported (`tool_progress` events), until their results arrive. */
  toolProgress: ToolProgressMap;
  /** Subagents' tasks (`task_*` events) by the id of their `task` call; kept after the run
   * (a reload loses them: the cards then read the calls' results). */
  subtasks: SubtaskMap;
  /** Web sources calls reported (`sources` events; a subagent's under its `task` call), by
   * call id; kept after the run (a reload reads them from the calls' results). */
  sources: SourceMap;
  /** The remembered facts runs were given (their `metadata` event), by their answers. */
  remembered: RunMemory;
  artifacts: string[];
  /** The agent's plan (plan mode's `write_todos`) in the state shown; empty when it has none. */
  todos: Todo[];
  /** What the model reads instead of the earliest messages, in the state shown (`values.summary`). */
  summary?: Summary | undefined;
  /** Bumped whenever files may have changed, so artifact lists refetch. */
  filesVersion: number;
  /** The version of the conversation shown, from the checkpoint history: where Edit and
   * Regenerate run from, and the ‹ i/n › switchers. None until the history loads. */
  view?: BranchView;
  /** The agent (assistant id) the next run uses: picked in the Agent menu, else the one the
   * thread's last run used (its metadata). None: the built-in. */
  assistantId?: string;
  /** The model and thinking level the next run asks for: picked in the composer, else the
   * thread's last choice (`metadata.model_choice`). None: the one new conversations use. */
  modelChoice?: ModelChoice | undefined;
  /** Follow-up suggestions for an answer (shown while it is the last message). */
  suggestions?: Suggested | undefined;
}

const initial: SessionState = {
  conversation: emptyConversation,
  loaded: false,
  loading: false,
  notFound: false,
  streaming: false,
  stopping: false,
  stopped: false,
  toolProgress: NO_PROGRESS,
  subtasks: NO_SUBTASKS,
  sources: NO_SOURCES,
  remembered: NO_RUN_MEMORY,
  artifacts: [],
  todos: [],
  filesVersion: 0,
};

export class ThreadSession {
  readonly store = new Store<SessionState>(initial);
  private abort?: AbortController;
  /** The wait for an answer's late follow-up suggestions (a new run stops it). */
  private suggesting?: AbortController;
  private loadPromise?: Promise<void>;
  /** Token chunks, applied once per frame rather than once per token. */
  private readonly chunks = new FrameBatch<unknown>((chunks) =>
    this.store.set((s) => withAnswerMemory({
      ...s,
      conversation: chunks.reduce(applyMessageEvent, s.conversation),
      toolProgress: withoutAnswered(s.toolProgress, chunks),
    })),
  );
  /** Subagents' events, likewise (each task streams its own tokens). */
  private readonly tasks = new FrameBatch<TaskEvent>((events) =>
    this.store.set((s) => ({ ...s, subtasks: withTaskEvents(s.subtasks, events) })),
  );
  /** The thread's checkpoints, newest first, as last read. */
  private history: ThreadState[] = [];
  /** Only the latest history read is shown (an older answer may arrive after it). */
  private historyRead = 0;
  /** The view was read after the last run: its head may be sent from. */
  private viewFresh = false;
  /** An agent was picked here: the thread's metadata no longer says which one runs. */
  private picked = false;
  /** A model was picked here: the thread's metadata no longer says which one runs. */
  private pickedModel = false;

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

  /** Picks the agent the next runs use. */
  chooseAssistant(assistantId: string): void {
    this.picked = true;
    this.store.update({ assistantId });
  }

  /** Picks the model and thinking level the next runs ask for. */
  chooseModel(modelChoice: ModelChoice): void {
    this.pickedModel = true;
    this.store.update({ modelChoice });
  }

  /** Reads the thread's state (and which agent it uses), then joins a run that is still going. */
  async load(): Promise<void> {
    this.store.update({ loading: true, loadError: undefined, notFound: false });
    try {
      // The thread's own record only says which agent it uses: without it, the built-in.
      const [state, thread] = await Promise.all([
        api.threadState(this.threadId),
        api.thread(this.threadId).catch(() => undefined),
      ]);
      const assistantId = thread?.metadata["assistant_id"];
      if (typeof assistantId === "string" && assistantId && !this.picked) this.store.update({ assistantId });
      const modelChoice = parseChoice(thread?.metadata["model_choice"]);
      if (modelChoice && !this.pickedModel) this.store.update({ modelChoice });
      const suggested = suggestedOf(thread?.metadata["suggestions"]);
      if (suggested && !this.store.get().streaming) this.store.update({ suggestions: suggested });
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
      // A subagent's run (`metadata.parent_run_id`) is followed through its lead's stream.
      const lead = <R extends { metadata?: Record<string, unknown> | null }>(runs: R[]) =>
        runs.find((r) => !r.metadata?.["parent_run_id"]);
      const running = lead(await api.runs(this.threadId, "running")) ?? lead(await api.runs(this.threadId, "pending"));
      if (running && !this.store.get().streaming) this.join(running.run_id);
    } catch {
      // No run information: the state above is still right.
    }
    await this.loadHistory();
  }

  /** Reads the checkpoints and shows the branch holding the newest one: the state GET …/state
   * answers, which after an Edit or Regenerate is on the new branch. */
  async loadHistory(): Promise<void> {
    const read = ++this.historyRead;
    let history: ThreadState[];
    try {
      history = await api.history(this.threadId, HISTORY_LIMIT);
    } catch {
      return; // no versions then: the state is still shown
    }
    if (read !== this.historyRead) return;
    this.history = history;
    this.viewFresh = !this.store.get().streaming;
    const newest = newestCheckpoint(history);
    const view = branchView(history, newest ? branchTo(history, newest) : []);
    this.store.set((s) => {
      // Older servers' histories cannot say which version is which: their state stays.
      const shown = view.supported && view.head && !s.streaming;
      return {
        ...s,
        view,
        conversation: shown ? applyValues(s.conversation, view.messages) : s.conversation,
        ...(shown ? shownValues(valuesAt(history, view.head), s) : {}),
      };
    });
  }

  /** Shows another version of the conversation (read from the history; nothing runs). */
  showBranch(branch: Branch): void {
    if (this.store.get().streaming) return;
    const view = branchView(this.history, branch);
    if (!view.head) return;
    this.store.set((s) => ({
      ...s,
      view,
      conversation: { base: view.messages, live: [] },
      ...shownValues(valuesAt(this.history, view.head), s),
      // How the last run ended belongs to the version it ran on.
      ...NO_OUTCOME,
    }));
  }

  private applyState(values: ThreadValues): void {
    this.store.set((s) => ({
      ...s,
      conversation: applyValues(s.conversation, values.messages ?? []),
      artifacts: values.artifacts ?? s.artifacts,
      ...shownValues(values, s),
      filesVersion: s.filesVersion + 1,
    }));
  }

  /** Sends a message (with pasted images, as LangChain image blocks) and streams the run. */
  send(text: string, images: PastedImage[] = []): void {
    const blocks = images.map((i) => ({ type: "image", mimeType: i.mimeType, data: i.data }));
    const content = humanContent(text, blocks);
    if (!content || this.store.get().streaming) return;
    this.submit(content, (c) => ({ ...c, live: [] }));
  }

  /** Edit: runs again from before a message of the person, with new text, on a new branch
   * (the files and images it came with stay). */
  edit(messageId: string, text: string): void {
    const s = this.store.get();
    const from = s.view?.byMessage.get(messageId)?.parentCheckpoint;
    const messages = visibleMessages(s.conversation);
    const index = messages.findIndex((m) => m.id === messageId);
    const original = messages[index];
    const content = original?.type === "human" ? editedContent(original.content, text) : undefined;
    if (s.streaming || !from || !content) return;
    this.submit(content, () => ({ base: messages.slice(0, index), live: [] }), from);
  }

  /** Regenerate: runs again from before an answer, on a new branch (what came before it,
   * tool calls included, stays). */
  regenerate(messageId: string): void {
    const s = this.store.get();
    const from = s.view?.byMessage.get(messageId)?.parentCheckpoint;
    const messages = visibleMessages(s.conversation);
    const index = messages.findIndex((m) => m.id === messageId);
    if (s.streaming || !from || index < 0) return;
    this.store.update({ conversation: { base: messages.slice(0, index), live: [] }, ...NO_OUTCOME });
    this.start(null, from);
  }

  /** Shows the person's message at once on `shown` (the conversation it continues), then runs. */
  private submit(content: HumanContent, shown: (c: Conversation) => Conversation, checkpoint?: string): void {
    const id = uuid();
    this.store.set((s) => ({
      ...s,
      conversation: addOptimistic(shown(s.conversation), { type: "human", id, content } as HumanMessage),
      ...NO_OUTCOME,
    }));
    this.start({ messages: [{ role: "user", content, id }] }, checkpoint);
  }

  /**
   * Streams a new run; no input answers the thread's unanswered last message. It continues
   * `checkpoint` when given (Edit, Regenerate); else the shown version's last checkpoint when
   * that is not the newest (a message sent on an older version continues it, as the SDK does).
   * Until the history is read again after a run, the newest checkpoint is that run's own, which
   * is where a run goes without one.
   */
  private start(input: Record<string, unknown> | null, checkpoint?: string): void {
    const view = this.store.get().view;
    const older = this.viewFresh && view?.supported && !view.headIsNewest;
    const from = checkpoint ?? (older ? view.head : undefined);
    // An agent deleted since is the built-in (the list says so once loaded).
    const assistant = resolveAgent(assistantsStore.get().list, this.store.get().assistantId) ?? ASSISTANT_ID;
    // The model and thinking level (made valid for the configured models; a conversation
    // without a choice of its own runs its agent's model, when it names one), and plan mode
    // when it is on in this browser.
    const choice = effectiveChoice(this.store.get().modelChoice ?? agentChoice(assistant));
    const context = runContext(choice ? choiceContext(choice) : undefined);
    const abort = this.begin();
    const stream = langgraph().runs.stream(this.threadId, assistant, {
      input,
      ...(from ? { checkpoint: checkpointRef(from) } : {}),
      ...(context ? { context } : {}),
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
    this.store.update({ runId, notice: t("lib.session.reconnected") });
    const stream = langgraph().runs.joinStream(this.threadId, runId, { signal: abort.signal });
    void this.consume(stream as AsyncIterable<StreamPart>, abort);
  }

  dispose(): void {
    const abort = this.abort;
    this.abort = undefined;
    abort?.abort();
    this.suggesting?.abort();
    this.store.update({ streaming: false, stopping: false, toolProgress: NO_PROGRESS });
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
      this.store.update({ stopped: false, ...(ended ? {} : { error: t("lib.session.stopFailed", { error: errorMessage(e) }) }) });
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
    this.viewFresh = false;
    this.abort?.abort();
    this.suggesting?.abort();
    const abort = new AbortController();
    this.abort = abort;
    this.store.update({ streaming: true, stopping: false, runId: undefined, loaded: true, toolProgress: NO_PROGRESS, limit: undefined, suggestions: undefined });
    return abort;
  }

  private handle(part: StreamPart): void {
    const { event, data } = part;
    if (event === "messages" || event.startsWith("messages/")) {
      this.chunks.push(data);
      return;
    }
    // Everything else comes after the tokens before it.
    this.chunks.flush();
    if (event === "metadata") {
      const runId = (data as { run_id?: unknown } | null)?.run_id;
      if (typeof runId === "string") this.store.update({ runId });
      this.store.set((s) => ({ ...s, remembered: runStarted(s.remembered, data, s.conversation) }));
    } else if (event === "values") {
      const values = (data ?? {}) as ThreadValues;
      this.store.set((s) => withAnswerMemory({
        ...s,
        conversation: applyValues(s.conversation, values.messages ?? []),
        toolProgress: withoutAnswered(s.toolProgress, values.messages ?? []),
        artifacts: values.artifacts ?? s.artifacts,
        ...shownValues(values, s),
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
      this.store.update({ error: runErrorText(d.error ?? d.name, d.message) });
    }
  }

  private custom(data: unknown): void {
    if (!data || typeof data !== "object" || typeof (data as { type?: unknown }).type !== "string") return;
    const event = data as CustomEvent;
    const found = sourcesEventOf(event);
    if (found?.sources.length) this.store.set((s) => ({ ...s, sources: withSources(s.sources, found.callId, found.sources) }));
    if (isTaskEvent(event)) {
      this.tasks.push(event);
      return;
    }
    switch (event.type) {
      case "title":
        setGeneratedTitle(this.threadId, event.title);
        break;
      case "llm_retry":
        this.store.update({
          notice: t("lib.session.llmRetry", { reason: event.reason, attempt: event.attempt, max: event.max_retries }),
        });
        break;
      case "loop_warning":
        this.store.update({ notice: t("lib.session.loopWarning") });
        break;
      case "loop_detected":
        this.store.update({ notice: t("lib.session.loopDetected") });
        break;
      case "tool_progress":
        this.store.set((s) => ({ ...s, toolProgress: withProgress(s.toolProgress, event) }));
        break;
      case "network":
        // The tool result carries the same connections (its artifact), which the card shows.
        break;
      case "sources":
        // Kept above: the reply's Sources list and citations read them until the result
        // (whose artifact carries the same) arrives.
        break;
      case "suggestions":
        this.store.update({ suggestions: suggestedOf(event) });
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
      // A run refused over a daily limit gets its own banner (Retry would be refused too).
      const limit = usageLimitOf(e);
      if (!abort.signal.aborted) this.store.update(limit ? { limit } : { error: sdkErrorMessage(e) });
    }
    this.chunks.flush();
    this.tasks.flush();
    if (this.abort !== abort) return; // a newer stream took over
    this.abort = undefined;
    // No call runs once the run has ended, whatever its last report said.
    this.store.update({ streaming: false, stopping: false, notice: undefined, toolProgress: NO_PROGRESS });
    await this.sync();
    void refreshThreads();
    this.followSuggestions();
    await this.loadHistory();
  }

  /** After an answer that came without follow-up suggestions: those still being written. */
  private followSuggestions(): void {
    const s = this.store.get();
    if (s.streaming || s.error || s.stopped || s.limit || s.suggestions) return;
    this.suggesting?.abort();
    const suggesting = new AbortController();
    this.suggesting = suggesting;
    void lateSuggestions(this.threadId, suggesting.signal).then((found) => {
      if (found && !suggesting.signal.aborted && !this.store.get().streaming) this.store.update({ suggestions: found });
    });
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
            : { ...conv, live: s.error || s.limit ? conv.live.filter((l) => l.optimistic) : [] },
          artifacts: state.values.artifacts ?? s.artifacts,
          ...shownValues(state.values, s),
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
    if (deleted.has(threadId)) s.store.update({ loaded: true, notFound: true, loadError: t("lib.session.deleted") });
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
