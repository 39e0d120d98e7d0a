//! What every assistant's graph is: the agent loop as LangGraph nodes, and the JSON Schemas
//! of its input, state and settings.

use antler_protocol::assistants::{AssistantGraph, AssistantSchemas, GRAPH_ID};
use serde_json::{Value, json};

use super::Known;

/// The agent loop: the model (`agent`) and its tool calls (`tools`).
pub(super) fn graph() -> AssistantGraph {
    let node = |id: &str, kind: &str| json!({"id": id, "type": kind, "data": id});
    AssistantGraph {
        nodes: vec![
            node("__start__", "schema"),
            node("agent", "runnable"),
            node("tools", "runnable"),
            node("__end__", "schema"),
        ],
        edges: vec![
            json!({"source": "__start__", "target": "agent", "conditional": false}),
            json!({"source": "agent", "target": "tools", "conditional": true}),
            json!({"source": "agent", "target": "__end__", "conditional": true}),
            json!({"source": "tools", "target": "agent", "conditional": false}),
        ],
    }
}

/// The schemas of the graph; the settings name this server's models and tools.
pub(super) fn schemas(known: &Known) -> AssistantSchemas {
    let messages = json!({
        "type": "array",
        "items": {"type": "object", "description": "A LangChain message (human, ai or tool)"},
    });
    let state = json!({
        "title": "AgentState",
        "type": "object",
        "properties": {
            "messages": messages,
            "title": {"type": "string"},
            "artifacts": {"type": "array", "items": {"type": "string"}},
        },
    });
    AssistantSchemas {
        graph_id: GRAPH_ID.into(),
        input_schema: json!({
            "title": "AgentInput",
            "type": "object",
            "properties": {"messages": messages},
        }),
        output_schema: state.clone(),
        state_schema: state,
        config_schema: settings_schema("Configurable", known),
        context_schema: settings_schema("AgentSettings", known),
    }
}

fn settings_schema(title: &str, known: &Known) -> Value {
    json!({
        "title": title,
        "type": "object",
        "properties": {
            "system_prompt": {
                "type": "string",
                "maxLength": super::settings::MAX_INSTRUCTIONS,
                "description": "Instructions added to the system prompt",
            },
            "model_name": {"type": "string", "enum": known.models, "description": "A configured model"},
            "skills": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Skills it may use, by name (all enabled skills when absent)",
            },
            "tools": {
                "type": "array",
                "items": {"type": "string", "enum": known.tools},
                "description": "Tools it may use (all when absent)",
            },
        },
    })
}
