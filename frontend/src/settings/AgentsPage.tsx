// `/settings/agents`: the built-in agent and the person's own (the server's assistants), with
// their model, skills and tools; new, edit (a new version), versions and restore, delete.
import { useEffect, useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { Assistant } from "../api/types";
import { ConfirmDialog } from "../components/Dialog";
import { Icon } from "../components/Icon";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useToast } from "../components/Toasts";
import { useT } from "../i18n";
import { countLabel, isBuiltIn, settingsOf } from "../lib/agents";
import { assistantsStore, refreshAssistants } from "../state/assistants";
import { useStore } from "../state/store";
import { AgentForm } from "./AgentForm";
import { AgentVersions } from "./AgentVersions";

function AgentRow({
  agent,
  onEdit,
  onVersions,
  onDelete,
}: {
  agent: Assistant;
  onEdit: () => void;
  onVersions: () => void;
  onDelete: () => void;
}) {
  const t = useT();
  const builtIn = isBuiltIn(agent);
  const s = settingsOf(agent);
  return (
    <li className="agent-row" data-testid="agent-row" data-agent={agent.name}>
      <div className="agent-main">
        <div className="agent-name-line">
          <span className="agent-name">{agent.name}</span>
          {builtIn ? (
            <span className="badge badge-public">{t("settings.agents.builtIn")}</span>
          ) : (
            <span className="badge" data-testid="agent-version-badge">
              {t("settings.agents.versionBadge", { version: agent.version })}
            </span>
          )}
        </div>
        {agent.description && <p className="agent-desc">{agent.description}</p>}
        <p className="agent-meta muted small" data-testid="agent-meta">
          {s.model_name ?? t("settings.agents.serverDefaultModel")} · {countLabel(s.skills, "skill")} ·{" "}
          {countLabel(s.tools, "tool")}
          {s.system_prompt ? ` · ${t("settings.agents.ownInstructions")}` : ""}
        </p>
      </div>
      {!builtIn && (
        <div className="agent-actions">
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={onVersions}
            aria-label={t("settings.agents.versionsOf", { name: agent.name })}
          >
            {t("settings.agents.versions")}
          </button>
          <button
            type="button"
            className="btn btn-sm"
            onClick={onEdit}
            aria-label={t("settings.common.editNamed", { name: agent.name })}
          >
            <Icon name="edit" size={14} /> {t("settings.common.edit")}
          </button>
          <button
            type="button"
            className="btn btn-ghost btn-icon btn-sm"
            onClick={onDelete}
            aria-label={t("settings.common.deleteNamed", { name: agent.name })}
          >
            <Icon name="trash" size={14} />
          </button>
        </div>
      )}
    </li>
  );
}

export function AgentsPage() {
  const t = useT();
  const toast = useToast();
  const { list, error } = useStore(assistantsStore);
  // Editing: an agent, "new", or nothing.
  const [editing, setEditing] = useState<Assistant | "new" | null>(null);
  const [versionsOf, setVersionsOf] = useState<Assistant | null>(null);
  const [deleting, setDeleting] = useState<Assistant | null>(null);
  const [deleteBusy, setDeleteBusy] = useState(false);
  useEffect(() => {
    void refreshAssistants();
  }, []);

  const onSaved = (saved: Assistant) => {
    const created = editing === "new";
    setEditing(null);
    toast({
      kind: "success",
      message: created
        ? t("settings.agents.created", { name: saved.name })
        : t("settings.agents.saved", { name: saved.name, version: saved.version }),
    });
    void refreshAssistants();
  };

  const onRestored = (current: Assistant) => {
    setVersionsOf(current);
    void refreshAssistants();
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    setDeleteBusy(true);
    try {
      await api.deleteAssistant(deleting.assistant_id);
      toast({ kind: "success", message: t("settings.common.deletedQuoted", { name: deleting.name }) });
    } catch (e) {
      toast({ kind: "error", message: t("settings.common.deleteFailed", { error: errorMessage(e) }) });
    } finally {
      setDeleteBusy(false);
      setDeleting(null);
      void refreshAssistants();
    }
  };

  const own = list?.filter((a) => !isBuiltIn(a)) ?? [];
  return (
    <main id="main" className="page settings-page agents-page">
      <div className="page-head">
        <h1>{t("settings.agents.title")}</h1>
        <div className="page-actions">
          <button type="button" className="btn btn-primary btn-sm" onClick={() => setEditing("new")}>
            <Icon name="plus" size={14} /> {t("settings.agents.new")}
          </button>
        </div>
      </div>
      <p className="muted">
        {t("settings.agents.intro")}
      </p>
      {error && <ErrorState message={error} onRetry={() => void refreshAssistants()} />}
      {!list && !error && <Spinner label={t("settings.agents.loading")} />}
      {list && (
        <ul className="agent-list" aria-label={t("settings.agents.list")}>
          {list.map((a) => (
            <AgentRow
              key={a.assistant_id}
              agent={a}
              onEdit={() => setEditing(a)}
              onVersions={() => setVersionsOf(a)}
              onDelete={() => setDeleting(a)}
            />
          ))}
        </ul>
      )}
      {list && own.length === 0 && (
        <EmptyState title={t("settings.agents.emptyTitle")}>
          {t("settings.agents.emptyText")}
        </EmptyState>
      )}
      <AgentForm
        open={editing !== null}
        agent={editing === "new" ? null : editing}
        onClose={() => setEditing(null)}
        onSaved={onSaved}
      />
      <AgentVersions agent={versionsOf} onClose={() => setVersionsOf(null)} onRestored={onRestored} />
      <ConfirmDialog
        open={deleting !== null}
        title={t("settings.agents.deleteTitle")}
        message={t("settings.agents.deleteMessage", { name: deleting?.name ?? "" })}
        confirmLabel={t("settings.common.delete")}
        danger
        busy={deleteBusy}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setDeleting(null)}
      />
    </main>
  );
}
