// `/` and `/threads/:threadId`: the conversation list, the chat, and the files panel.
import { useCallback, useEffect, useRef, useState } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router-dom";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import { threadTitle } from "../api/types";
import { ArtifactPanel } from "../artifacts/ArtifactPanel";
import { Icon } from "../components/Icon";
import { useShell } from "../components/Shell";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useToast } from "../components/Toasts";
import { useFileDrop } from "../hooks/useFileDrop";
import { useT } from "../i18n";
import { lastHumanText, visibleMessages } from "../lib/conversation";
import { uuid } from "../lib/id";
import type { ModelChoice } from "../lib/modelChoice";
import { withAttachments } from "../lib/uploads";
import { contextUsed } from "../lib/usage";
import { describeSchedule } from "../lib/schedule";
import { ScheduleDialog } from "../scheduled/ScheduleDialog";
import { useAppInfo } from "../state/appInfo";
import { assistantsStore, rememberAgent } from "../state/assistants";
import { planModeStore, setPlanMode } from "../state/planMode";
import { agentChoice, effectiveChoice, modelsStore, rememberChoice } from "../state/modelChoice";
import { type SessionState, ThreadSession, sessionFor } from "../state/session";
import { useStore } from "../state/store";
import { threadsStore, upsertThread } from "../state/threads";
import { AgentPicker } from "./AgentPicker";
import { Composer } from "./Composer";
import { ComposerOptions } from "./ComposerOptions";
import { MessageList } from "./MessageList";
import { PlanChecklist } from "./PlanChecklist";
import { Sidebar } from "./Sidebar";
import { UsageLimitBanner } from "./UsageLimitBanner";
import { useSlashCommands } from "./slashCommands";
import { splitDropped, usePastedImages } from "./usePastedImages";
import { useAttachments } from "./useAttachments";
import { versionActions } from "./versions";
import { ExportMenu } from "./ExportMenu";
import { Welcome } from "./Welcome";

const idle = new ThreadSession("");
idle.markFresh();

function useSession(threadId: string | undefined): [ThreadSession | undefined, SessionState] {
  const session = threadId ? sessionFor(threadId) : undefined;
  const state = useStore((session ?? idle).store);
  return [session, state];
}

export function ChatPage() {
  const { threadId } = useParams();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const { sidebarOpen, setSidebarOpen } = useShell();
  const info = useAppInfo();
  const toast = useToast();
  const t = useT();
  const [session, state] = useSession(threadId);
  const { threads } = useStore(threadsStore);
  const { remembered } = useStore(assistantsStore);
  const planMode = useStore(planModeStore);
  const modelsState = useStore(modelsStore);
  const thread = threads.find((th) => th.thread_id === threadId);
  const creating = useRef<Promise<string> | null>(null);
  /** A thread this page just created: its draft and attachments carry over. */
  const justCreated = useRef<string | null>(null);
  const [draftKey, setDraftKey] = useState(threadId ?? "new");
  /** The message the schedule dialog starts with, while it is open. */
  const [scheduling, setScheduling] = useState<string | null>(null);

  useEffect(() => {
    void session?.ensureLoaded();
  }, [session]);

  const ensureThread = useCallback(async (): Promise<string> => {
    if (threadId) return threadId;
    creating.current ??= (async () => {
      const id = uuid();
      const created = await api.createThread(id);
      upsertThread(created);
      sessionFor(id).markFresh();
      // A new conversation runs the agent picked last (read now: it may just have changed).
      const agent = assistantsStore.get().remembered;
      if (agent) sessionFor(id).chooseAssistant(agent);
      justCreated.current = id;
      navigate(`/threads/${id}`);
      return id;
    })();
    try {
      return await creating.current;
    } finally {
      creating.current = null;
    }
  }, [threadId, navigate]);

  const onError = useCallback((message: string) => toast({ kind: "error", message }), [toast]);
  const attachments = useAttachments(ensureThread, onError);
  const images = usePastedImages(onError);
  const commands = useSlashCommands();
  // Dropped images go with the message when the model can see them (like pasted ones);
  // otherwise, and for other files, they are uploaded for the agent's tools.
  const sees = info.defaultModel?.supports_vision === true;
  const { add: addImages } = images;
  const { add: addUploads } = attachments;
  const onDropped = useCallback(
    (files: File[]) => {
      const { inline, rest } = splitDropped(files, sees);
      if (inline.length > 0) void addImages(inline);
      if (rest.length > 0) void addUploads(rest);
    },
    [sees, addImages, addUploads],
  );
  const drop = useFileDrop(onDropped, info.models.length > 0);

  // Another conversation: start with an empty message box (not after creating this one).
  const { clear: clearAttachments } = attachments;
  const { clear: clearImages } = images;
  useEffect(() => {
    if (threadId && threadId === justCreated.current) {
      justCreated.current = null;
      return;
    }
    clearAttachments();
    clearImages();
    setDraftKey(threadId ?? "new");
  }, [threadId, clearAttachments, clearImages]);

  const send = useCallback(
    async (text: string) => {
      try {
        const id = await ensureThread();
        sessionFor(id).send(withAttachments(text, attachments.paths), images.items);
        attachments.clear();
        images.clear();
      } catch (e) {
        toast({ kind: "error", message: t("chat.page.startFailed", { error: errorMessage(e) }) });
      }
    },
    [ensureThread, attachments, images, toast, t],
  );

  const file = params.get("file");
  const panelOpen = params.has("files") || !!file;
  const openFile = useCallback(
    (path: string) => setParams((p) => {
      p.set("files", "1");
      p.set("file", path);
      return p;
    }),
    [setParams],
  );
  const setPanel = (open: boolean) =>
    setParams((p) => {
      if (open) p.set("files", "1");
      else {
        p.delete("files");
        p.delete("file");
      }
      return p;
    });

  const noModel = info.loaded && info.models.length === 0;
  const messages = visibleMessages(state.conversation);
  const notFound = state.loadError && !messages.length;
  const title = thread ? threadTitle(thread) : threadId ? t("chat.page.conversation") : t("chat.page.newChat");
  // A conversation's own agent, or the one new conversations use; a pick applies to the next run.
  // The conversation's model and thinking level (new chats: the one picked last; a
  // conversation without its own: its agent's model when the agent names one); a pick
  // applies to the next run here and becomes the one new chats start with.
  const choice = effectiveChoice(
    threadId ? (state.modelChoice ?? agentChoice(state.assistantId, modelsState)) : undefined,
    modelsState,
  );
  const pickModel = (c: ModelChoice) => {
    rememberChoice(c);
    session?.chooseModel(c);
  };
  // An agent with a model of its own brings it along: the picker moves to it (a later pick
  // of the person's wins, for this run and the next ones).
  const pickAgent = (id: string) => {
    rememberAgent(id);
    session?.chooseAssistant(id);
    const own = agentChoice(id, modelsState);
    const next = own && effectiveChoice(own, modelsState);
    if (next) pickModel(next);
  };

  return (
    <div className={`chat-layout ${panelOpen && threadId ? "with-panel" : ""}`}>
      <Sidebar open={sidebarOpen} onClose={() => setSidebarOpen(false)} {...(threadId ? { activeId: threadId } : {})} />
      <main id="main" className="chat-main" {...drop.handlers}>
        <div className="chat-header">
          <h1 className="chat-title" data-testid="chat-title">{title}</h1>
          <AgentPicker value={threadId ? state.assistantId : (remembered ?? undefined)} onChange={pickAgent} />
          {threadId && (
            <div className="chat-header-actions">
              <button
                type="button"
                className="btn btn-sm"
                aria-pressed={panelOpen}
                onClick={() => setPanel(!panelOpen)}
                data-testid="files-toggle"
              >
                <Icon name="panel" size={14} />{" "}
                {state.artifacts.length
                  ? t("chat.page.filesWithCount", { n: state.artifacts.length })
                  : t("chat.page.files")}
              </button>
              <Link className="btn btn-sm btn-ghost hide-narrow" to={`/threads/${threadId}/artifacts`}>
                <Icon name="external" size={14} /> {t("chat.page.filesPage")}
              </Link>
              <ExportMenu threadId={threadId} />
            </div>
          )}
        </div>
        {state.loading && !messages.length ? (
          <Spinner label={t("chat.page.loading")} />
        ) : notFound ? (
          <div className="messages">
            {state.notFound ? (
              <EmptyState icon="alert" title={t("chat.page.notFound")}>
                <Link to="/">{t("chat.page.startNew")}</Link>
              </EmptyState>
            ) : (
              <ErrorState message={state.loadError ?? ""} onRetry={() => void session?.load()} />
            )}
          </div>
        ) : messages.length === 0 && !state.streaming ? (
          <div className="messages">
            <Welcome onPick={(s) => void send(s)} disabled={noModel} />
          </div>
        ) : (
          <MessageList
            state={state}
            actions={{ onOpenFile: openFile, onAnswer: (answer) => void send(answer), busy: state.streaming || noModel }}
            versions={session ? versionActions(session, state, noModel) : undefined}
            onRetry={() => session?.retry()}
          />
        )}
        {threadId && state.limit && <UsageLimitBanner limit={state.limit} />}
        {threadId && state.todos.length > 0 && !notFound && (
          // Its own key: the composer's is the thread id too, and siblings with one key get
          // duplicated when the elements before them change.
          <PlanChecklist key={`plan-${threadId}`} todos={state.todos} threadId={threadId} active={state.streaming} />
        )}
        <Composer
          key={draftKey}
          streaming={state.streaming}
          stopping={state.stopping}
          disabled={noModel || !!notFound}
          disabledReason={noModel ? t("chat.page.noModel") : t("chat.page.notFound")}
          attachments={attachments.items}
          uploading={attachments.uploading}
          onSend={(text) => void send(text)}
          onStop={() => void session?.stop()}
          onFiles={(f) => void attachments.add(f)}
          onRemoveAttachment={attachments.remove}
          commands={commands}
          images={images.items}
          onImages={(f) => void images.add(f)}
          onRemoveImage={images.remove}
          planMode={planMode}
          onPlanMode={setPlanMode}
          onSchedule={(text) => setScheduling(text.trim() || lastHumanText(state.conversation)?.trim() || "")}
          options={
            choice && (
              <ComposerOptions
                models={modelsState.models}
                choice={choice}
                onChange={pickModel}
                contextUsed={(threadId && contextUsed(messages)) || 0}
                disabled={noModel || !!notFound}
              />
            )
          }
        />
        <ScheduleDialog
          open={scheduling !== null}
          threadId={threadId}
          initialMessage={scheduling ?? ""}
          initialAgent={threadId ? state.assistantId : (remembered ?? undefined)}
          onClose={() => setScheduling(null)}
          onSaved={(cron) => {
            setScheduling(null);
            toast({
              kind: "success",
              message: t("chat.page.scheduled", { schedule: describeSchedule(cron.schedule, cron.timezone) }),
              link: { to: "/scheduled", label: t("chat.page.openScheduled") },
            });
          }}
        />
        {drop.dragging && (
          <div className="drop-overlay" aria-hidden="true">
            <Icon name="upload" size={28} /> {t("chat.page.dropFiles")}
          </div>
        )}
      </main>
      {panelOpen && threadId && (
        <ArtifactPanel
          threadId={threadId}
          selected={file}
          version={state.filesVersion}
          onSelect={(p) =>
            setParams((q) => {
              if (p) q.set("file", p);
              else q.delete("file");
              return q;
            })
          }
          onClose={() => setPanel(false)}
        />
      )}
    </div>
  );
}

