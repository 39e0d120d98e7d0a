//! Executing a run: its turn, the agent loop with a deadline, and the ending (state, record,
//! `error` and `end` events).

use std::sync::Arc;
use std::time::Duration;

use antler_protocol::messages::Message;
use antler_protocol::runs::{RunStatus, StopReason};
use antler_protocol::stream::{RunErrorKind, RunFailure, StreamEvent};
use antler_protocol::threads::{ThreadStatus, ThreadValues};
use antler_store::RunUpdate;

use super::active::{ActiveRun, RunError};
use super::manager::{RunManager, lock};
use super::queue::ThreadQueue;
use crate::agent::{AgentRun, AgentState, Outcome};
use crate::model::ModelClient;
use crate::tools::SandboxHandle;

impl RunManager {
    pub(super) async fn execute(
        self: Arc<Self>,
        run: Arc<ActiveRun>,
        queue: Arc<ThreadQueue>,
        input: Vec<Message>,
        model: Option<ModelClient>,
        writer: tokio::task::JoinHandle<()>,
    ) {
        let turn = self.wait_turn(&run, &queue).await;
        let mut state = AgentState::default();
        // False when the stored history could not be read: nothing may be saved over it.
        let mut history_read = true;
        let outcome = if run.cancel.is_cancelled() {
            Outcome::interrupted()
        } else {
            self.set_running(&run).await;
            match self.load_values(&run).await {
                Ok(values) => {
                    state.values = values;
                    self.run_agent(&run, &mut state, input, model.as_ref())
                        .await
                }
                Err(e) => {
                    history_read = false;
                    Outcome::failed(e.to_string())
                }
            }
        };
        self.finish(&run, &state, outcome, history_read).await;
        // The thread is free before `end` goes out: a client that saw `end` may start the
        // next run at once without meeting a conflict.
        drop(turn);
        lock(&queue.runs).retain(|r| r.run_id != run.run_id);
        run.log.emit(&StreamEvent::End);
        let _ = writer.await;
        lock(&self.active).remove(&run.run_id);
        self.drop_queue_if_idle(&run.thread_id, &queue, 1);
        run.mark_finished();
    }

    async fn set_running(&self, run: &ActiveRun) {
        let running = RunUpdate {
            status: RunStatus::Running,
            stop_reason: None,
            error: None,
            input_tokens: 0,
            output_tokens: 0,
            model_calls: 0,
        };
        if let Err(e) = self.deps.store.runs.update(&run.run_id, &running).await {
            tracing::warn!(run.id = %run.run_id, error = %e, "run status could not be saved");
        }
    }

    /// The thread's stored values; an error (never an empty history) when they cannot be
    /// read.
    async fn load_values(&self, run: &ActiveRun) -> Result<ThreadValues, RunError> {
        let thread = self
            .deps
            .store
            .threads
            .get(&run.owner, &run.thread_id)
            .await?
            .ok_or_else(|| RunError::NotFound(format!("no thread '{}'", run.thread_id)))?;
        stored_values(&thread.values)
    }

    /// Runs the agent loop with a deadline and the thread's sandbox.
    async fn run_agent(
        &self,
        run: &Arc<ActiveRun>,
        state: &mut AgentState,
        input: Vec<Message>,
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
        let sandbox =
            SandboxHandle::new(self.deps.sandbox.clone(), &run.thread_id).with_owner(&run.owner);
        let snapshot = self.deps.skills.snapshot_for(&run.owner).await;
        let agent = AgentRun {
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
        };
        let outcome = agent.run(state, input).await;
        deadline.abort();
        sandbox.release().await;
        outcome
    }

    /// Stores the final state and record, and sends `error` unless it succeeded. The record
    /// is final before `end` goes out, so a client that saw `end` reads the final status.
    async fn finish(
        &self,
        run: &ActiveRun,
        state: &AgentState,
        outcome: Outcome,
        history_read: bool,
    ) {
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
            RunStatus::Success => ThreadStatus::Idle,
            RunStatus::Error => ThreadStatus::Error,
            _ => ThreadStatus::Interrupted,
        };
        if history_read && (!state.values.messages.is_empty() || status == RunStatus::Success) {
            if let Err(e) = store
                .state
                .save(
                    &run.thread_id,
                    &state.values.to_value(),
                    thread_status,
                    Some(&run.run_id),
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
            input_tokens: state.usage.input_tokens,
            output_tokens: state.usage.output_tokens,
            model_calls: state.usage.model_calls,
        };
        if let Err(e) = store.runs.update(&run.run_id, &update).await {
            tracing::error!(run.id = %run.run_id, error = %e, "run status could not be saved");
        }
        tracing::info!(run.id = %run.run_id, thread.id = %run.thread_id, %status, %stop_reason, model_calls = state.usage.model_calls, "run finished");
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
