//! Memory tools (tool mode): the model searches, adds, corrects and deletes what it
//! remembers about the person itself, through the application's memory (the run's
//! [`MemoryAccess`]).

use antler_protocol::memory::FactCategory;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::tools::{MemoryAccess, Tool, ToolContext, ToolError, ToolOutput, TypedTool};

/// The memory tools, in the order the model is shown them.
pub(crate) fn tools() -> [Arc<dyn Tool>; 4] {
    [
        Arc::new(MemorySearch),
        Arc::new(MemoryAdd),
        Arc::new(MemoryUpdate),
        Arc::new(MemoryDelete),
    ]
}

fn access<'a>(ctx: &ToolContext<'a>) -> Result<MemoryAccess<'a>, ToolError> {
    ctx.memory
        .ok_or_else(|| ToolError::Model("memory is not available".into()))
}

/// `text` unless it is blank.
fn required(text: String, key: &str) -> Result<String, ToolError> {
    if text.trim().is_empty() {
        return Err(ToolError::Model(format!("'{key}' is required")));
    }
    Ok(text)
}

/// `memory_search`.
pub(crate) struct MemorySearch;

/// The arguments of `memory_search`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct SearchArgs {
    /// Words to look for
    query: String,
}

#[async_trait]
impl TypedTool for MemorySearch {
    type Args = SearchArgs;
    const NAME: &'static str = "memory_search";
    const DESCRIPTION: &'static str =
        "Search what you remember about the person (facts from earlier conversations).";

    async fn run(&self, args: SearchArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let m = access(ctx)?;
        let found = m
            .source
            .search(
                m.owner,
                &m.profile.assistant_id,
                &required(args.query, "query")?,
            )
            .await
            .map_err(ToolError::Model)?;
        if found.is_empty() {
            return Ok(ToolOutput::text("Nothing remembered matches."));
        }
        let lines: Vec<String> = found
            .iter()
            .map(|f| format!("- {} [{}] {}", f.id, f.category, f.content))
            .collect();
        Ok(ToolOutput::text(lines.join("\n")))
    }
}

/// `memory_add`.
pub(crate) struct MemoryAdd;

/// The categories of facts, from the one list of their names.
fn category_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = FactCategory::ALL.iter().map(|c| c.as_str()).collect();
    schemars::json_schema!({"type": "string", "enum": names})
}

/// The arguments of `memory_add`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct AddArgs {
    /// The fact, one short sentence
    content: String,
    // Read leniently, as before it had a schema: absent or empty is `context`.
    #[serde(default, deserialize_with = "crate::tools::args::opt_text")]
    #[schemars(schema_with = "category_schema")]
    category: Option<String>,
}

#[async_trait]
impl TypedTool for MemoryAdd {
    type Args = AddArgs;
    const NAME: &'static str = "memory_add";
    const DESCRIPTION: &'static str = "Remember a lasting fact about the person (a preference, their background, a goal), one short sentence. Never secrets.";

    async fn run(&self, args: AddArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let m = access(ctx)?;
        // Absent or empty is `context`; an unknown name is the model's to fix.
        let category = match args.category.as_deref() {
            None => FactCategory::default(),
            Some(name) => name
                .parse::<FactCategory>()
                .map_err(|e| ToolError::Model(e.to_string()))?,
        };
        let f = m
            .source
            .add(
                m.owner,
                m.profile.memory_scope(),
                &required(args.content, "content")?,
                category,
            )
            .await
            .map_err(ToolError::Model)?;
        Ok(ToolOutput::text(format!("Remembered ({}).", f.id)))
    }
}

/// `memory_update`.
pub(crate) struct MemoryUpdate;

/// The arguments of `memory_update`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct UpdateArgs {
    /// The fact's id, as memory_search gave it
    id: String,
    /// What the fact says now
    content: String,
}

#[async_trait]
impl TypedTool for MemoryUpdate {
    type Args = UpdateArgs;
    const NAME: &'static str = "memory_update";
    const DESCRIPTION: &'static str = "Correct a remembered fact (by the id memory_search gave).";

    async fn run(&self, args: UpdateArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let m = access(ctx)?;
        let f = m
            .source
            .update(
                m.owner,
                &m.profile.assistant_id,
                m.profile.private_memory,
                &required(args.id, "id")?,
                &required(args.content, "content")?,
            )
            .await
            .map_err(ToolError::Model)?;
        Ok(ToolOutput::text(format!(
            "Corrected; the fact is now {}.",
            f.id
        )))
    }
}

/// `memory_delete`.
pub(crate) struct MemoryDelete;

/// The arguments of `memory_delete`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct DeleteArgs {
    /// The fact's id, as memory_search gave it
    id: String,
}

#[async_trait]
impl TypedTool for MemoryDelete {
    type Args = DeleteArgs;
    const NAME: &'static str = "memory_delete";
    const DESCRIPTION: &'static str =
        "Forget a remembered fact the person says is wrong or wants forgotten.";

    async fn run(&self, args: DeleteArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let m = access(ctx)?;
        m.source
            .delete(
                m.owner,
                &m.profile.assistant_id,
                m.profile.private_memory,
                &required(args.id, "id")?,
            )
            .await
            .map_err(ToolError::Model)?;
        Ok(ToolOutput::text("Forgotten."))
    }
}
