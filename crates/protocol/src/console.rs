//! The admin runs console: recent runs across people with what they used, and each run as a
//! timeline of its model calls, tool calls and subagents.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::runs::{RunStatus, RunUsage, StopReason};
use crate::wire_enum::wire_enum;

wire_enum! {
    /// What a step of a run was.
    pub enum RunStepKind {
        /// One call of a model (the agent loop, a summary, the title).
        ModelCall = "model_call",
        /// One tool call.
        ToolCall = "tool_call",
        /// A `task` call: a subagent's run (`child_run_id`).
        Subagent = "subagent",
    }
}

wire_enum! {
    /// How a step ended.
    pub enum RunStepStatus {
        /// It did what it was asked.
        Ok = "ok",
        /// It failed (`error` says why).
        Error = "error",
        /// The run was stopped while it worked.
        Cancelled = "cancelled",
    }
}

/// One step of a run's timeline, recorded as it ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RunStep {
    /// What it was.
    pub kind: RunStepKind,
    /// The model's name, the tool's name, or the subagent's type.
    pub name: String,
    /// RFC 3339 time it started (milliseconds).
    pub started_at: String,
    /// How long it took.
    pub duration_ms: u64,
    /// How it ended.
    pub status: RunStepStatus,
    /// Why it failed (a tool error as the model saw it, shortened).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Model calls: prompt tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Model calls: completion tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Model calls: why the model stopped (`stop`, `tool_calls`, `length`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Model calls: milliseconds until the first streamed token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_token_ms: Option<u64>,
    /// Tool calls and subagents: the model's id for the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Subagents: the child run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_run_id: Option<String>,
}

/// How often a run called one tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ToolUse {
    /// The tool.
    pub name: String,
    /// Calls.
    pub calls: u64,
    /// Of those, calls that failed.
    pub errors: u64,
}

/// A run as the console lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ConsoleRun {
    /// The run.
    pub run_id: String,
    /// Its thread.
    pub thread_id: String,
    /// Who started it (its owner's user id).
    pub user_id: String,
    /// The owner's email when the owner is a registered user.
    pub user_email: Option<String>,
    /// The agent.
    pub assistant_id: String,
    /// Where it is.
    pub status: RunStatus,
    /// Why it stopped (absent while it runs).
    pub stop_reason: Option<StopReason>,
    /// The error message when it failed.
    pub error: Option<String>,
    /// RFC 3339 creation time.
    pub created_at: String,
    /// RFC 3339 time of the last change.
    pub updated_at: String,
    /// Creation to end; `null` while it is pending or running.
    pub duration_ms: Option<u64>,
    /// The models it called.
    pub models: Vec<String>,
    /// Tokens, calls and cost (its subagents' included).
    pub usage: RunUsage,
    /// The tools it called, most called first.
    pub tools: Vec<ToolUse>,
    /// Tool calls that failed, over all tools.
    pub tool_errors: u64,
    /// The run that started it, for a subagent's run.
    pub parent_run_id: Option<String>,
    /// What people thought of its answer (thumbs up or down), oldest first.
    #[serde(default)]
    pub feedback: Vec<crate::feedback::RunFeedback>,
}

/// `GET /api/admin/runs`: a page of runs, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ConsoleRunList {
    /// The runs.
    pub runs: Vec<ConsoleRun>,
    /// How many runs match the filters.
    pub total: u64,
}

/// `GET /api/admin/runs/{run_id}`: a run and its timeline, its subagents' runs nested.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ConsoleRunDetail {
    /// The run.
    pub run: ConsoleRun,
    /// Its steps in the order they started (empty for a run from before timelines were
    /// kept, or one still working).
    pub timeline: Vec<RunStep>,
    /// Its subagents' runs, each with its own timeline.
    #[schema(no_recursion)]
    pub subagents: Vec<ConsoleRunDetail>,
}
