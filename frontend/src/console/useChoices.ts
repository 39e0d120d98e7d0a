// What the console's User and Agent menus offer: the accounts and the agents the server
// lists, plus every owner and agent seen in the runs loaded (another person's custom agent is
// not in the admin's own list).
import { useEffect, useMemo } from "react";
import { api } from "../api/client";
import { ASSISTANT_ID } from "../api/langgraph";
import { GRAPH_ID, isBuiltIn } from "../lib/agents";
import { useResource } from "../lib/useResource";
import { assistantsStore, ensureAssistants } from "../state/assistants";
import { useStore } from "../state/store";
import type { Choice } from "./RunFilters";
import type { ConsoleRun } from "./types";

/** Unique by id (the first label wins), sorted by label. */
function merged(choices: Choice[]): Choice[] {
  const byId = new Map<string, Choice>();
  for (const c of choices) if (c.id && !byId.has(c.id)) byId.set(c.id, c);
  return [...byId.values()].sort((a, b) => a.label.localeCompare(b.label));
}

/** The people runs can be filtered by. Without accounts (`open`) only the owners seen. */
export function useUserChoices(runs: ConsoleRun[] | null, open: boolean): Choice[] {
  const { data: accounts } = useResource(open ? null : "console-users", () => api.users());
  return useMemo(
    () =>
      merged([
        ...(accounts ?? []).map((u) => ({ id: u.id, label: u.email })),
        ...(runs ?? []).map((r) => ({ id: r.user_id, label: r.user_email || r.user_id })),
      ]),
    [accounts, runs],
  );
}

/** The agents runs can be filtered by, and each agent's name when known. */
export function useAgentChoices(runs: ConsoleRun[] | null): { agents: Choice[]; agentName: (id: string) => string | undefined } {
  const { list } = useStore(assistantsStore);
  useEffect(ensureAssistants, []);
  return useMemo(() => {
    const names = new Map((list ?? []).map((a) => [a.assistant_id, a.name] as const));
    // Runs may name the built-in agent by an alias (what the chat and the SDKs send).
    const builtIn = list?.find(isBuiltIn);
    if (builtIn) for (const alias of [GRAPH_ID, ASSISTANT_ID]) names.set(alias, builtIn.name);
    const agents = merged([
      ...(list ?? []).map((a) => ({ id: a.assistant_id, label: a.name })),
      ...(runs ?? []).map((r) => ({ id: r.assistant_id, label: names.get(r.assistant_id) ?? r.assistant_id })),
    ]);
    return { agents, agentName: (id: string) => names.get(id) };
  }, [list, runs]);
}
