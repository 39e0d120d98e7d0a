// A tool call as a compact card: what it did, and on demand its arguments and result.
import { useId, useState } from "react";
import { Icon } from "../components/Icon";
import { Markdown } from "../components/Markdown";
import { languageFor } from "../lib/fileKind";
import { codeFence } from "../lib/markdownUtil";
import type { ToolCall, ToolMessage } from "../lib/messages";
import { formatArgs, statusLabel, toolPurpose, toolResultView, toolSummary, toolTitle } from "../lib/toolFormat";

function Args({ call }: { call: ToolCall }) {
  const a = call.args;
  if (call.name === "bash" && typeof a["command"] === "string") {
    return <Markdown text={codeFence(a["command"], "bash")} />;
  }
  if (call.name === "write_file" && typeof a["content"] === "string") {
    const path = typeof a["path"] === "string" ? a["path"] : "";
    return <Markdown text={codeFence(a["content"], languageFor(path))} />;
  }
  const json = formatArgs(a);
  return json ? <Markdown text={codeFence(json, "json")} /> : <p className="muted">No arguments.</p>;
}

export function ToolCard({ call, result, invalid }: { call: ToolCall; result?: ToolMessage; invalid?: string }) {
  const view = toolResultView(call, result);
  const [open, setOpen] = useState(false);
  const summary = toolSummary(call);
  const purpose = toolPurpose(call);
  const status = invalid ? "error" : view.status;
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
        <span className="tool-title">{toolTitle(call.name)}</span>
        {summary && <code className="tool-summary">{summary}</code>}
        <span className={`tool-status status-${status}`}>
          {status === "running" && <span className="spinner spinner-xs" aria-hidden="true" />}
          {invalid ? "invalid call" : statusLabel(view)}
        </span>
        <span className={`chevron ${open ? "open" : ""}`} aria-hidden="true">
          <Icon name="chevron" size={14} />
        </span>
      </button>
      {purpose && <div className="tool-purpose">{purpose}</div>}
      {open && (
        <div className="tool-body" id={bodyId}>
          {invalid && <p className="tool-error-text">{invalid}</p>}
          <section>
            <h4>Arguments</h4>
            <Args call={call} />
          </section>
          <section>
            <h4>
              Result
              {view.exitCode !== undefined && view.exitCode !== null && (
                <span className={`exit-code ${view.exitCode === 0 ? "ok" : "bad"}`}>exit code {view.exitCode}</span>
              )}
            </h4>
            {view.status === "running" ? (
              <p className="muted">Running…</p>
            ) : view.language ? (
              <Markdown text={codeFence(view.output, view.language)} />
            ) : (
              <pre className={`tool-output ${view.status === "error" ? "tool-output-error" : ""}`} data-testid="tool-output">
                {view.output || "(no output)"}
              </pre>
            )}
          </section>
        </div>
      )}
    </div>
  );
}
