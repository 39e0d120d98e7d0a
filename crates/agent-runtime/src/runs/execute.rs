//! Executing a run: its turn, the agent loop with a deadline, and the ending (state, record,
//! `error` and `end` events).

use std::sync::Arc;
use std::time::Duration;

use antler_protocol::messages::Message;
use antler_protocol::runs::{RunStatus, StopReason};
use antler_protocol::stream::{RunErrorKind, RunFailure, StreamEvent};
use antler_protocol::threads::{ThreadStatus, ThreadValues};
use antler_store::RunUpdate;
use serde_json::{Map, Value};

use super::active::{ActiveRun, RunError};
use super::manager::{RunManager, lock};
use super::queue::ThreadQueue;
use crate::agent::{AgentRun, AgentState, McpTools, Outcome};
use crate::checkpoints::{Checkpointing, Head, Source};
use crate::model::ModelClient;
use crate::profile::AgentProfile;
use crate::tools::SandboxHandle;

/// What a run starts from.
#[derive(Debug)]
pub(super) struct Start {
    /// Its new messages.
    pub input: Vec<Message>,
    /// The checkpoint it continues (a new branch); the thread's newest when `None`.
    pub checkpoint: Option<String>,
    /// Metadata each of its checkpoints carries (`run_id`, `assistant_id`, …).
    pub context: Map<String, Value>,
    /// The agent it is.
    pub profile: AgentProfile,
    /// Plan mode (configuration or `context.plan_mode`).
    pub plan_mode: bool,
    /// Subagents offered (`context.subagent_enabled: false` turns them off for the run).
    pub subagents: bool,
    /// What it remembers about the person.
    pub memory: Vec<crate::memory::RememberedFact>,
    /// When it was created, as stored (its place among the thread's runs on every replica).
    pub created_at: chrono::DateTime<chrono::Utc>,
    /// Runs it cancelled with `multitask_strategy: rollback`: deleted with everything they
    /// wrote once they have stopped, before it starts.
    pub rollback: Vec<String>,
    /// Its span: the parent of its model and tool calls' spans, given explicitly (the run's
    /// task is not polled inside it, which would cost every streamed chunk).
    pub span: tracing::Span,
}

impl RunManager {
    pub(super) async fn execute(
        self: Arc<Self>,
        run: Arc<ActiveRun>,
        queue: Arc<ThreadQueue>,
        mut start: Start,
        model: Option<ModelClient>,
        writer: tokio::task::JoinHandle<()>,
    ) {
        let turn = self.wait_turn(&run, &queue, start.created_at).await;
        let mut state = AgentState {
            awaiting_first_token: Some(std::time::Instant::now()),
            ..AgentState::default()
        };
        // False when the stored history could not be read: nothing may be saved over it.
        let mut history_read = true;
        let rolled_back = match run.cancel.is_cancelled() {
            true => Ok(()),
            false => self.roll_back(&run, &start.rollback).await,
        };
        let outcome = if run.cancel.is_cancelled() {
            Outcome::interrupted()
        } else if let Err(e) = rolled_back {
            self.set_running(&run).await;
            // Nothing may be saved over a history whose rollback did not happen.
            history_read = false;
            Outcome::failed(e.to_string())
        } else {
            self.set_running(&run).await;
            match self.load_base(&run, start.checkpoint.as_deref()).await {
                Ok((values, head)) => {
                    // As loaded: the run's end saves a checkpoint only when they changed.
                    state.saved = Some(values.to_value());
                    state.values = values;
                    state.head = head;
                    let input = std::mem::take(&mut start.input);
                    self.run_agent(&run, &mut state, input, &start, model.as_ref())
                        .await
                }
                Err(e) => {
                    history_read = false;
                    Outcome::failed(e.to_string())
                }
            }
        };
        let suggesting = self.start_suggestions(&run, &state, &outcome, model.as_ref());
        self.finish(&run, &mut state, &start, outcome, history_read)
            .await;
        // The thread is free before `end` goes out: a client that saw `end` may start the
        // next run at once without meeting a conflict.
        drop(turn);
        lock(&queue.runs).retain(|r| r.run_id != run.run_id);
        // Never waited for: sent here only when already written (else the thread's stream).
        if let Some(event) = suggesting.as_ref().and_then(crate::suggestions::Job::ready) {
            run.log.emit(&StreamEvent::Custom(&event));
        }
        run.log.emit(&StreamEvent::End);
        let _ = writer.await;
        lock(&self.active).remove(&run.run_id);
        self.drop_queue_if_idle(&run.thread_id, &queue, 1);
        run.mark_finished();
    }

    /// Deletes the runs `run` rolls back, once they have stopped (wherever they ran), with
    /// their events and checkpoints: the thread is as it was before them.
    async fn roll_back(&self, run: &ActiveRun, runs: &[String]) -> Result<(), RunError> {
        if runs.is_empty() {
            return Ok(());
        }
        for id in runs {
            self.wait_finished(&run.thread_id, id).await;
        }
        self.deps
            .store
            .state
            .roll_back(&run.thread_id, runs)
            .await?;
        tracing::info!(run.id = %run.run_id, thread.id = %run.thread_id, rolled_back = runs.len(), "runs rolled back");
        Ok(())
    }

    async fn set_running(&self, run: &ActiveRun) {
        let running = RunUpdate {
            status: RunStatus::Running,
            stop_reason: None,
            error: None,
            usage: antler_protocol::runs::RunUsage::default(),
            metadata: None,
            timeline: None,
        };
        if let Err(e) = self.deps.store.runs.update(&run.run_id, &running).await {
            tracing::warn!(run.id = %run.run_id, error = %e, "run status could not be saved");
        }
    }

    /// The values and branch head the run continues: the named checkpoint's, or the
    /// thread's newest; an error (never an empty history) when they cannot be read.
    async fn load_base(
        &self,
        run: &ActiveRun,
        checkpoint: Option<&str>,
    ) -> Result<(ThreadValues, Head), RunError> {
        let store = &self.deps.store;
        let thread = store
            .threads
            .get(&run.owner, &run.thread_id)
            .await?
            .ok_or_else(|| RunError::NotFound(format!("no thread '{}'", run.thread_id)))?;
        if let Some(id) = checkpoint {
            let record = store
                .state
                .get(&run.thread_id, id)
                .await?
                .ok_or_else(|| RunError::NotFound(format!("no checkpoint '{id}'")))?;
            return Ok((stored_values(&record.state)?, Head::at(&record)));
        }
        let head = store
            .state
            .head(&run.thread_id)
            .await?
            .map(|record| Head::at(&record))
            .unwrap_or_default();
        Ok((stored_values(&thread.values)?, head))
    }

    /// Runs the agent loop with a deadline and the thread's sandbox.
    async fn run_agent(
        &self,
        run: &Arc<ActiveRun>,
        state: &mut AgentState,
        input: Vec<Message>,
        start: &Start,
        model: Option<&ModelClient>,
    ) -> Outcome {
        let deadline = {
            let run = run.clone();
            let limit = Duration::from_secs(self.deps.cfg.run_timeout_secs);
            tokio::spawn(async move {
                tokio::time::sleep(limit).await;
                run.cancel(StopReason::Timeout);
            })
        };
        let mut sandbox = SandboxHandle::new(self.deps.sandbox.clone(), &run.thread_id)
            .with_owner(&run.owner)
            .with_image(start.profile.sandbox_image.as_deref())
            .with_network(start.profile.sandbox_network.as_ref());
        if let Some(source) = &self.deps.secrets {
            let set = source.current().await;
            if !set.is_empty() {
                sandbox = sandbox.with_secrets(Arc::new(crate::secrets::RunSecrets::new(
                    set,
                    &start.profile.assistant_id,
                    &start.profile.secrets,
                )));
            }
        }
        // MCP servers start on the first run that needs their tools.
        let mut mcp_tools = McpTools::default();
        if let Some(hub) = &self.deps.mcp {
            let launcher = crate::tools::SandboxLauncher(&sandbox);
            let mut offered = hub.tools(Some(&launcher)).await;
            offered.retain(|t| start.profile.allows_tool(&t.model_name));
            mcp_tools = McpTools::new(offered, &self.deps.mcp_search);
        }
        let mcp_tools = Arc::new(mcp_tools);
        let mut snapshot = self.deps.skills.snapshot_for(&run.owner).await;
        if let Some(names) = &start.profile.skills {
            snapshot = Arc::new(snapshot.only(names));
        }
        let tasks = (self.deps.cfg.subagents.enabled && start.subagents).then(|| {
            Arc::new(crate::agent::Tasks::new(
                &self.deps.cfg.subagents,
                &self.deps.instance,
                &start.profile.subagent_types,
                self.children.clone(),
            ))
        });
        let sources = Arc::new(crate::tools::web::RunSources::default());
        let agent = AgentRun {
            span: &start.span,
            run_id: &run.run_id,
            thread_id: &run.thread_id,
            store: &self.deps.store,
            log: &run.log,
            cancel: &run.cancel,
            model,
            sandbox: &sandbox,
            skills: &snapshot,
            owner: &run.owner,
            recent: &self.recent,
            tools: &self.tools,
            cfg: &self.deps.cfg,
            prompt_budget: self.deps.prompt_budget,
            hooks: &self.hooks,
            context: &start.context,
            profile: &start.profile,
            mcp: self.deps.mcp.as_ref(),
            mcp_tools: &mcp_tools,
            promote_top_k: self.deps.mcp_search.auto_promote_top_k,
            plan_mode: start.plan_mode,
            memory: &start.memory,
            memory_source: self.deps.memory.as_ref(),
            memory_tools: start.profile.memory_tools.unwrap_or(self.deps.memory_tools),
            summary_model: self
                .deps
                .cfg
                .summarization
                .model
                .as_deref()
                .and_then(|name| self.deps.models.iter().find(|m| m.config().name == name)),
            persist: true,
            subagent: None,
            tasks: tasks.as_ref(),
            web: self.deps.web.as_ref(),
            sources: &sources,
        };
        let outcome = agent.run(state, input).await;
        state.sources = sources.list();
        deadline.abort();
        sandbox.release().await;
        outcome
    }

    /// The run's metadata with its web sources added under `sources` (API clients read
    /// them there), or `None` when it has none.
    async fn metadata_with_sources(
        &self,
        run: &ActiveRun,
        sources: &[antler_protocol::web::WebSource],
    ) -> Option<serde_json::Map<String, Value>> {
        if sources.is_empty() {
            return None;
        }
        let record = match self.deps.store.runs.get(&run.thread_id, &run.run_id).await {
            Ok(Some(r)) => r,
            Ok(None) => return None,
            Err(e) => {
                tracing::warn!(run.id = %run.run_id, error = %e, "run metadata could not be read; its sources are not kept there");
                return None;
            }
        };
        let mut metadata = record.metadata;
        metadata.insert("sources".into(), serde_json::to_value(sources).ok()?);
        Some(metadata)
    }

    /// Stores the final state and record, and sends `error` unless it succeeded. The record
    /// is final before `end` goes out, so a client that saw `end` reads the final status.
    async fn finish(
        &self,
        run: &ActiveRun,
        state: &mut AgentState,
        start: &Start,
        outcome: Outcome,
        history_read: bool,
    ) {
        let context = &start.context;
        let store = &self.deps.store;
        let (status, stop_reason) = match (outcome.status, run.reason()) {
            (RunStatus::Interrupted, Some(StopReason::Timeout)) => {
                (RunStatus::Timeout, StopReason::Timeout)
            }
            (
                RunStatus::Interrupted,
                Some(r @ (StopReason::Disconnected | StopReason::Interrupted)),
            ) => (RunStatus::Interrupted, r),
            (s, _) => (s, outcome.stop_reason),
        };
        let thread_status = match status {
            // A question waits for its answer: the thread is interrupted, as LangGraph's.
            RunStatus::Success if !state.values.interrupts.is_empty() => ThreadStatus::Interrupted,
            RunStatus::Success => ThreadStatus::Idle,
            RunStatus::Error => ThreadStatus::Error,
            _ => ThreadStatus::Interrupted,
        };
        let values = state.values.to_value();
        // What changed after the last checkpoint (a title, a stopped run's repairs) is one
        // more; otherwise only the status changes.
        if history_read && state.saved.as_ref() != Some(&values) {
            let saving = Checkpointing {
                thread_id: &run.thread_id,
                run_id: Some(&run.run_id),
                context,
            };
            if let Err(e) = saving
                .save(
                    store,
                    &mut state.head,
                    &values,
                    thread_status,
                    Source::Loop,
                    Value::Null,
                )
                .await
            {
                tracing::error!(run.id = %run.run_id, error = %e, "final thread state could not be saved");
            }
        } else {
            let _ = store.state.set_status(&run.thread_id, thread_status).await;
        }
        if status != RunStatus::Success {
            let message = match (status, &outcome.error) {
                (_, Some(m)) => m.clone(),
                (RunStatus::Timeout, None) => format!(
                    "The run exceeded its time limit of {}s.",
                    self.deps.cfg.run_timeout_secs
                ),
                _ => "The run was cancelled.".into(),
            };
            let kind = match status {
                RunStatus::Timeout => RunErrorKind::TimeoutError,
                RunStatus::Interrupted => RunErrorKind::CancelledError,
                _ => RunErrorKind::AgentError,
            };
            run.log
                .emit(&StreamEvent::Error(&RunFailure::new(kind, message)));
        }
        let total = state.total_usage();
        let update = RunUpdate {
            status,
            stop_reason: Some(stop_reason),
            error: if status == RunStatus::Success {
                None
            } else {
                outcome
                    .error
                    .clone()
                    .or_else(|| Some(stop_reason.as_str().to_string()))
            },
            usage: total,
            metadata: self.metadata_with_sources(run, &state.sources).await,
            timeline: Some(std::mem::take(&mut state.steps)),
        };
        let seconds = (chrono::Utc::now() - start.created_at)
            .to_std()
            .unwrap_or_default()
            .as_secs_f64();
        crate::telemetry::run_finished(&start.span, status, update.error.as_deref(), seconds);
        // Stored whatever the ending: a failed or cancelled run's calls were paid for too.
        state
            .ledger
            .store(store, &run.owner, &run.run_id, &run.thread_id)
            .await;
        if let Err(e) = store.runs.update(&run.run_id, &update).await {
            tracing::error!(run.id = %run.run_id, error = %e, "run status could not be saved");
        }
        if status == RunStatus::Success
            && let Some(memory) = &self.deps.memory
        {
            memory.turn_ended(&run.owner, &run.thread_id, start.profile.memory_scope());
        }
        tracing::info!(run.id = %run.run_id, thread.id = %run.thread_id, %status, %stop_reason, model_calls = total.model_calls, "run finished");
    }
}

/// Stored thread values, or an error naming the problem (the run must not start over an
/// unreadable history: its first save would replace it).
pub(super) fn stored_values(values: &serde_json::Value) -> Result<ThreadValues, RunError> {
    ThreadValues::from_value(values).map_err(|e| {
        tracing::error!(error = %e, "stored thread values do not parse");
        RunError::Unreadable(
            "the thread's stored history could not be read; it was left untouched".into(),
        )
    })
}
