// The tools a run called, as chips with their call counts; a tool with failed calls is
// highlighted and says how many failed.
import { useT } from "../i18n";
import type { ToolUse } from "./types";

export function ToolChips({ tools }: { tools: ToolUse[] }) {
  const tr = useT();
  if (tools.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="console-chips" aria-label={tr("console.tools.used")}>
      {tools.map((t) => {
        const calls = tr("console.tools.calls", { name: t.name, count: t.calls });
        const label = t.errors ? tr("console.tools.failed", { calls, failed: t.errors }) : calls;
        return (
          <li
            key={t.name}
            className={t.errors ? "console-chip console-chip-error" : "console-chip"}
            title={label}
            aria-label={label}
            data-testid="tool-chip"
          >
            <span className="console-chip-name">{t.name}</span>
            <span className="console-chip-count">×{t.calls}</span>
            {t.errors > 0 && <span className="console-chip-errors">{t.errors}✗</span>}
          </li>
        );
      })}
    </ul>
  );
}
