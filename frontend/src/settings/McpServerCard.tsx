// One MCP server on Settings → Tools: its state, last error, call counts and tools; admins
// can restart, edit, disable or enable, and remove it.
import { useEffect, useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { McpServer, McpServerState, McpTransport } from "../api/types";
import { Icon } from "../components/Icon";
import { useToast } from "../components/Toasts";
import { t as translate, useT } from "../i18n";
import { McpToolList } from "./McpToolList";

const TRANSPORTS: Record<McpTransport, string> = {
  stdio: "stdio",
  streamable_http: "Streamable HTTP",
  sse: "SSE",
};

/** A state's badge: the catalogue key of its label, and its style. */
const BADGES: Record<McpServerState, { label: string; className: string }> = {
  connected: { label: "settings.mcp.state.connected", className: "badge-ok" },
  idle: { label: "settings.mcp.state.idle", className: "" },
  failed: { label: "settings.mcp.state.failed", className: "badge-error" },
  disabled: { label: "settings.mcp.state.disabled", className: "badge-warn" },
};

/** Why a server lists no tools, by state (catalogue keys). */
const NO_TOOLS: Record<McpServerState, string> = {
  connected: "settings.mcp.noTools.connected",
  idle: "settings.mcp.noTools.idle",
  failed: "settings.mcp.noTools.failed",
  disabled: "settings.mcp.noTools.disabled",
};

function StateBadge({ state }: { state: McpServerState }) {
  const t = useT();
  const { label, className } = BADGES[state];
  return (
    <span className="mcp-state">
      <span className={`badge ${className}`} data-testid="mcp-state">
        {t(label)}
      </span>
      {state === "idle" && <span className="muted small">{t("settings.mcp.startsOnFirstUse")}</span>}
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
  const t = useT();
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
        toast({ kind: "error", message: t("settings.mcp.didNotStart", { name: server.name }) });
      } else {
        const state = translate(BADGES[status.state].label);
        toast({ kind: "success", message: t("settings.mcp.restarted", { name: server.name, state }) });
      }
    } catch (e) {
      setError(t("settings.mcp.restartFailed", { error: errorMessage(e) }));
    } finally {
      setBusy(false);
      onRestarted();
    }
  };

  return (
    <li className="mcp-server" data-testid="mcp-server" data-server={server.name} aria-busy={busy}>
      <div className="mcp-server-head">
        <h2 className="mcp-server-name">{server.name}</h2>
        <span className="badge" title={t("settings.mcp.transportTitle")}>
          {TRANSPORTS[server.transport] ?? server.transport}
        </span>
        {server.sandboxed && (
          <span className="badge" title={t("settings.mcp.sandboxedTitle")} data-testid="mcp-sandboxed">
            {t("settings.mcp.inSandbox")}
          </span>
        )}
        <StateBadge state={server.state} />
        {canRestart && (
          <button
            type="button"
            className="btn btn-sm mcp-restart"
            onClick={() => void restart()}
            disabled={busy || server.state === "disabled"}
            aria-label={t("settings.mcp.restartLabel", { name: server.name })}
            title={server.state === "disabled" ? t("settings.mcp.disabledTitle") : undefined}
          >
            {busy ? <span className="spinner spinner-xs" aria-hidden="true" /> : <Icon name="refresh" size={14} />}
            {busy ? t("settings.mcp.restarting") : t("settings.mcp.restart")}
          </button>
        )}
        {manage && (
          <span className="mcp-manage">
            <button
              type="button"
              className="btn btn-sm"
              onClick={manage.onEdit}
              disabled={manage.busy}
              aria-label={t("settings.common.editNamed", { name: server.name })}
            >
              <Icon name="edit" size={14} /> {t("settings.common.edit")}
            </button>
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => manage.onSetEnabled(server.state === "disabled")}
              disabled={manage.busy}
              aria-label={t(server.state === "disabled" ? "settings.common.enableNamed" : "settings.common.disableNamed", {
                name: server.name,
              })}
            >
              {server.state === "disabled" ? t("settings.common.enable") : t("settings.common.disable")}
            </button>
            <button
              type="button"
              className="btn btn-sm btn-danger"
              onClick={manage.onRemove}
              disabled={manage.busy}
              aria-label={t("settings.common.removeNamed", { name: server.name })}
            >
              <Icon name="trash" size={14} /> {t("settings.common.remove")}
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
        {t("settings.mcp.calls", { count: server.calls })} · {t("settings.mcp.failedCalls", { n: server.failed_calls })}
        {server.sandboxed && ` · ${t("settings.mcp.runningIn", { count: server.running_in_threads })}`}
      </p>
      {server.tools.length > 0 ? (
        <McpToolList server={server.name} tools={server.tools} />
      ) : (
        <p className="muted small">
          {server.sandboxed && server.state !== "disabled"
            ? t("settings.mcp.sandboxTools")
            : t(NO_TOOLS[server.state])}
        </p>
      )}
    </li>
  );
}
