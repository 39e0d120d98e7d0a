// `/settings/tools`: the MCP servers whose tools the agent may call, with their state, last
// error, call counts and tools. Everyone may look; admins can restart a server.
import { api } from "../api/client";
import { useOptionalAuth } from "../auth/auth";
import { Icon } from "../components/Icon";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useResource } from "../lib/useResource";
import { McpServerCard } from "./McpServerCard";

export function ToolsPage() {
  const isAdmin = useOptionalAuth()?.me.role === "admin";
  const { data, error, loading, reload } = useResource("mcp-servers", (signal) => api.mcpServers(signal));
  const servers = data?.servers;
  return (
    <main id="main" className="page settings-page tools-page">
      <div className="page-head">
        <h1>Tools</h1>
        <div className="page-actions">
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
            <McpServerCard key={s.name} server={s} canRestart={isAdmin} onRestarted={reload} />
          ))}
        </ul>
      )}
    </main>
  );
}
