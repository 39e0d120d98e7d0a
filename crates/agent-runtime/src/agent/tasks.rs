//! Subagents: the `task` tool. Each call is a child run of its own — a run record linked to
//! the parent (`metadata.parent_run_id`), its own message history, a system prompt and tool
//! subset for its type — working in the thread's sandbox. At most `max_concurrent` run at
//! once (later calls wait for a slot), at most `max_total` per run; each has a timeout and is
//! cancelled with its parent. Its events stream into the parent's as `task_event`s, between
//! `task_started` and the event saying how it ended; what it used counts for the parent too.

use antler_protocol::prompt_text::{Lines, escape, push_escaped};
use antler_protocol::stream::{TaskArtifact, TaskStatus};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use antler_protocol::messages::{HumanMessage, Message};
use antler_protocol::runs::{MultitaskStrategy, RunStatus, StopReason};
use antler_protocol::stream::{CustomEvent, StreamEvent, StreamMode, TaskEnd};
use antler_store::{RunRecord, RunUpdate};
use async_trait::async_trait;
use serde_json::json;

pub use super::task_pool::{ChildRuns, Tasks};
use super::task_pool::{Delegate, NOT_FOR_SUBAGENTS, Request, never_started};
pub(crate) use super::task_pool::{TASK, TaskTool, add_usage};
use super::{AgentRun, AgentState, McpTools};
use crate::config::AgentConfig;
use crate::profile::AgentProfile;
use crate::runs::log::EventLog;
use crate::tools::{ToolError, ToolOutput};

/// How a subagent's run ended.
enum Ending {
    Completed(String),
    Failed(String),
    Cancelled,
    TimedOut(u64),
}

/// What a subagent's run has of its own; the rest it takes from its parent's, field by field
/// in [`AgentRun::child`].
struct ChildParts<'c> {
    run_id: &'c str,
    log: &'c Arc<EventLog>,
    cancel: &'c tokio_util::sync::CancellationToken,
    cfg: &'c AgentConfig,
    profile: &'c AgentProfile,
    kind: &'c crate::config::SubagentType,
    mcp_tools: &'c Arc<McpTools>,
    span: &'c tracing::Span,
}

impl<'a> AgentRun<'a> {
    /// The run of one of this run's subagents. Every field is chosen here, none copied
    /// wholesale: a field added to runs must be decided for subagents too.
    fn child<'c>(&'c self, parts: ChildParts<'c>) -> AgentRun<'c>
    where
        'a: 'c,
    {
        AgentRun {
            run_id: parts.run_id,
            log: parts.log,
            cancel: parts.cancel,
            cfg: parts.cfg,
            profile: parts.profile,
            subagent: Some(parts.kind),
            mcp_tools: parts.mcp_tools,
            // The same thread, person, sandbox, skills, model and hooks.
            thread_id: self.thread_id,
            store: self.store,
            model: self.model,
            sandbox: self.sandbox,
            skills: self.skills,
            owner: self.owner,
            recent: self.recent,
            tools: self.tools,
            prompt_budget: self.prompt_budget,
            hooks: self.hooks,
            context: self.context,
            mcp: self.mcp,
            promote_top_k: self.promote_top_k,
            memory: self.memory,
            summary_model: self.summary_model,
            // Sources are numbered once for the whole run, so the lead agent's answer can
            // cite what its subagents read.
            web: self.web,
            sources: self.sources,
            span: parts.span,
            // Its history is its own, it keeps no plan, does not manage memory and cannot
            // delegate further.
            persist: false,
            plan_mode: false,
            memory_source: None,
            memory_tools: false,
            tasks: None,
        }
    }
}

#[async_trait]
impl Delegate for AgentRun<'_> {
    async fn run_subagent(
        &self,
        call_id: &str,
        task: &Request,
        pool: &Tasks,
    ) -> Result<ToolOutput, ToolError> {
        self.subagent_run(call_id, task, pool).await
    }
}

impl AgentRun<'_> {
    /// A subagent's whole run, its events streamed into this run's.
    async fn subagent_run(
        &self,
        call_id: &str,
        req: &Request,
        tasks: &Tasks,
    ) -> Result<ToolOutput, ToolError> {
        let child_id = uuid::Uuid::new_v4().to_string();
        let started = Instant::now();
        let now = chrono::Utc::now();
        let mut metadata = serde_json::Map::new();
        metadata.insert("parent_run_id".into(), json!(self.run_id));
        metadata.insert("task_id".into(), json!(call_id));
        metadata.insert("subagent_type".into(), json!(req.kind.name));
        metadata.insert("description".into(), json!(req.description));
        let record = RunRecord {
            run_id: child_id.clone(),
            thread_id: self.thread_id.to_string(),
            owner: self.owner.to_string(),
            assistant_id: self.profile.assistant_id.clone(),
            status: RunStatus::Running,
            stop_reason: None,
            error: None,
            multitask_strategy: MultitaskStrategy::Enqueue,
            metadata,
            kwargs: json!({"input": {"messages": [{"role": "user", "content": req.prompt}]}}),
            instance: tasks.instance.clone(),
            usage: antler_protocol::runs::RunUsage::default(),
            created_at: now,
            updated_at: now,
        };
        let modes: HashSet<StreamMode> = [StreamMode::Messages, StreamMode::Custom].into();
        let (log, writer) = EventLog::new(
            &child_id,
            modes,
            self.cfg.event_log_max_bytes,
            self.log.sink().clone(),
        );
        log.forward_to(self.log.clone(), call_id);
        // Cancellable by its id, and followed from memory, from the moment its record can be
        // seen.
        let cancel = self.cancel.child_token();
        let _registered = tasks
            .children
            .insert(&child_id, cancel.clone(), log.clone());
        if let Err(e) = self.store.runs.create(&record).await {
            let why = format!("the subagent could not start: {e}");
            never_started(
                self.log,
                call_id,
                CustomEvent::TaskFailed,
                Some(why.clone()),
            );
            return Err(ToolError::Model(why));
        }
        self.log
            .emit(&StreamEvent::Custom(&CustomEvent::TaskStarted {
                task_id: call_id.to_string(),
                run_id: child_id.clone(),
                description: req.description.clone(),
                subagent_type: req.kind.name.clone(),
            }));

        let mut profile = self.profile.clone();
        if let Some(allowed) = &req.kind.tools {
            let allowed: HashSet<String> = allowed
                .iter()
                .filter(|t| self.profile.allows_tool(t))
                .cloned()
                .collect();
            profile.tools = Some(allowed);
        }
        let cfg = crate::config::AgentConfig {
            max_model_calls: tasks.cfg.max_model_calls,
            ..self.cfg.clone()
        };
        let mcp_tools = Arc::new(self.mcp_tools.subset(|name| profile.allows_tool(name)));
        // Inside the `task` call's span (its future runs in it).
        let span = crate::telemetry::run_span(
            &child_id,
            self.thread_id,
            &req.kind.name,
            &self.profile.assistant_id,
        );
        let child = self.child(ChildParts {
            run_id: &child_id,
            log: &log,
            cancel: &cancel,
            cfg: &cfg,
            profile: &profile,
            kind: &req.kind,
            mcp_tools: &mcp_tools,
            span: &span,
        });
        let mut state = AgentState::default();
        let input = vec![Message::Human(HumanMessage {
            id: uuid::Uuid::new_v4().to_string(),
            content: req.prompt.clone(),
            ..Default::default()
        })];
        let limit = Duration::from_secs(tasks.cfg.timeout_secs);
        let numbered_before = self.sources.len();
        let outcome = {
            let run = child.run(&mut state, input);
            tokio::pin!(run);
            tokio::select! {
                outcome = &mut run => Some(outcome),
                () = tokio::time::sleep(limit) => {
                    // Stopped, not dropped: its commands in the sandbox are killed.
                    cancel.cancel();
                    let _ = run.await;
                    None
                }
            }
        };
        let ending = match outcome {
            None => Ending::TimedOut(limit.as_secs()),
            Some(o) => match o.status {
                RunStatus::Success => Ending::Completed(final_answer(&state.values.messages)),
                RunStatus::Interrupted => Ending::Cancelled,
                _ => Ending::Failed(
                    o.error
                        .unwrap_or_else(|| o.stop_reason.as_str().to_string()),
                ),
            },
        };
        let usage = state.total_usage();
        if let Ok(mut total) = tasks.usage.lock() {
            add_usage(&mut total, &usage);
        }
        let (status, stop_reason, error) = match &ending {
            Ending::Completed(_) => (RunStatus::Success, StopReason::Completed, None),
            Ending::Failed(e) => (RunStatus::Error, StopReason::Error, Some(e.clone())),
            Ending::Cancelled => (RunStatus::Interrupted, StopReason::Cancelled, None),
            Ending::TimedOut(s) => (
                RunStatus::Timeout,
                StopReason::Timeout,
                Some(format!("the subagent ran past its limit of {s}s")),
            ),
        };
        crate::telemetry::run_ended(&span, status, error.as_deref());
        let update = RunUpdate {
            status,
            stop_reason: Some(stop_reason),
            error: error.clone(),
            usage,
            metadata: None,
            timeline: Some(std::mem::take(&mut state.steps)),
        };
        // The subagent's own calls, under its own run id (its parent stores only its own).
        state
            .ledger
            .store(self.store, self.owner, &child_id, self.thread_id)
            .await;
        // A record left `running` would keep the thread busy: retried before giving up.
        for attempt in 1..=3u64 {
            match self.store.runs.update(&child_id, &update).await {
                Ok(_) => break,
                Err(e) if attempt == 3 => {
                    tracing::error!(run.id = %child_id, error = %e, "subagent run status could not be saved")
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100 * attempt)).await,
            }
        }
        log.emit(&StreamEvent::End);
        let _ = writer.await;
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let (kind, text) = match &ending {
            Ending::Completed(r) => (TaskStatus::Completed, r.clone()),
            Ending::Failed(e) => (
                TaskStatus::Failed,
                format!("Error: the subagent failed: {e}"),
            ),
            Ending::Cancelled => (
                TaskStatus::Cancelled,
                "Error: the subagent was cancelled".into(),
            ),
            Ending::TimedOut(s) => (
                TaskStatus::TimedOut,
                format!(
                    "Error: the subagent did not finish within {s}s (agent.subagents.timeout_secs)"
                ),
            ),
        };
        // The tool message keeps how it ended, for clients reading the history later.
        let artifact = json!({"task": TaskArtifact {
            status: kind,
            run_id: child_id.clone(),
            description: req.description.clone(),
            subagent_type: req.kind.name.clone(),
            duration_ms,
            usage,
            sources: self.sources.since(numbered_before),
        }});
        let end = TaskEnd {
            task_id: call_id.to_string(),
            run_id: child_id,
            result: match &ending {
                Ending::Completed(r) => Some(r.clone()),
                _ => None,
            },
            error,
            usage,
            duration_ms,
        };
        let completed = matches!(ending, Ending::Completed(_));
        let event = match ending {
            Ending::Completed(_) => CustomEvent::TaskCompleted(end),
            Ending::Failed(_) => CustomEvent::TaskFailed(end),
            Ending::Cancelled => CustomEvent::TaskCancelled(end),
            Ending::TimedOut(_) => CustomEvent::TaskTimedOut(end),
        };
        self.log.emit(&StreamEvent::Custom(&event));
        Ok(ToolOutput {
            is_error: !completed,
            artifact: Some(artifact),
            ..ToolOutput::text(text)
        })
    }

    /// Whether a subagent may call `name`.
    pub(super) fn subagent_may_call(&self, name: &str) -> bool {
        self.subagent.is_none() || !NOT_FOR_SUBAGENTS.contains(&name)
    }

    /// The subagent's part of the system prompt.
    pub(super) fn subagent_section(&self) -> Option<String> {
        let kind = self.subagent?;
        let mut section = format!(
            "<subagent type=\"{}\">\nYou are a subagent: the lead agent delegated one task to you. \
             Work on it alone — you cannot ask the person anything. Your final answer is returned \
             to the lead agent as the task's result: make it complete and self-contained, with \
             the paths of any files you wrote.",
            escape(&kind.name, Lines::One)
        );
        if !kind.system_prompt.trim().is_empty() {
            section.push('\n');
            push_escaped(&mut section, kind.system_prompt.trim(), Lines::Many);
        }
        section.push_str("\n</subagent>");
        Some(section)
    }
}

/// The subagent's last answer.
fn final_answer(messages: &[Message]) -> String {
    messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Ai(ai) if !ai.content.trim().is_empty() => Some(ai.content.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "(the subagent finished without an answer)".into())
}
