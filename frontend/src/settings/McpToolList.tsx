// The tools of one MCP server, folded by default: each with its MCP name, the name the model
// calls it by, what it does, and its arguments as a small table.
import { useId, useState } from "react";
import type { McpTool } from "../api/types";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import { schemaParams } from "../lib/schemaParams";

function Params({ tool }: { tool: McpTool }) {
  const t = useT();
  const params = schemaParams(tool.input_schema);
  if (params.length === 0) return <p className="muted small">{t("settings.mcpTools.noArgs")}</p>;
  return (
    <div className="table-scroll">
      <table className="param-table" aria-label={t("settings.mcpTools.argsOf", { name: tool.name })}>
        <thead>
          <tr>
            <th scope="col">{t("settings.common.name")}</th>
            <th scope="col">{t("settings.mcpTools.type")}</th>
            <th scope="col">{t("settings.mcpTools.required")}</th>
            <th scope="col">{t("settings.common.description")}</th>
          </tr>
        </thead>
        <tbody>
          {params.map((p) => (
            <tr key={p.name}>
              <td>
                <code>{p.name}</code>
              </td>
              <td>
                <code className="param-type">{p.type}</code>
              </td>
              <td>{p.required ? t("settings.mcpTools.yes") : t("settings.mcpTools.no")}</td>
              <td>{p.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The server's tools behind a toggle (drawn only when open: a server may offer hundreds). */
export function McpToolList({ server, tools }: { server: string; tools: McpTool[] }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const listId = useId();
  return (
    <div className="mcp-tools">
      <button
        type="button"
        className="btn btn-ghost btn-sm mcp-tools-toggle"
        aria-expanded={open}
        aria-controls={listId}
        aria-label={t(open ? "settings.mcpTools.hide" : "settings.mcpTools.show", { count: tools.length, server })}
        onClick={() => setOpen(!open)}
      >
        <span className={`chevron ${open ? "open" : ""}`} aria-hidden="true">
          <Icon name="chevron" size={14} />
        </span>
        {t("settings.mcpTools.count", { count: tools.length })}
      </button>
      {open && (
        <ul className="mcp-tool-list" id={listId} aria-label={t("settings.mcpTools.toolsOf", { server })}>
          {tools.map((tool) => (
            <li key={tool.model_name} data-testid="mcp-tool">
              <div className="mcp-tool-names">
                <span className="mcp-tool-name">{tool.name}</span>
                <code className="mcp-tool-model-name" title={t("settings.mcpTools.modelNameTitle")}>
                  {tool.model_name}
                </code>
              </div>
              {tool.description && <p className="mcp-tool-desc">{tool.description}</p>}
              <Params tool={tool} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
