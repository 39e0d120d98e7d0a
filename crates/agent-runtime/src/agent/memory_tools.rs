//! Memory tools (tool mode): the model searches, adds, corrects and deletes what it
//! remembers about the person itself, through the application's memory.

use serde_json::{Value, json};

use super::AgentRun;
use crate::tools::{ToolError, ToolOutput};

/// The memory tools' names.
pub(crate) const NAMES: [&str; 4] = [
    "memory_search",
    "memory_add",
    "memory_update",
    "memory_delete",
];

/// Their definitions.
pub(crate) fn definitions() -> Vec<Value> {
    let def = |name: &str, description: &str, properties: Value, required: &[&str]| {
        json!({"type": "function", "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        }})
    };
    let category = json!({"type": "string", "enum": ["preference", "knowledge", "context", "behavior", "goal"]});
    vec![
        def(
            "memory_search",
            "Search what you remember about the person (facts from earlier conversations).",
            json!({"query": {"type": "string", "description": "Words to look for"}}),
            &["query"],
        ),
        def(
            "memory_add",
            "Remember a lasting fact about the person (a preference, their background, a goal), one short sentence. Never secrets.",
            json!({"content": {"type": "string"}, "category": category}),
            &["content"],
        ),
        def(
            "memory_update",
            "Correct a remembered fact (by the id memory_search gave).",
            json!({"id": {"type": "string"}, "content": {"type": "string"}}),
            &["id", "content"],
        ),
        def(
            "memory_delete",
            "Forget a remembered fact the person says is wrong or wants forgotten.",
            json!({"id": {"type": "string"}}),
            &["id"],
        ),
    ]
}

fn text(args: &Value, key: &str) -> Result<String, ToolError> {
    args.get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| ToolError::Model(format!("'{key}' is required")))
}

impl AgentRun<'_> {
    /// Runs one memory tool call for the run's person.
    pub(super) async fn call_memory(
        &self,
        name: &str,
        args: &Value,
    ) -> Result<ToolOutput, ToolError> {
        let Some(memory) = self.memory_source else {
            return Err(ToolError::Model("memory is not available".into()));
        };
        let owner = self.owner;
        let assistant = self.profile.assistant_id.as_str();
        let done = match name {
            "memory_search" => {
                let found = memory
                    .search(owner, assistant, &text(args, "query")?)
                    .await
                    .map_err(ToolError::Model)?;
                if found.is_empty() {
                    "Nothing remembered matches.".to_string()
                } else {
                    found
                        .iter()
                        .map(|f| format!("- {} [{}] {}", f.id, f.category, f.content))
                        .collect::<Vec<_>>()
                        .join("\n")
                }
            }
            "memory_add" => {
                let category = args
                    .get("category")
                    .and_then(Value::as_str)
                    .unwrap_or("context");
                let f = memory
                    .add(
                        owner,
                        self.profile.memory_scope(),
                        &text(args, "content")?,
                        category,
                    )
                    .await
                    .map_err(ToolError::Model)?;
                format!("Remembered ({}).", f.id)
            }
            "memory_update" => {
                let f = memory
                    .update(
                        owner,
                        assistant,
                        self.profile.private_memory,
                        &text(args, "id")?,
                        &text(args, "content")?,
                    )
                    .await
                    .map_err(ToolError::Model)?;
                format!("Corrected; the fact is now {}.", f.id)
            }
            "memory_delete" => {
                memory
                    .delete(
                        owner,
                        assistant,
                        self.profile.private_memory,
                        &text(args, "id")?,
                    )
                    .await
                    .map_err(ToolError::Model)?;
                "Forgotten.".to_string()
            }
            other => return Err(ToolError::Model(format!("unknown tool '{other}'"))),
        };
        Ok(ToolOutput::text(done))
    }
}
