// Agents (assistants) as the server answers them, for tests.
import type { Assistant } from "../api/types";

/** The built-in agent's fixed id. */
export const BUILT_IN_ID = "6d3a5c2e-0000-5000-8000-000000000001";

export const builtIn: Assistant = {
  assistant_id: BUILT_IN_ID,
  graph_id: "agent",
  name: "Antler",
  description: "The built-in agent: every enabled skill and tool.",
  config: {},
  context: {},
  metadata: { created_by: "system" },
  version: 1,
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

/** One of the caller's agents. */
export function agent(id: string, name: string, extra: Partial<Assistant> = {}): Assistant {
  return {
    ...builtIn,
    assistant_id: id,
    name,
    description: `${name} agent`,
    metadata: {},
    ...extra,
  };
}

/** `GET /api/assistants/agent/schemas`, with what the settings may name. */
export function schemas(models: string[], tools: string[], maxLength = 20_000) {
  const settings = {
    type: "object",
    properties: {
      system_prompt: { type: "string", maxLength },
      model_name: { type: "string", enum: models },
      skills: { type: "array", items: { type: "string" } },
      tools: { type: "array", items: { type: "string", enum: tools } },
    },
  };
  return {
    graph_id: "agent",
    input_schema: {},
    output_schema: {},
    state_schema: {},
    config_schema: settings,
    context_schema: settings,
  };
}

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
