//! The admin runs console (`/api/admin/runs`): every person's recent runs with what they
//! used, and each run as a timeline of its model calls, tool calls and subagents. Admins
//! only. The store filters, counts and pages; `params` checks the query; this module
//! turns stored runs into what the console shows (tool counts from the timeline, duration,
//! models).

pub(crate) mod params;

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use antler_protocol::console::{
    ConsoleRun, ConsoleRunDetail, ConsoleRunList, RunStep, RunStepKind, RunStepStatus, ToolUse,
};
use antler_store::threads::timestamp;
use antler_store::{ConsoleRecord, Store, StoreError};

pub use params::{
    BOOL_PATTERN, ConsoleParams, DEFAULT_LIMIT, FEEDBACK_PATTERN, LIMIT_PATTERN, MAX_LIMIT,
    MAX_OFFSET, OFFSET_PATTERN, STATUS_PATTERN, TIME_PATTERN, USER_PATTERN,
};

use crate::Caller;

/// How deep subagents' runs are nested in a run's detail (a subagent's own subagents, …).
pub const MAX_DEPTH: usize = 4;

/// What can go wrong in the console.
#[derive(Debug, thiserror::Error)]
pub enum ConsoleError {
    /// A query parameter is not acceptable (the message names it).
    #[error("{0}")]
    Invalid(String),
    /// The caller is not an admin.
    #[error("{0}")]
    Forbidden(String),
    /// The run id is not a run id.
    #[error("'{0}' is not a run id (a UUID)")]
    InvalidRunId(String),
    /// No such run.
    #[error("no run '{0}'")]
    NotFound(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The console's use-cases.
#[derive(Clone)]
pub struct ConsoleService {
    store: Store,
}

impl std::fmt::Debug for ConsoleService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConsoleService").finish_non_exhaustive()
    }
}

impl ConsoleService {
    /// The service over `store`.
    pub fn new(store: Store) -> Self {
        ConsoleService { store }
    }

    /// A page of runs across people, newest first, and how many match (admins only).
    pub async fn list(
        &self,
        caller: &Caller,
        params: &ConsoleParams,
    ) -> Result<ConsoleRunList, ConsoleError> {
        admin(caller)?;
        let (filter, limit, offset) = params::parse(params)?;
        let page = self.store.console.list(&filter, limit, offset).await?;
        Ok(ConsoleRunList {
            runs: page.runs.into_iter().map(|r| console_run(r).0).collect(),
            total: page.total,
        })
    }

    /// One run with its timeline and its subagents' runs, each with theirs (admins only).
    pub async fn get(
        &self,
        caller: &Caller,
        run_id: &str,
    ) -> Result<ConsoleRunDetail, ConsoleError> {
        admin(caller)?;
        let id = uuid::Uuid::parse_str(run_id)
            .map_err(|_| ConsoleError::InvalidRunId(params::shown(run_id)))?
            .hyphenated()
            .to_string();
        let record = self
            .store
            .console
            .get(&id)
            .await?
            .ok_or_else(|| ConsoleError::NotFound(id.clone()))?;
        Ok(self.detail(record, MAX_DEPTH).await?)
    }

    /// `record` with its subagents' runs, `depth` levels down.
    fn detail(
        &self,
        record: ConsoleRecord,
        depth: usize,
    ) -> Pin<Box<dyn Future<Output = Result<ConsoleRunDetail, StoreError>> + Send + '_>> {
        Box::pin(async move {
            let children = if depth > 1 {
                self.store.console.children(&record.run.run_id).await?
            } else {
                Vec::new()
            };
            let mut subagents = Vec::with_capacity(children.len());
            for child in children {
                subagents.push(self.detail(child, depth - 1).await?);
            }
            let (run, timeline) = console_run(record);
            Ok(ConsoleRunDetail {
                run,
                timeline,
                subagents,
            })
        })
    }
}

fn admin(caller: &Caller) -> Result<(), ConsoleError> {
    if caller.is_admin() {
        Ok(())
    } else {
        Err(ConsoleError::Forbidden(
            "only admins may see everyone's runs".into(),
        ))
    }
}

/// What the console shows of `r`, and its timeline.
fn console_run(r: ConsoleRecord) -> (ConsoleRun, Vec<RunStep>) {
    let timeline = r.timeline.unwrap_or_default();
    let (tools, tool_errors) = tool_uses(&timeline);
    let run = r.run;
    let duration_ms = (!run.status.is_active())
        .then(|| u64::try_from((run.updated_at - run.created_at).num_milliseconds()).unwrap_or(0));
    let parent_run_id = run
        .metadata
        .get("parent_run_id")
        .and_then(|v| v.as_str())
        .map(str::to_string);
    let shown = ConsoleRun {
        run_id: run.run_id,
        thread_id: run.thread_id,
        user_id: run.owner,
        user_email: r.owner_email,
        assistant_id: run.assistant_id,
        status: run.status,
        stop_reason: run.stop_reason,
        error: run.error,
        created_at: timestamp(run.created_at),
        updated_at: timestamp(run.updated_at),
        duration_ms,
        models: r.models,
        usage: run.usage,
        tools,
        tool_errors,
        parent_run_id,
        feedback: r.feedback.into_iter().map(run_feedback).collect(),
    };
    (shown, timeline)
}

/// Feedback on a run as the console shows it.
fn run_feedback(f: antler_store::FeedbackRecord) -> antler_protocol::feedback::RunFeedback {
    antler_protocol::feedback::RunFeedback {
        user_id: f.owner,
        user_email: f.owner_email,
        rating: f.rating,
        comment: f.comment,
        created_at: timestamp(f.created_at),
        updated_at: timestamp(f.updated_at),
    }
}

/// The tools a timeline called, most called first (then by name), and its failed calls. A
/// subagent step is a call of the `task` tool.
fn tool_uses(timeline: &[RunStep]) -> (Vec<ToolUse>, u64) {
    let mut by_name: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for step in timeline {
        let name = match step.kind {
            RunStepKind::ModelCall => continue,
            RunStepKind::ToolCall => step.name.as_str(),
            RunStepKind::Subagent => "task",
        };
        let counts = by_name.entry(name).or_default();
        counts.0 += 1;
        if step.status == RunStepStatus::Error {
            counts.1 += 1;
        }
    }
    let mut tools: Vec<ToolUse> = by_name
        .into_iter()
        .map(|(name, (calls, errors))| ToolUse {
            name: name.to_string(),
            calls,
            errors,
        })
        .collect();
    tools.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.name.cmp(&b.name)));
    let errors = tools.iter().map(|t| t.errors).sum();
    (tools, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(kind: RunStepKind, name: &str, status: RunStepStatus) -> RunStep {
        RunStep {
            kind,
            name: name.into(),
            started_at: "2025-03-01T10:00:00.000Z".into(),
            duration_ms: 1,
            status,
            error: None,
            input_tokens: None,
            output_tokens: None,
            finish_reason: None,
            first_token_ms: None,
            tool_call_id: None,
            child_run_id: None,
        }
    }

    #[test]
    fn tools_count_calls_and_failures_with_subagents_as_task() {
        use RunStepKind::*;
        use RunStepStatus::*;
        let timeline = [
            step(ModelCall, "quick", Ok),
            step(ToolCall, "read_file", Ok),
            step(ToolCall, "bash", Error),
            step(ToolCall, "bash", Ok),
            step(Subagent, "general-purpose", Error),
            step(ToolCall, "bash", Cancelled),
        ];
        let (tools, errors) = tool_uses(&timeline);
        let got: Vec<(&str, u64, u64)> = tools
            .iter()
            .map(|t| (t.name.as_str(), t.calls, t.errors))
            .collect();
        assert_eq!(got, [("bash", 3, 1), ("read_file", 1, 0), ("task", 1, 1)]);
        assert_eq!(errors, 2);
    }
}
