// One MCP server on Settings → Tools: its state, last error, call counts and tools; admins
// can restart, edit, disable or enable, and remove it.
import { useEffect, useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { McpServer, McpServerState, McpTransport } from "../api/types";
import { Icon } from "../components/Icon";
import { useToast } from "../components/Toasts";
import { pluralize } from "../lib/format";
import { McpToolList } from "./McpToolList";

const TRANSPORTS: Record<McpTransport, string> = {
  stdio: "stdio",
  streamable_http: "Streamable HTTP",
  sse: "SSE",
};

const BADGES: Record<McpServerState, { label: string; className: string }> = {
  connected: { label: "connected", className: "badge-ok" },
  idle: { label: "idle", className: "" },
  failed: { label: "failed", className: "badge-error" },
  disabled: { label: "disabled", className: "badge-warn" },
};

/** Why a server lists no tools, by state. */
const NO_TOOLS: Record<McpServerState, string> = {
  connected: "It offers no tools.",
  idle: "Its tools are listed once it has started.",
  failed: "No tools while it is not running.",
  disabled: "Disabled in the configuration: its tools are not offered.",
};

function StateBadge({ state }: { state: McpServerState }) {
  const { label, className } = BADGES[state];
  return (
    <span className="mcp-state">
      <span className={`badge ${className}`} data-testid="mcp-state">
        {label}
      </span>
      {state === "idle" && <span className="muted small">starts on first use</span>}
    </span>
  );
}

/** What an admin can do to a server's configuration (the page does it). */
export interface McpServerActions {
  onEdit: () => void;
  onSetEnabled: (enabled: boolean) => void;
  onRemove: () => void;
  /** A change of this server is on its way. */
  busy: boolean;
}

/**
 * A server's card. `canRestart`: the person is an admin. `onRestarted` is called after a
 * restart (whether it worked), so the page loads the list again. `manage`: the configuration
 * buttons (admins).
 */
export function McpServerCard({
  server: listed,
  canRestart,
  onRestarted,
  manage,
}: {
  server: McpServer;
  canRestart: boolean;
  onRestarted: () => void;
  manage?: McpServerActions;
}) {
  const toast = useToast();
  // The status a restart answered, shown until the list is loaded again.
  const [restarted, setRestarted] = useState<McpServer | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setRestarted(null), [listed]);
  const server = restarted ?? listed;

  const restart = async () => {
    setBusy(true);
    setError(null);
    try {
      const status = await api.restartMcpServer(server.name);
      setRestarted(status);
      if (status.state === "failed") {
        toast({ kind: "error", message: `“${server.name}” did not start again.` });
      } else {
        toast({ kind: "success", message: `Restarted “${server.name}”: ${BADGES[status.state].label}.` });
      }
    } catch (e) {
      setError(`Restart failed: ${errorMessage(e)}`);
    } finally {
      setBusy(false);
      onRestarted();
    }
  };

  return (
    <li className="mcp-server" data-testid="mcp-server" data-server={server.name} aria-busy={busy}>
      <div className="mcp-server-head">
        <h2 className="mcp-server-name">{server.name}</h2>
        <span className="badge" title="How Antler reaches it">
          {TRANSPORTS[server.transport] ?? server.transport}
        </span>
        {server.sandboxed && (
          <span className="badge" title="Started inside each conversation's sandbox" data-testid="mcp-sandboxed">
            in sandbox
          </span>
        )}
        <StateBadge state={server.state} />
        {canRestart && (
          <button
            type="button"
            className="btn btn-sm mcp-restart"
            onClick={() => void restart()}
            disabled={busy || server.state === "disabled"}
            aria-label={`Restart ${server.name}`}
            title={server.state === "disabled" ? "Disabled in the configuration" : undefined}
          >
            {busy ? <span className="spinner spinner-xs" aria-hidden="true" /> : <Icon name="refresh" size={14} />}
            {busy ? "Restarting…" : "Restart"}
          </button>
        )}
        {manage && (
          <span className="mcp-manage">
            <button
              type="button"
              className="btn btn-sm"
              onClick={manage.onEdit}
              disabled={manage.busy}
              aria-label={`Edit ${server.name}`}
            >
              <Icon name="edit" size={14} /> Edit
            </button>
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => manage.onSetEnabled(server.state === "disabled")}
              disabled={manage.busy}
              aria-label={`${server.state === "disabled" ? "Enable" : "Disable"} ${server.name}`}
            >
              {server.state === "disabled" ? "Enable" : "Disable"}
            </button>
            <button
              type="button"
              className="btn btn-sm btn-danger"
              onClick={manage.onRemove}
              disabled={manage.busy}
              aria-label={`Remove ${server.name}`}
            >
              <Icon name="trash" size={14} /> Remove
            </button>
          </span>
        )}
      </div>
      {server.description && <p className="mcp-server-desc">{server.description}</p>}
      {server.state === "failed" && server.last_error && (
        <p className="mcp-server-error" data-testid="mcp-last-error">
          <Icon name="alert" size={14} /> {server.last_error}
        </p>
      )}
      {error && (
        <p className="mcp-server-error" role="alert">
          {error}
        </p>
      )}
      <p className="muted small" data-testid="mcp-calls">
        {pluralize(server.calls, "call")} · {server.failed_calls} failed
        {server.sandboxed && ` · running in ${pluralize(server.running_in_threads, "conversation")}`}
      </p>
      {server.tools.length > 0 ? (
        <McpToolList server={server.name} tools={server.tools} />
      ) : (
        <p className="muted small">
          {server.sandboxed && server.state !== "disabled"
            ? "Its tools are listed in each conversation's sandbox."
            : NO_TOOLS[server.state]}
        </p>
      )}
    </li>
  );
}
