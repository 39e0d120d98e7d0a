// JSON as a collapsible tree (objects and arrays open to two levels).
import { useT } from "../../i18n";

function Leaf({ value }: { value: unknown }) {
  if (value === null) return <span className="json-null">null</span>;
  switch (typeof value) {
    case "string":
      return <span className="json-string">{JSON.stringify(value)}</span>;
    case "number":
      return <span className="json-number">{String(value)}</span>;
    case "boolean":
      return <span className="json-bool">{String(value)}</span>;
    default:
      return <span>{String(value)}</span>;
  }
}

function Node({ name, value, depth }: { name?: string; value: unknown; depth: number }) {
  const label = name !== undefined ? <span className="json-key">{name}: </span> : null;
  if (value && typeof value === "object") {
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value as Record<string, unknown>);
    const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    return (
      <li>
        <details open={depth < 2}>
          <summary>
            {label}
            <span className="json-summary">{summary}</span>
          </summary>
          <ul>
            {entries.map(([k, v]) => (
              <Node key={k} name={k} value={v} depth={depth + 1} />
            ))}
          </ul>
        </details>
      </li>
    );
  }
  return (
    <li>
      {label}
      <Leaf value={value} />
    </li>
  );
}

export function JsonTree({ value }: { value: unknown }) {
  const t = useT();
  return (
    <ul className="json-tree" role="tree" aria-label={t("artifacts.text.jsonTree")}>
      <Node value={value} depth={0} />
    </ul>
  );
}
