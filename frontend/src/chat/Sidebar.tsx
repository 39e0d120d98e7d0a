// The conversation list: newest activity first, new chat, rename, delete.
import { useEffect, useRef, useState } from "react";
import { Link, NavLink, useNavigate } from "react-router-dom";
import { errorMessage } from "../api/http";
import { type Thread, threadTitle } from "../api/types";
import { ConfirmDialog } from "../components/Dialog";
import { Icon } from "../components/Icon";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useToast } from "../components/Toasts";
import { useT } from "../i18n";
import { formatRelative } from "../lib/format";
import { forgetSession } from "../state/session";
import { useStore } from "../state/store";
import { deleteThread, refreshThreads, renameThread, threadsStore } from "../state/threads";
import { SidebarSearch } from "./SidebarSearch";

function RenameForm({ thread, onDone }: { thread: Thread; onDone: () => void }) {
  const [value, setValue] = useState(threadTitle(thread));
  const input = useRef<HTMLInputElement>(null);
  const toast = useToast();
  const t = useT();
  const finished = useRef(false);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const save = async () => {
    if (finished.current) return;
    finished.current = true;
    const title = value.trim();
    if (!title || title === threadTitle(thread)) return onDone();
    try {
      await renameThread(thread.thread_id, title);
    } catch (e) {
      toast({ kind: "error", message: t("chat.sidebar.renameFailed", { error: errorMessage(e) }) });
    }
    onDone();
  };
  return (
    <form
      className="rename-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <input
        ref={input}
        value={value}
        aria-label={t("chat.sidebar.titleLabel")}
        onChange={(e) => setValue(e.target.value)}
        onBlur={() => void save()}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            finished.current = true;
            onDone();
          }
        }}
        maxLength={200}
      />
    </form>
  );
}

function ThreadItem({ thread, onDelete, onNavigate }: { thread: Thread; onDelete: (t: Thread) => void; onNavigate: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const t = useT();
  const title = threadTitle(thread);
  return (
    <li className="thread-item" data-testid="thread-item" data-thread-id={thread.thread_id}>
      {renaming ? (
        <RenameForm thread={thread} onDone={() => setRenaming(false)} />
      ) : (
        <>
          <NavLink
            to={`/threads/${thread.thread_id}`}
            className={({ isActive }) => `thread-link ${isActive ? "active" : ""}`}
            onClick={onNavigate}
          >
            <span className="thread-title">{title}</span>
            <span className="thread-meta">
              {thread.status === "busy" && <span className="status-dot" aria-label={t("chat.sidebar.running")} />}
              {formatRelative(thread.updated_at)}
            </span>
          </NavLink>
          <div className="thread-actions">
            <button type="button" className="btn btn-ghost btn-icon btn-xs" aria-label={t("chat.sidebar.rename", { title })} onClick={() => setRenaming(true)}>
              <Icon name="edit" size={14} />
            </button>
            <button type="button" className="btn btn-ghost btn-icon btn-xs" aria-label={t("chat.sidebar.delete", { title })} onClick={() => onDelete(thread)}>
              <Icon name="trash" size={14} />
            </button>
          </div>
        </>
      )}
    </li>
  );
}

export function Sidebar({ open, onClose, activeId }: { open: boolean; onClose: () => void; activeId?: string }) {
  const { threads, loaded, loading, error } = useStore(threadsStore);
  const [pending, setPending] = useState<Thread | null>(null);
  const [busy, setBusy] = useState(false);
  const navigate = useNavigate();
  const toast = useToast();
  const t = useT();
  useEffect(() => {
    if (!threadsStore.get().loaded) void refreshThreads();
  }, []);

  const confirmDelete = async () => {
    if (!pending) return;
    setBusy(true);
    try {
      await deleteThread(pending.thread_id);
      // Leave the page first so nothing asks for the deleted thread again.
      if (pending.thread_id === activeId) navigate("/");
      forgetSession(pending.thread_id);
      toast({ kind: "success", message: t("chat.sidebar.deleted", { title: threadTitle(pending) }) });
    } catch (e) {
      toast({ kind: "error", message: t("chat.sidebar.deleteFailed", { error: errorMessage(e) }) });
    } finally {
      setBusy(false);
      setPending(null);
    }
  };

  return (
    <>
      {open && <div className="scrim" onClick={onClose} aria-hidden="true" />}
      <aside id="sidebar" className={`sidebar ${open ? "open" : ""}`} aria-label={t("chat.sidebar.label")}>
        <Link to="/" className="btn btn-primary new-chat" onClick={onClose}>
          <Icon name="plus" /> {t("chat.sidebar.newChat")}
        </Link>
        <SidebarSearch onNavigate={onClose}>
        <nav className="thread-nav" aria-label={t("chat.sidebar.list")}>
          {!loaded && loading && <Spinner label={t("chat.sidebar.loading")} />}
          {error && <ErrorState message={error} onRetry={() => void refreshThreads()} />}
          {loaded && !error && threads.length === 0 && (
            <EmptyState icon="info" title={t("chat.sidebar.empty")}>
              {t("chat.sidebar.emptyHint")}
            </EmptyState>
          )}
          <ul className="thread-list">
            {threads.map((t) => (
              <ThreadItem key={t.thread_id} thread={t} onDelete={setPending} onNavigate={onClose} />
            ))}
          </ul>
        </nav>
        </SidebarSearch>
      </aside>
      <ConfirmDialog
        open={pending !== null}
        title={t("chat.sidebar.confirmTitle")}
        message={t("chat.sidebar.confirmMessage", { title: pending ? threadTitle(pending) : "" })}
        confirmLabel={t("chat.sidebar.confirm")}
        danger
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setPending(null)}
      />
    </>
  );
}
