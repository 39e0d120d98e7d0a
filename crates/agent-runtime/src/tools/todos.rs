//! `write_todos` (plan mode): the agent's checklist for work of several steps, stored in the
//! thread's values and streamed as it changes, so the person watches the plan advance.

use antler_protocol::threads::{Todo, TodoStatus};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Effect, ToolContext, ToolError, ToolOutput, TypedTool};

/// Most items in a plan.
const MAX_ITEMS: usize = 100;
/// Longest item, in characters.
const MAX_CHARS: usize = 1000;

/// Replaces the plan.
pub(crate) struct WriteTodos;

/// One item as the model writes it.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct TodoArg {
    /// What to do, as a short imperative sentence.
    content: String,
    /// `pending`, `in_progress` or `completed`.
    #[schemars(extend("enum" = ["pending", "in_progress", "completed"]))]
    status: String,
}

/// `write_todos` arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct TodosArgs {
    /// The whole plan, in order (it replaces the previous one).
    todos: Vec<TodoArg>,
}

#[async_trait]
impl TypedTool for WriteTodos {
    type Args = TodosArgs;
    const NAME: &'static str = "write_todos";
    const DESCRIPTION: &'static str = "Write your plan for a task of several steps as a checklist the person sees. Send the \
         whole list each time: mark the item you start in_progress (one at a time) and finished \
         ones completed as you go.";

    async fn run(&self, a: TodosArgs, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        if a.todos.len() > MAX_ITEMS {
            return Err(ToolError::Model(format!(
                "the plan has {} items; keep it to at most {MAX_ITEMS}",
                a.todos.len()
            )));
        }
        let mut todos = Vec::with_capacity(a.todos.len());
        for (i, t) in a.todos.into_iter().enumerate() {
            let content = t.content.trim().to_string();
            if content.is_empty() || content.chars().count() > MAX_CHARS {
                return Err(ToolError::Model(format!(
                    "todos[{i}].content must be 1-{MAX_CHARS} characters"
                )));
            }
            let status: TodoStatus = t.status.parse().map_err(|_| {
                ToolError::Model(format!(
                    "todos[{i}].status must be pending, in_progress or completed (not {:?})",
                    t.status
                ))
            })?;
            todos.push(Todo { content, status });
        }
        let done = todos
            .iter()
            .filter(|t| t.status == TodoStatus::Completed)
            .count();
        Ok(ToolOutput {
            effect: Effect::Todos(todos.clone()),
            ..ToolOutput::text(format!(
                "The plan is updated: {done} of {} done.",
                todos.len()
            ))
        })
    }
}
