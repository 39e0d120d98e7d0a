// The tools of one MCP server, folded by default: each with its MCP name, the name the model
// calls it by, what it does, and its arguments as a small table.
import { useId, useState } from "react";
import type { McpTool } from "../api/types";
import { Icon } from "../components/Icon";
import { pluralize } from "../lib/format";
import { schemaParams } from "../lib/schemaParams";

function Params({ tool }: { tool: McpTool }) {
  const params = schemaParams(tool.input_schema);
  if (params.length === 0) return <p className="muted small">No arguments.</p>;
  return (
    <div className="table-scroll">
      <table className="param-table" aria-label={`Arguments of ${tool.name}`}>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Required</th>
            <th scope="col">Description</th>
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
              <td>{p.required ? "yes" : "no"}</td>
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
  const [open, setOpen] = useState(false);
  const listId = useId();
  return (
    <div className="mcp-tools">
      <button
        type="button"
        className="btn btn-ghost btn-sm mcp-tools-toggle"
        aria-expanded={open}
        aria-controls={listId}
        aria-label={`${open ? "Hide" : "Show"} the ${pluralize(tools.length, "tool")} of ${server}`}
        onClick={() => setOpen(!open)}
      >
        <span className={`chevron ${open ? "open" : ""}`} aria-hidden="true">
          <Icon name="chevron" size={14} />
        </span>
        {pluralize(tools.length, "tool")}
      </button>
      {open && (
        <ul className="mcp-tool-list" id={listId} aria-label={`Tools of ${server}`}>
          {tools.map((t) => (
            <li key={t.model_name} data-testid="mcp-tool">
              <div className="mcp-tool-names">
                <span className="mcp-tool-name">{t.name}</span>
                <code className="mcp-tool-model-name" title="The name the model calls it by">
                  {t.model_name}
                </code>
              </div>
              {t.description && <p className="mcp-tool-desc">{t.description}</p>}
              <Params tool={t} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
