// The form of a new MCP server, or of a change to one (admins): how it is reached, its
// environment or headers (configured values stay hidden and are kept unless retyped), whether
// it is used, and which of its tools are offered. Saving sends the whole set of servers back.
import { useCallback, useState } from "react";
import type { McpServerConfigView, McpTransport } from "../api/types";
import { Dialog } from "../components/Dialog";
import { Field, FormError, useFormAction } from "../components/Form";
import { Icon } from "../components/Icon";
import { Trans } from "react-i18next";
import { useT } from "../i18n";
import { ErrorState, Spinner } from "../components/States";
import {
  type KeyValueRow,
  type McpServerDraft,
  SERVER_NAME,
  changeMcpServers,
  draftOfServer,
  hiddenLabel,
  rowId,
  serverNameRule,
  serverOfDraft,
} from "../lib/mcpConfig";
import { api } from "../api/client";
import { useResource } from "../lib/useResource";

/** The transports; `key`: the catalogue key of a label that needs translating. */
const TRANSPORT_CHOICES: { value: McpTransport; label: string; key?: string }[] = [
  { value: "stdio", label: "stdio", key: "settings.mcpForm.stdioLabel" },
  { value: "streamable_http", label: "Streamable HTTP" },
  { value: "sse", label: "SSE" },
];

/** The catalogue keys of what the rows of each kind are called. */
const KV_TEXT = {
  variable: {
    name: "settings.mcpForm.variableName",
    value: "settings.mcpForm.variableValue",
    item: "settings.mcpForm.variableItem",
    add: "settings.mcpForm.addVariable",
  },
  header: {
    name: "settings.mcpForm.headerName",
    value: "settings.mcpForm.headerValue",
    item: "settings.mcpForm.headerItem",
    add: "settings.mcpForm.addHeader",
  },
} as const;

/** The environment variables or headers as rows of name and value. */
function KeyValueRows({
  legend,
  what,
  rows,
  onRows,
}: {
  legend: string;
  /** What a row is (also its test id). */
  what: "variable" | "header";
  rows: KeyValueRow[];
  onRows: (rows: KeyValueRow[]) => void;
}) {
  const t = useT();
  const text = KV_TEXT[what];
  const update = (id: number, change: Partial<KeyValueRow>) =>
    onRows(rows.map((r) => (r.id === id ? { ...r, ...change } : r)));
  return (
    <fieldset className="mcp-kv" data-testid={`mcp-${what}s`}>
      <legend>{legend}</legend>
      {rows.length === 0 && <p className="muted small">{t("settings.mcpForm.none")}</p>}
      {rows.map((row, i) => (
        <div className="mcp-kv-row" key={row.id} data-testid={`mcp-${what}`} data-key={row.key}>
          {row.hidden ? (
            <code className="mcp-kv-key" title={t("settings.mcpForm.configured")}>
              {row.key}
            </code>
          ) : (
            <input
              className="mcp-kv-key"
              aria-label={t(text.name, { n: i + 1 })}
              value={row.key}
              onChange={(e) => update(row.id, { key: e.target.value })}
              autoComplete="off"
              spellCheck={false}
            />
          )}
          <input
            className="mcp-kv-value"
            aria-label={row.hidden ? t("settings.mcpForm.newValueOf", { key: row.key }) : t(text.value, { n: i + 1 })}
            value={row.value}
            placeholder={row.hidden ? hiddenLabel(row.hidden) : t("settings.mcpForm.valuePlaceholder")}
            title={row.hidden ? t("settings.mcpForm.keepTitle") : undefined}
            onChange={(e) => update(row.id, { value: e.target.value })}
            autoComplete="off"
            spellCheck={false}
          />
          <button
            type="button"
            className="btn btn-ghost btn-icon btn-sm"
            aria-label={t("settings.common.removeNamed", { name: row.key.trim() || t(text.item, { n: i + 1 }) })}
            onClick={() => onRows(rows.filter((r) => r.id !== row.id))}
          >
            <Icon name="x" size={14} />
          </button>
        </div>
      ))}
      <p className="muted small">
        <Trans t={t} i18nKey="settings.mcpForm.valuesHint" components={{ code: <code /> }} />
      </p>
      <button
        type="button"
        className="btn btn-sm"
        onClick={() => onRows([...rows, { id: rowId(), key: "", hidden: null, value: "" }])}
      >
        {t(text.add)}
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
  const t = useT();
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
      setError(t("settings.mcpForm.nameInvalid", { rule: serverNameRule() }));
      return;
    }
    await changeMcpServers((servers, read) => {
      const current = read.servers[serverName] ?? null;
      if (isNew && current) throw new Error(t("settings.mcpForm.exists", { name: serverName }));
      if (!isNew && !current) throw new Error(t("settings.common.notConfigured", { name: serverName }));
      servers[serverName] = serverOfDraft(draft, current);
    });
    onSaved(serverName);
  });
  return (
    <form
      className="mcp-server-form"
      onSubmit={save}
      aria-label={isNew ? t("settings.mcpForm.newServer") : t("settings.common.editNamed", { name })}
      noValidate
    >
      {isNew && (
        <Field
          label={t("settings.common.name")}
          required
          maxLength={32}
          value={draft.name}
          onValue={set("name")}
          autoComplete="off"
          spellCheck={false}
          placeholder={serverNameRule()}
        />
      )}
      <label className="field">
        <span>{t("settings.mcpForm.transport")}</span>
        <select value={draft.transport} onChange={(e) => set("transport")(e.target.value as McpTransport)}>
          {TRANSPORT_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.key ? t(choice.key) : choice.label}
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
            {draft.sandboxed ? t("settings.mcpForm.sandboxedNote") : t("settings.mcpForm.stdioWarning")}
          </p>
          <label className="check">
            <input
              type="checkbox"
              checked={draft.sandboxed}
              onChange={(e) => set("sandboxed")(e.target.checked)}
            />{" "}
            {t("settings.mcpForm.sandboxedCheck")}
            <span className="muted small">{t("settings.mcpForm.sandboxedCheckHint")}</span>
          </label>
          <Field
            label={t("settings.mcpForm.command")}
            required
            value={draft.command}
            onValue={set("command")}
            autoComplete="off"
            spellCheck={false}
            placeholder="npx"
          />
          <label className="field">
            <span>{t("settings.mcpForm.args")}</span>
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
          label={t("settings.mcpForm.url")}
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
        label={t("settings.common.description")}
        value={draft.description}
        onValue={set("description")}
        placeholder={t("settings.common.whatFor")}
        autoComplete="off"
      />
      {stdio ? (
        <KeyValueRows legend={t("settings.mcpForm.envVars")} what="variable" rows={draft.env} onRows={set("env")} />
      ) : (
        <KeyValueRows legend={t("settings.mcpForm.headers")} what="header" rows={draft.headers} onRows={set("headers")} />
      )}
      <label className="check">
        <input type="checkbox" checked={draft.enabled} onChange={(e) => set("enabled")(e.target.checked)} />{" "}
        {t("settings.mcpForm.enabled")}
        <span className="muted small">{t("settings.mcpForm.enabledHint")}</span>
      </label>
      <label className="check">
        <input type="checkbox" checked={draft.eager} onChange={(e) => set("eager")(e.target.checked)} />{" "}
        {t("settings.mcpForm.eager")}
        <span className="muted small">{t("settings.mcpForm.eagerHint")}</span>
      </label>
      <Field
        label={t("settings.mcpForm.callTimeout")}
        type="number"
        min={1}
        step={1}
        inputMode="numeric"
        value={draft.callTimeout}
        onValue={set("callTimeout")}
      />
      <Field
        label={t("settings.mcpForm.allowTools")}
        value={draft.allowTools}
        onValue={set("allowTools")}
        autoComplete="off"
        spellCheck={false}
      />
      <Field
        label={t("settings.mcpForm.denyTools")}
        value={draft.denyTools}
        onValue={set("denyTools")}
        autoComplete="off"
        spellCheck={false}
      />
      <FormError error={error} testId="mcp-form-error" />
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          {t("settings.common.cancel")}
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="save-mcp-server">
          {busy ? t("settings.common.saving") : isNew ? t("settings.mcpForm.addServer") : t("settings.common.save")}
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
  const t = useT();
  const load = useCallback((signal: AbortSignal) => api.mcpConfig(signal), []);
  const config = useResource(open && name !== null ? `mcp-config:${name}` : null, load);
  const view = name !== null ? config.data?.servers[name] : null;
  return (
    <Dialog
      open={open}
      title={name === null ? t("settings.mcpForm.dialogAdd") : t("settings.common.editQuoted", { name })}
      onClose={onClose}
      className="mcp-dialog"
    >
      {name === null ? (
        <McpServerFormBody key="new" name={null} view={null} onCancel={onClose} onSaved={onSaved} />
      ) : config.error ? (
        <ErrorState message={t("settings.mcpForm.configError", { error: config.error })} onRetry={config.reload} />
      ) : config.data && !view ? (
        <ErrorState message={t("settings.common.notConfigured", { name })} />
      ) : view ? (
        <McpServerFormBody key={name} name={name} view={view} onCancel={onClose} onSaved={onSaved} />
      ) : (
        <Spinner label={t("settings.mcpForm.loadingConfig")} />
      )}
    </Dialog>
  );
}
