// `/settings/tools`: the MCP servers whose tools the agent may call, with their state, last
// error, call counts and tools. Everyone may look; admins can add, edit, disable or enable,
// remove and restart a server.
import { useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import { useOptionalAuth } from "../auth/auth";
import { ConfirmDialog } from "../components/Dialog";
import { Icon } from "../components/Icon";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useToast } from "../components/Toasts";
import { Trans } from "react-i18next";
import { useT } from "../i18n";
import { type McpServersBody, changeMcpServers } from "../lib/mcpConfig";
import { useResource } from "../lib/useResource";
import { McpServerCard } from "./McpServerCard";
import { McpServerForm } from "./McpServerForm";

export function ToolsPage() {
  const t = useT();
  const isAdmin = useOptionalAuth()?.me.role === "admin";
  const toast = useToast();
  const { data, error, loading, reload } = useResource("mcp-servers", (signal) => api.mcpServers(signal));
  const servers = data?.servers;
  // The server in the form: a name, null for a new one, undefined when closed.
  const [editing, setEditing] = useState<string | null | undefined>(undefined);
  const [removing, setRemoving] = useState<string | null>(null);
  // The server whose configuration is being changed from its card.
  const [changing, setChanging] = useState<string | null>(null);

  const onSaved = (name: string) => {
    toast({
      kind: "success",
      message: editing === null ? t("settings.tools.added", { name }) : t("settings.tools.savedRestart", { name }),
    });
    setEditing(undefined);
    reload();
  };

  /** Changes one server in the configuration, then loads the list again; `failed` words a refusal. */
  const change = async (
    name: string,
    failed: (error: string) => string,
    done: string,
    edit: (servers: McpServersBody) => void,
  ) => {
    setChanging(name);
    try {
      await changeMcpServers((all) => {
        if (!(name in all)) throw new Error(t("settings.common.notConfigured", { name }));
        edit(all);
      });
      toast({ kind: "success", message: done });
    } catch (e) {
      toast({ kind: "error", message: failed(errorMessage(e)) });
    } finally {
      setChanging(null);
      reload();
    }
  };

  const setEnabled = (name: string, enabled: boolean) =>
    void change(
      name,
      (error) => t(enabled ? "settings.common.couldNotEnable" : "settings.common.couldNotDisable", { name, error }),
      t(enabled ? "settings.tools.enabled" : "settings.tools.disabled", { name }),
      (all) => {
        const server = all[name];
        if (server) server.enabled = enabled;
      },
    );

  const confirmRemove = async () => {
    const name = removing;
    if (name === null) return;
    await change(
      name,
      (error) => t("settings.common.couldNotRemove", { name, error }),
      t("settings.tools.removed", { name }),
      (all) => {
        delete all[name];
      },
    );
    setRemoving(null);
  };

  return (
    <main id="main" className="page settings-page tools-page">
      <div className="page-head">
        <h1>{t("settings.tools.title")}</h1>
        <div className="page-actions">
          {isAdmin && (
            <button type="button" className="btn btn-sm btn-primary" onClick={() => setEditing(null)}>
              <Icon name="plus" size={14} /> {t("settings.tools.addServer")}
            </button>
          )}
          <button
            type="button"
            className="btn btn-sm"
            onClick={reload}
            disabled={loading}
            aria-label={t("settings.tools.refreshLabel")}
          >
            <Icon name="refresh" size={14} />{" "}
            {loading && data ? t("settings.tools.refreshing") : t("settings.tools.refresh")}
          </button>
        </div>
      </div>
      <p className="muted">
        {t("settings.tools.intro")}
        {!isAdmin && ` ${t("settings.tools.adminsNote")}`}
      </p>
      {error && <ErrorState message={error} onRetry={reload} />}
      {!data && !error && <Spinner label={t("settings.tools.loading")} />}
      {servers && servers.length === 0 && (
        <EmptyState title={t("settings.tools.emptyTitle")}>
          <Trans t={t} i18nKey="settings.tools.emptyText" components={{ code: <code /> }} />
        </EmptyState>
      )}
      {servers && servers.length > 0 && (
        <ul className="mcp-server-list" aria-label={t("settings.tools.list")}>
          {servers.map((s) => (
            <McpServerCard
              key={s.name}
              server={s}
              canRestart={isAdmin}
              onRestarted={reload}
              {...(isAdmin
                ? {
                    manage: {
                      onEdit: () => setEditing(s.name),
                      onSetEnabled: (enabled: boolean) => setEnabled(s.name, enabled),
                      onRemove: () => setRemoving(s.name),
                      busy: changing === s.name,
                    },
                  }
                : {})}
            />
          ))}
        </ul>
      )}
      {isAdmin && (
        <>
          <McpServerForm
            open={editing !== undefined}
            name={editing ?? null}
            onClose={() => setEditing(undefined)}
            onSaved={onSaved}
          />
          <ConfirmDialog
            open={removing !== null}
            title={t("settings.tools.removeTitle")}
            message={t("settings.tools.removeMessage", { name: removing ?? "" })}
            confirmLabel={t("settings.common.remove")}
            danger
            busy={changing !== null}
            onConfirm={() => void confirmRemove()}
            onCancel={() => setRemoving(null)}
          />
        </>
      )}
    </main>
  );
}
