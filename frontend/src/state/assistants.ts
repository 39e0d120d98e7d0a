// The agents (the server's assistants) that Settings → Agents and the chat's Agent menu show,
// kept in one store so a change made in Settings is in the menu at once; and the agent new
// conversations use, remembered in the browser.
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { Assistant } from "../api/types";
import { settingsOf, sortAgents } from "../lib/agents";
import { readSetting, writeSetting } from "../lib/storage";
import { Store } from "./store";

export interface AssistantsState {
  /** The built-in agent first, then the caller's by name; undefined until loaded. */
  list?: Assistant[];
  loading: boolean;
  error?: string;
  /** The agent last picked for new conversations (it may have been deleted since). */
  remembered: string | null;
}

const KEY = "antler-agent";
/** The server's largest page: every agent one person may have. */
const PAGE = 1000;

export const assistantsStore = new Store<AssistantsState>({ loading: false, remembered: readSetting(KEY) });

/** Only the latest load is kept (an older answer may arrive after a newer one). */
let reads = 0;

/** Loads the agents again (after every change, so every view agrees with the server). */
export async function refreshAssistants(): Promise<void> {
  const read = ++reads;
  assistantsStore.update({ loading: true });
  try {
    const list = await api.searchAssistants({ limit: PAGE, offset: 0, sort_by: "name", sort_order: "asc" });
    if (read === reads) assistantsStore.update({ list: sortAgents(list), loading: false, error: undefined });
  } catch (e) {
    if (read === reads) assistantsStore.update({ loading: false, error: errorMessage(e) });
  }
}

/** Loads the agents unless they are loaded or loading. */
export function ensureAssistants(): void {
  const s = assistantsStore.get();
  if (!s.list && !s.loading) void refreshAssistants();
}

/** Remembers the agent picked for new conversations. */
export function rememberAgent(id: string): void {
  writeSetting(KEY, id);
  assistantsStore.update({ remembered: id });
}

/** The model an agent is set to use, when it names one (and the agents are loaded). */
export function agentModel(assistantId: string | null | undefined): string | undefined {
  if (!assistantId) return undefined;
  const agent = assistantsStore.get().list?.find((a) => a.assistant_id === assistantId);
  return agent ? settingsOf(agent).model_name : undefined;
}
