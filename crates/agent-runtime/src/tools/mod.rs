//! The agent's tools: one [`Tool`] trait, a [`ToolRegistry`] the agent loop lists and calls
//! through, and one file per tool family. A built-in tool is a [`TypedTool`]: its arguments
//! are a `Deserialize + JsonSchema` type beside its handler, so the schema the model sees is
//! generated from the type the handler reads. The tools of one run (memory, `task`, MCP
//! tools and `tool_search`, in `agent`) are the same trait, added to a per-run registry; what
//! they need from the run comes in the [`ToolContext`] as optional capabilities.

pub(crate) mod args;
mod bash;
mod clarify;
mod context;
mod files;
mod present;
mod registry;
mod search;
mod skills;
mod todos;
mod typed;
mod view_image;
pub mod web;

pub use context::{MemoryAccess, SandboxHandle, SandboxLauncher, ToolContext};
pub use registry::ToolRegistry;
pub use typed::TypedTool;
pub(crate) use typed::{parse_args, schema_of};

use async_trait::async_trait;
use serde_json::Value;

/// A tool the model can call.
#[async_trait]
pub trait Tool: Send + Sync {
    /// The name the model calls it by (unique in a registry).
    fn name(&self) -> &str;
    /// What it does, for the model.
    fn description(&self) -> &str;
    /// The JSON Schema of its arguments (an object schema).
    fn parameters(&self) -> Value;
    /// When its calls run among those of one model answer.
    fn phase(&self) -> Phase {
        Phase::Concurrent
    }
    /// Whether the model is shown it now (a deferred MCP tool is not, until a search
    /// promotes it; it can still be called by name).
    fn listed(&self) -> bool {
        true
    }
    /// Whether it hands its arguments on unchanged (an MCP tool to its server): such a tool
    /// is not given the extra `description` argument every other tool takes.
    fn forwards_arguments(&self) -> bool {
        false
    }
    /// Runs one call with the raw arguments the model sent.
    async fn call(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError>;
}

/// When a tool's calls run among those of one model answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before every other call of the answer, one after another (`tool_search`: what it
    /// promotes must be in place before the calls made beside it are checked).
    First,
    /// With the other calls of the answer, concurrently.
    Concurrent,
}

/// Why a tool call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The model should read this and can act on it (a bad argument, a missing file, a
    /// command that failed): it becomes the call's `Error: …` result and the run goes on.
    #[error("{0}")]
    Model(String),
    /// The run cannot go on (a tool broke in a way the model cannot fix): the run ends with
    /// status `error` and this message.
    #[error("{0}")]
    Fatal(String),
}

/// What a tool call changes beyond its message.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Nothing.
    None,
    /// Files to add to the thread's artifacts.
    Present(Vec<String>),
    /// The run stops to wait for the person's answer.
    Clarify,
    /// The agent's plan is now this list.
    Todos(Vec<antler_protocol::threads::Todo>),
}

/// A tool's result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the model reads.
    pub content: String,
    /// Shown as failed in the UI.
    pub is_error: bool,
    /// Structured data for the UI.
    pub artifact: Option<Value>,
    /// Side effect on the thread.
    pub effect: Effect,
}

impl ToolOutput {
    /// A plain text result.
    pub fn text(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: false,
            artifact: None,
            effect: Effect::None,
        }
    }

    /// An `Error: …` result for the model.
    pub fn error(message: impl std::fmt::Display) -> Self {
        ToolOutput {
            content: format!("Error: {message}"),
            is_error: true,
            artifact: None,
            effect: Effect::None,
        }
    }
}

/// Keeps head and tail of long output.
pub fn cap(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars {
        return text.to_string();
    }
    let half = max_chars / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!(
        "{head}\n\n[... {} characters omitted ...]\n\n{tail}",
        count - 2 * half
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_output_keeps_head_and_tail() {
        let text = format!("{}{}", "a".repeat(100), "b".repeat(100));
        let out = cap(&text, 50);
        assert!(out.starts_with(&"a".repeat(25)) && out.ends_with(&"b".repeat(25)));
        assert!(out.contains("150 characters omitted"));
        assert_eq!(cap("short", 50), "short");
    }
}
