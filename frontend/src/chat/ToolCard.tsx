// A tool call as a compact card: what it did, and on demand its arguments and result.
import { useId, useState } from "react";
import { Icon } from "../components/Icon";
import { Markdown } from "../components/Markdown";
import { useT } from "../i18n";
import { languageFor } from "../lib/fileKind";
import { codeFence } from "../lib/markdownUtil";
import type { ToolCall, ToolMessage } from "../lib/messages";
import {
  formatArgs,
  resultImages,
  statusLabel,
  networkLabel,
  humanBytes,
  type NetworkView,
  toolHeading,
  toolPurpose,
  toolResultView,
  toolSummary,
} from "../lib/toolFormat";
import { todosOf } from "../lib/todos";
import { type ToolProgress, progressText } from "../lib/toolProgress";
import { webView } from "../lib/webSources";
import { PlanItems } from "./PlanChecklist";
import { WebDetails, WebFindings } from "./WebSources";

function Args({ call }: { call: ToolCall }) {
  const t = useT();
  const a = call.args;
  if (call.name === "bash" && typeof a["command"] === "string") {
    return <Markdown text={codeFence(a["command"], "bash")} />;
  }
  if (call.name === "write_file" && typeof a["content"] === "string") {
    const path = typeof a["path"] === "string" ? a["path"] : "";
    return <Markdown text={codeFence(a["content"], languageFor(path))} />;
  }
  if (call.name === "write_todos") {
    const todos = todosOf(a["todos"]);
    if (todos.length > 0) return <PlanItems todos={todos} label={t("chat.plan.asWritten")} />;
  }
  const json = formatArgs(a);
  return json ? <Markdown text={codeFence(json, "json")} /> : <p className="muted">{t("chat.tool.noArguments")}</p>;
}

/** What a running call last reported: a bar when the total is known, the count, the message. */
function Progress({ progress, title }: { progress: ToolProgress; title: string }) {
  const t = useT();
  const { total } = progress;
  return (
    <div className="tool-progress" data-testid="tool-progress">
      {total !== undefined && (
        <progress value={Math.min(progress.progress, total)} max={total} aria-label={t("chat.tool.progressOf", { title })} />
      )}
      <span className="tool-progress-count">{progressText(progress)}</span>
      {progress.message && <span className="tool-progress-message">{progress.message}</span>}
    </div>
  );
}

/**
 * A tool call: `result` once it has answered; `invalid` when the model's call could not be
 * parsed; `progress` while it runs, when its tool reports some (MCP servers do).
 */
export function ToolCard({
  call,
  result,
  invalid,
  progress,
}: {
  call: ToolCall;
  result?: ToolMessage;
  invalid?: string;
  progress?: ToolProgress | undefined;
}) {
  const t = useT();
  const view = toolResultView(call, result);
  const [open, setOpen] = useState(false);
  const summary = toolSummary(call);
  const purpose = toolPurpose(call);
  const status = invalid ? "error" : view.status;
  const { title, mcp } = toolHeading(call.name, result);
  const images = resultImages(result);
  const web = webView(call, result);
  const bodyId = useId();
  return (
    <div className={`tool-card tool-${status}`} data-testid="tool-card" data-tool={call.name}>
      <button
        type="button"
        className="tool-head"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen(!open)}
      >
        <Icon name="tool" size={14} />
        {mcp && (
          <span className="tool-origin" data-testid="tool-origin" title={t("chat.tool.mcpServer", { server: mcp.server })}>
            MCP · {mcp.server}
          </span>
        )}
        <span className="tool-title" title={mcp ? call.name : undefined}>
          {title}
        </span>
        {summary && <code className="tool-summary">{summary}</code>}
        <span className={`tool-status status-${status}`}>
          {status === "running" && <span className="spinner spinner-xs" aria-hidden="true" />}
          {invalid ? t("chat.tool.invalidCall") : statusLabel(view)}
        </span>
        <span className={`chevron ${open ? "open" : ""}`} aria-hidden="true">
          <Icon name="chevron" size={14} />
        </span>
      </button>
      {purpose && <div className="tool-purpose">{purpose}</div>}
      {view.network && (
        <div
          className={`tool-network ${view.network.refused || view.network.failed ? "tool-network-refused" : ""}`}
          data-testid="tool-network"
        >
          {networkLabel(view.network)}
        </div>
      )}
      {web && <WebFindings view={web} />}
      {status === "running" && progress && <Progress progress={progress} title={title} />}
      {open && (
        <div className="tool-body" id={bodyId}>
          {invalid && <p className="tool-error-text">{invalid}</p>}
          <section>
            <h4>{t("chat.tool.arguments")}</h4>
            <Args call={call} />
          </section>
          {web && (
            <section>
              <WebDetails view={web} />
            </section>
          )}
          <section>
            <h4>
              {t("chat.tool.result")}
              {view.exitCode !== undefined && view.exitCode !== null && (
                <span className={`exit-code ${view.exitCode === 0 ? "ok" : "bad"}`}>{t("chat.tool.exitCode", { code: view.exitCode })}</span>
              )}
            </h4>
            {view.status === "running" ? (
              <p className="muted">{t("chat.tool.running")}</p>
            ) : view.language ? (
              <Markdown text={codeFence(view.output, view.language)} />
            ) : (
              <pre className={`tool-output ${view.status === "error" ? "tool-output-error" : ""}`} data-testid="tool-output">
                {view.output || t("chat.tool.noOutput")}
              </pre>
            )}
            {view.network && <Connections network={view.network} />}
            {images.length > 0 && (
              <div className="tool-images">
                {images.map((src, i) => (
                  <img key={i} src={src} alt={t("chat.tool.imageAlt", { n: i + 1, title })} />
                ))}
              </div>
            )}
          </section>
        </div>
      )}
    </div>
  );
}

/** Each connection a command made through the egress proxy, refusals with their reason. */
function Connections({ network }: { network: NetworkView }) {
  const t = useT();
  return (
    <div className="tool-connections">
      <h4>{t("chat.tool.network")}</h4>
      <ul data-testid="tool-connections">
        {network.connections.map((c, i) => (
          <li key={i} className={c.allowed && !c.error ? "ok" : "bad"}>
            <code>
              {c.host}:{c.port}
            </code>{" "}
            {!c.allowed ? t("chat.tool.refused") : c.error ? t("chat.tool.failed") : `${humanBytes(c.bytes_sent)} ↑ ${humanBytes(c.bytes_received)} ↓`}
            {c.error && <span className="muted"> — {c.error}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
