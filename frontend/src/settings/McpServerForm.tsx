// The form of a new MCP server, or of a change to one (admins): how it is reached, its
// environment or headers (configured values stay hidden and are kept unless retyped), whether
// it is used, and which of its tools are offered. Saving sends the whole set of servers back.
import { useCallback, useState } from "react";
import type { McpServerConfigView, McpTransport } from "../api/types";
import { Dialog } from "../components/Dialog";
import { Field, FormError, useFormAction } from "../components/Form";
import { Icon } from "../components/Icon";
import { ErrorState, Spinner } from "../components/States";
import {
  type KeyValueRow,
  type McpServerDraft,
  SERVER_NAME,
  SERVER_NAME_RULE,
  changeMcpServers,
  draftOfServer,
  hiddenLabel,
  rowId,
  serverOfDraft,
} from "../lib/mcpConfig";
import { api } from "../api/client";
import { useResource } from "../lib/useResource";

const TRANSPORT_CHOICES: { value: McpTransport; label: string }[] = [
  { value: "stdio", label: "stdio (a program on the server host)" },
  { value: "streamable_http", label: "Streamable HTTP" },
  { value: "sse", label: "SSE" },
];

export const STDIO_WARNING = "Runs on the server host, outside the sandbox — add only programs you trust.";
export const SANDBOXED_NOTE =
  "Runs inside each conversation's sandbox: it sees only that conversation's files and has no network.";

/** The environment variables or headers as rows of name and value. */
function KeyValueRows({
  legend,
  what,
  rows,
  onRows,
}: {
  legend: string;
  /** "variable" or "header". */
  what: string;
  rows: KeyValueRow[];
  onRows: (rows: KeyValueRow[]) => void;
}) {
  const update = (id: number, change: Partial<KeyValueRow>) =>
    onRows(rows.map((r) => (r.id === id ? { ...r, ...change } : r)));
  return (
    <fieldset className="mcp-kv" data-testid={`mcp-${what}s`}>
      <legend>{legend}</legend>
      {rows.length === 0 && <p className="muted small">None.</p>}
      {rows.map((row, i) => (
        <div className="mcp-kv-row" key={row.id} data-testid={`mcp-${what}`} data-key={row.key}>
          {row.hidden ? (
            <code className="mcp-kv-key" title="Configured">
              {row.key}
            </code>
          ) : (
            <input
              className="mcp-kv-key"
              aria-label={`Name of ${what} ${i + 1}`}
              value={row.key}
              onChange={(e) => update(row.id, { key: e.target.value })}
              autoComplete="off"
              spellCheck={false}
            />
          )}
          <input
            className="mcp-kv-value"
            aria-label={row.hidden ? `New value of ${row.key}` : `Value of ${what} ${i + 1}`}
            value={row.value}
            placeholder={row.hidden ? hiddenLabel(row.hidden) : "value, or $VAR"}
            title={row.hidden ? "Left empty, the current value is kept" : undefined}
            onChange={(e) => update(row.id, { value: e.target.value })}
            autoComplete="off"
            spellCheck={false}
          />
          <button
            type="button"
            className="btn btn-ghost btn-icon btn-sm"
            aria-label={`Remove ${row.key.trim() ? row.key.trim() : `${what} ${i + 1}`}`}
            onClick={() => onRows(rows.filter((r) => r.id !== row.id))}
          >
            <Icon name="x" size={14} />
          </button>
        </div>
      ))}
      <p className="muted small">
        Values may name the server host&apos;s environment variables as <code>$VAR</code> or <code>{"${VAR}"}</code>;
        they are expanded when the server starts. Configured values are never shown: leave one empty to keep it.
      </p>
      <button
        type="button"
        className="btn btn-sm"
        onClick={() => onRows([...rows, { id: rowId(), key: "", hidden: null, value: "" }])}
      >
        Add {what}
      </button>
    </fieldset>
  );
}

/** The fields; `view` null: a new server. */
function McpServerFormBody({
  name,
  view,
  onCancel,
  onSaved,
}: {
  name: string | null;
  view: McpServerConfigView | null;
  onCancel: () => void;
  onSaved: (name: string) => void;
}) {
  const [draft, setDraft] = useState<McpServerDraft>(() => draftOfServer(name ?? "", view));
  const { busy, error, setError, submit } = useFormAction();
  const set =
    <K extends keyof McpServerDraft>(key: K) =>
    (value: McpServerDraft[K]) =>
      setDraft((d) => ({ ...d, [key]: value }));
  const isNew = name === null;
  const stdio = draft.transport === "stdio";
  const save = submit(async () => {
    const serverName = isNew ? draft.name.trim() : name;
    if (!SERVER_NAME.test(serverName)) {
      setError(`The name is ${SERVER_NAME_RULE}.`);
      return;
    }
    await changeMcpServers((servers, read) => {
      const current = read.servers[serverName] ?? null;
      if (isNew && current) throw new Error(`A server named “${serverName}” exists already.`);
      if (!isNew && !current) throw new Error(`“${serverName}” is no longer configured.`);
      servers[serverName] = serverOfDraft(draft, current);
    });
    onSaved(serverName);
  });
  return (
    <form
      className="mcp-server-form"
      onSubmit={save}
      aria-label={isNew ? "New MCP server" : `Edit ${name}`}
      noValidate
    >
      {isNew && (
        <Field
          label="Name"
          required
          maxLength={32}
          value={draft.name}
          onValue={set("name")}
          autoComplete="off"
          spellCheck={false}
          placeholder={SERVER_NAME_RULE}
        />
      )}
      <label className="field">
        <span>Transport</span>
        <select value={draft.transport} onChange={(e) => set("transport")(e.target.value as McpTransport)}>
          {TRANSPORT_CHOICES.map((t) => (
            <option key={t.value} value={t.value}>
              {t.label}
            </option>
          ))}
        </select>
      </label>
      {stdio ? (
        <>
          <p
            className={draft.sandboxed ? "muted small" : "mcp-stdio-warning"}
            role="note"
            data-testid="mcp-stdio-warning"
          >
            <Icon name={draft.sandboxed ? "check" : "alert"} size={14} />{" "}
            {draft.sandboxed ? SANDBOXED_NOTE : STDIO_WARNING}
          </p>
          <label className="check">
            <input
              type="checkbox"
              checked={draft.sandboxed}
              onChange={(e) => set("sandboxed")(e.target.checked)}
            />{" "}
            Run inside each conversation's sandbox
            <span className="muted small"> — the program must be in the sandbox image or the conversation's files</span>
          </label>
          <Field
            label="Command"
            required
            value={draft.command}
            onValue={set("command")}
            autoComplete="off"
            spellCheck={false}
            placeholder="npx"
          />
          <label className="field">
            <span>Arguments (one per line)</span>
            <textarea
              rows={3}
              value={draft.args}
              onChange={(e) => set("args")(e.target.value)}
              spellCheck={false}
              placeholder={"-y\n@modelcontextprotocol/server-everything"}
            />
          </label>
        </>
      ) : (
        <Field
          label="URL"
          type="url"
          required
          value={draft.url}
          onValue={set("url")}
          autoComplete="off"
          spellCheck={false}
          placeholder="https://mcp.example.com/mcp"
        />
      )}
      <Field
        label="Description"
        value={draft.description}
        onValue={set("description")}
        placeholder="What it is for"
        autoComplete="off"
      />
      {stdio ? (
        <KeyValueRows legend="Environment variables" what="variable" rows={draft.env} onRows={set("env")} />
      ) : (
        <KeyValueRows legend="Headers" what="header" rows={draft.headers} onRows={set("headers")} />
      )}
      <label className="check">
        <input type="checkbox" checked={draft.enabled} onChange={(e) => set("enabled")(e.target.checked)} /> Enabled
        <span className="muted small"> — its tools are offered to the agent</span>
      </label>
      <label className="check">
        <input type="checkbox" checked={draft.eager} onChange={(e) => set("eager")(e.target.checked)} /> Start at
        startup
        <span className="muted small"> — instead of on first use</span>
      </label>
      <Field
        label="Call timeout (seconds)"
        type="number"
        min={1}
        step={1}
        inputMode="numeric"
        value={draft.callTimeout}
        onValue={set("callTimeout")}
      />
      <Field
        label="Only these tools (comma separated; all when empty)"
        value={draft.allowTools}
        onValue={set("allowTools")}
        autoComplete="off"
        spellCheck={false}
      />
      <Field
        label="Never these tools (comma separated)"
        value={draft.denyTools}
        onValue={set("denyTools")}
        autoComplete="off"
        spellCheck={false}
      />
      <FormError error={error} testId="mcp-form-error" />
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="save-mcp-server">
          {busy ? "Saving…" : isNew ? "Add server" : "Save"}
        </button>
      </div>
    </form>
  );
}

/**
 * The server form in a dialog. `name` null: a new server; otherwise its configuration is read
 * when the dialog opens.
 */
export function McpServerForm({
  open,
  name,
  onClose,
  onSaved,
}: {
  open: boolean;
  name: string | null;
  onClose: () => void;
  onSaved: (name: string) => void;
}) {
  const load = useCallback((signal: AbortSignal) => api.mcpConfig(signal), []);
  const config = useResource(open && name !== null ? `mcp-config:${name}` : null, load);
  const view = name !== null ? config.data?.servers[name] : null;
  return (
    <Dialog open={open} title={name === null ? "Add MCP server" : `Edit “${name}”`} onClose={onClose} className="mcp-dialog">
      {name === null ? (
        <McpServerFormBody key="new" name={null} view={null} onCancel={onClose} onSaved={onSaved} />
      ) : config.error ? (
        <ErrorState message={`Configuration: ${config.error}`} onRetry={config.reload} />
      ) : config.data && !view ? (
        <ErrorState message={`“${name}” is no longer configured.`} />
      ) : view ? (
        <McpServerFormBody key={name} name={name} view={view} onCancel={onClose} onSaved={onSaved} />
      ) : (
        <Spinner label="Loading its configuration…" />
      )}
    </Dialog>
  );
}
