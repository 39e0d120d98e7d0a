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
import { type McpServersBody, changeMcpServers } from "../lib/mcpConfig";
import { useResource } from "../lib/useResource";
import { McpServerCard } from "./McpServerCard";
import { McpServerForm } from "./McpServerForm";

export function ToolsPage() {
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
      message: editing === null ? `Added “${name}”.` : `Saved “${name}”: it starts again on next use.`,
    });
    setEditing(undefined);
    reload();
  };

  /** Changes one server in the configuration, then loads the list again. */
  const change = async (name: string, what: string, done: string, edit: (servers: McpServersBody) => void) => {
    setChanging(name);
    try {
      await changeMcpServers((all) => {
        if (!(name in all)) throw new Error(`“${name}” is no longer configured.`);
        edit(all);
      });
      toast({ kind: "success", message: done });
    } catch (e) {
      toast({ kind: "error", message: `Could not ${what} “${name}”: ${errorMessage(e)}` });
    } finally {
      setChanging(null);
      reload();
    }
  };

  const setEnabled = (name: string, enabled: boolean) =>
    void change(name, enabled ? "enable" : "disable", `${enabled ? "Enabled" : "Disabled"} “${name}”.`, (all) => {
      const server = all[name];
      if (server) server.enabled = enabled;
    });

  const confirmRemove = async () => {
    const name = removing;
    if (name === null) return;
    await change(name, "remove", `Removed “${name}”.`, (all) => {
      delete all[name];
    });
    setRemoving(null);
  };

  return (
    <main id="main" className="page settings-page tools-page">
      <div className="page-head">
        <h1>Tools</h1>
        <div className="page-actions">
          {isAdmin && (
            <button type="button" className="btn btn-sm btn-primary" onClick={() => setEditing(null)}>
              <Icon name="plus" size={14} /> Add server
            </button>
          )}
          <button type="button" className="btn btn-sm" onClick={reload} disabled={loading} aria-label="Refresh the servers">
            <Icon name="refresh" size={14} /> {loading && data ? "Refreshing…" : "Refresh"}
          </button>
        </div>
      </div>
      <p className="muted">
        Besides its built-in tools, the agent can call the tools of these MCP servers. Asking here starts nothing: an
        idle server starts when a run first needs it.
        {!isAdmin && " Admins configure and restart them."}
      </p>
      {error && <ErrorState message={error} onRetry={reload} />}
      {!data && !error && <Spinner label="Loading MCP servers…" />}
      {servers && servers.length === 0 && (
        <EmptyState title="No MCP servers configured">
          Admins add them under <code>mcp.servers</code> in the configuration; stdio servers run on the server host,
          outside the sandbox.
        </EmptyState>
      )}
      {servers && servers.length > 0 && (
        <ul className="mcp-server-list" aria-label="MCP servers">
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
            title="Remove MCP server?"
            message={
              <>
                “{removing}” will be stopped and removed from the configuration; the agent can no longer call its tools.
              </>
            }
            confirmLabel="Remove"
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
