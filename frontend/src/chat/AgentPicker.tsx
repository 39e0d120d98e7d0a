// The chat's Agent menu: the built-in agent and the person's own (Settings → Agents).
import { useEffect } from "react";
import { useT } from "../i18n";
import { isBuiltIn, resolveAgent } from "../lib/agents";
import { assistantsStore, ensureAssistants } from "../state/assistants";
import { useStore } from "../state/store";

/**
 * A compact select of the agents; `value` is the agent wanted (a choice, or the thread's), shown
 * as the built-in when it no longer exists. Hidden until the agents are loaded.
 */
export function AgentPicker({ value, onChange }: { value: string | undefined; onChange: (assistantId: string) => void }) {
  const { list } = useStore(assistantsStore);
  const t = useT();
  useEffect(ensureAssistants, []);
  if (!list || list.length === 0) return null;
  const current = resolveAgent(list, value) ?? list.find(isBuiltIn)?.assistant_id ?? "";
  const chosen = list.find((a) => a.assistant_id === current);
  return (
    <label className="agent-picker" title={chosen?.description ?? undefined}>
      <span className="agent-picker-label">{t("chat.agentPicker.label")}</span>
      <select value={current} onChange={(e) => onChange(e.target.value)} data-testid="agent-picker">
        {list.map((a) => (
          <option key={a.assistant_id} value={a.assistant_id}>
            {isBuiltIn(a) ? t("chat.agentPicker.builtIn", { name: a.name }) : a.name}
          </option>
        ))}
      </select>
    </label>
  );
}
