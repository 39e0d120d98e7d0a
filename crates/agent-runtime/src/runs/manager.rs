//! The run manager: creates runs (multitask strategies `reject`, `interrupt`, `enqueue`),
//! executes them one after another per thread, cancels them, and recovers after a restart.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use antler_protocol::messages::Message;
use antler_protocol::runs::{
    IfNotExists, MultitaskStrategy, OnDisconnect, RunCreate, RunStatus, RunUsage, StopReason,
};
use antler_protocol::stream::{RunErrorKind, RunFailure, RunMetadata, StreamEvent, StreamMode};
use antler_protocol::threads::{ThreadStatus, ThreadValues};
use antler_sandbox::SandboxProvider;
use antler_skills::Catalog;
use antler_store::{RunRecord, RunUpdate, Store};
use chrono::Utc;
use serde_json::{Map, json};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::log::EventLog;
use crate::agent::{AgentRun, Outcome};
use crate::config::AgentConfig;
use crate::hooks::{AgentState, Hook, pipeline};
use crate::messages::parse_input;
use crate::model::ModelClient;
use crate::tools::SandboxHandle;

/// Why a run request was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// Unknown thread or run.
    #[error("{0}")]
    NotFound(String),
    /// The thread is busy (`reject`), or the run is not active.
    #[error("{0}")]
    Conflict(String),
    /// The request is malformed.
    #[error("{0}")]
    Invalid(String),
    /// The thread's stored history does not parse (it is left as it is).
    #[error("{0}")]
    Unreadable(String),
    /// Storage failed.
    #[error("{0}")]
    Internal(String),
}

impl From<antler_store::StoreError> for RunError {
    fn from(e: antler_store::StoreError) -> Self {
        tracing::error!(error = %e, "run storage failed");
        RunError::Internal("the run could not be stored".into())
    }
}

/// A run executing (or waiting its turn) in this process.
pub struct ActiveRun {
    /// Run id.
    pub run_id: String,
    /// Thread id.
    pub thread_id: String,
    /// The thread's owner.
    pub owner: String,
    /// Its events.
    pub log: Arc<EventLog>,
    /// `cancel` (default) or `continue` when the streaming client goes away.
    pub on_disconnect_cancel: bool,
    cancel: CancellationToken,
    reason: Mutex<Option<StopReason>>,
    finished: watch::Sender<bool>,
}

impl std::fmt::Debug for ActiveRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActiveRun")
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

impl ActiveRun {
    /// Stops the run (model stream and running command at once), recording why.
    pub fn cancel(&self, reason: StopReason) {
        if let Ok(mut r) = self.reason.lock()
            && r.is_none()
        {
            *r = Some(reason);
        }
        self.cancel.cancel();
    }

    /// Resolves when the run has ended and everything is stored.
    pub async fn finished(&self) {
        let mut rx = self.finished.subscribe();
        let _ = rx.wait_for(|done| *done).await;
    }

    fn reason(&self) -> Option<StopReason> {
        self.reason.lock().ok().and_then(|r| *r)
    }
}

#[derive(Default)]
struct ThreadQueue {
    /// Held by the executing run; tokio's mutex is fair, so runs go in creation order.
    turn: tokio::sync::Mutex<()>,
    /// Runs pending or running, oldest first.
    runs: Mutex<Vec<Arc<ActiveRun>>>,
}

/// Everything the manager works with.
pub struct RuntimeDeps {
    /// Persistence.
    pub store: Store,
    /// Skills.
    pub catalog: Arc<Catalog>,
    /// Sandboxes.
    pub sandbox: Arc<dyn SandboxProvider>,
    /// Agent limits.
    pub cfg: AgentConfig,
    /// Configured models (first is the default unless `cfg.default_model`).
    pub models: Vec<ModelClient>,
    /// Skills section budget.
    pub prompt_budget: usize,
    /// This server's id (stored with runs).
    pub instance: String,
}

/// The run manager.
pub struct Runtime {
    deps: RuntimeDeps,
    hooks: Vec<Box<dyn Hook>>,
    active: Mutex<HashMap<String, Arc<ActiveRun>>>,
    threads: Mutex<HashMap<String, Arc<ThreadQueue>>>,
}

/// How often an instance says it is alive.
const HEARTBEAT: Duration = Duration::from_secs(2);
/// An instance silent this long is considered dead.
const DEAD_AFTER: Duration = Duration::from_secs(10);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Runtime {
    /// A manager over `deps`.
    pub fn new(deps: RuntimeDeps) -> Arc<Self> {
        Arc::new(Runtime {
            deps,
            hooks: pipeline(),
            active: Mutex::new(HashMap::new()),
            threads: Mutex::new(HashMap::new()),
        })
    }

    /// The dependencies.
    pub fn deps(&self) -> &RuntimeDeps {
        &self.deps
    }

    /// Marks runs left running by a previous process of this instance as interrupted.
    pub async fn recover(&self) -> Result<usize, RunError> {
        let runs = self
            .deps
            .store
            .runs
            .interrupt_active(Some(&self.deps.instance), StopReason::ServerRestart)
            .await?;
        for r in &runs {
            tracing::warn!(run.id = %r.run_id, thread.id = %r.thread_id, "run interrupted by a server restart");
        }
        Ok(runs.len())
    }

    /// A run of this process, if it is still active.
    pub fn active(&self, run_id: &str) -> Option<Arc<ActiveRun>> {
        lock(&self.active).get(run_id).cloned()
    }

    /// The model for a run: `configurable.model_name` (in `config` or `context`), else the
    /// default.
    fn model_for(&self, req: &RunCreate) -> Result<Option<ModelClient>, RunError> {
        let asked = req
            .config
            .as_ref()
            .and_then(|c| c.get("configurable"))
            .and_then(|c| c.get("model_name"))
            .or_else(|| req.context.as_ref().and_then(|c| c.get("model_name")))
            .and_then(serde_json::Value::as_str);
        let models = &self.deps.models;
        match asked {
            Some(name) => models
                .iter()
                .find(|m| m.config().name == name)
                .cloned()
                .map(Some)
                .ok_or_else(|| RunError::Invalid(format!("no model named '{name}' is configured"))),
            None => Ok(
                match self
                    .deps
                    .cfg
                    .default_model
                    .as_deref()
                    .filter(|n| !n.is_empty())
                {
                    Some(name) => models.iter().find(|m| m.config().name == name).cloned(),
                    None => models.first().cloned(),
                },
            ),
        }
    }

    /// Creates a run and starts it (it waits for earlier runs of the thread when enqueued).
    /// Also answers the record as created (`pending`): the stored one may already have moved
    /// on by the time the caller reads it.
    pub async fn create(
        self: &Arc<Self>,
        owner: &str,
        thread_id: &str,
        req: RunCreate,
    ) -> Result<(Arc<ActiveRun>, RunRecord), RunError> {
        let store = &self.deps.store;
        let thread = store.threads.get(owner, thread_id).await?;
        if thread.is_none() {
            if req.if_not_exists == Some(IfNotExists::Create) {
                store.threads.create(owner, thread_id, Map::new()).await?;
            } else {
                return Err(RunError::NotFound(format!("no thread '{thread_id}'")));
            }
        }
        if req.assistant_id.trim().is_empty() {
            return Err(RunError::Invalid("assistant_id is required".into()));
        }
        let input = parse_input(req.input.as_ref()).map_err(RunError::Invalid)?;
        // No input retries the thread's last message when it has no answer (its run failed
        // or was stopped before the model replied).
        let unanswered = || -> Result<bool, RunError> {
            Ok(match &thread {
                Some(t) => matches!(
                    stored_values(&t.values)?.messages.last(),
                    Some(Message::Human(_))
                ),
                None => false,
            })
        };
        if input.is_empty() && !unanswered()? {
            return Err(RunError::Invalid(
                "input.messages must hold at least one user message (a run without input only retries a thread whose last message has no answer)".into(),
            ));
        }
        let modes: HashSet<StreamMode> = req
            .stream_mode
            .as_ref()
            .map_or_else(|| vec![StreamMode::Values], |m| m.modes())
            .into_iter()
            .collect();
        let strategy = req.multitask_strategy.unwrap_or_default();
        let on_disconnect_cancel = req.on_disconnect != Some(OnDisconnect::Continue);
        let model = self.model_for(&req)?;

        let run_id = uuid::Uuid::new_v4().to_string();
        let (log, writer) = EventLog::new(
            &run_id,
            modes,
            self.deps.cfg.event_log_max_bytes,
            store.clone(),
        );
        let run = Arc::new(ActiveRun {
            run_id: run_id.clone(),
            thread_id: thread_id.to_string(),
            owner: owner.to_string(),
            log,
            on_disconnect_cancel,
            cancel: CancellationToken::new(),
            reason: Mutex::new(None),
            finished: watch::channel(false).0,
        });
        // Runs of this thread on other replicas count like local ones.
        let remote = self.remote_active(thread_id).await?;
        if let Some(current) = remote.first() {
            match strategy {
                MultitaskStrategy::Reject => {
                    return Err(busy(thread_id, &current.run_id));
                }
                MultitaskStrategy::Interrupt => {
                    for r in &remote {
                        store
                            .bus
                            .publish(antler_store::Topic::RunCancel, &r.run_id)
                            .await?;
                    }
                }
                MultitaskStrategy::Enqueue => {}
            }
        }
        let queue = lock(&self.threads)
            .entry(thread_id.to_string())
            .or_default()
            .clone();
        {
            let mut runs = lock(&queue.runs);
            if let Some(current) = runs.first() {
                match strategy {
                    MultitaskStrategy::Reject => {
                        return Err(busy(thread_id, &current.run_id));
                    }
                    MultitaskStrategy::Interrupt => {
                        for r in runs.iter() {
                            r.cancel(StopReason::Interrupted);
                        }
                    }
                    MultitaskStrategy::Enqueue => {}
                }
            }
            runs.push(run.clone());
        }
        let now = Utc::now();
        let kwargs = json!({
            "input": req.input,
            "stream_mode": req.stream_mode,
            "config": req.config,
            "context": req.context,
            "on_disconnect": req.on_disconnect,
        });
        let record = RunRecord {
            run_id: run_id.clone(),
            thread_id: thread_id.to_string(),
            owner: owner.to_string(),
            assistant_id: req.assistant_id.clone(),
            status: RunStatus::Pending,
            stop_reason: None,
            error: None,
            multitask_strategy: strategy,
            metadata: req.metadata.clone().unwrap_or_default(),
            kwargs,
            instance: self.deps.instance.clone(),
            input_tokens: 0,
            output_tokens: 0,
            model_calls: 0,
            created_at: now,
            updated_at: now,
        };
        if let Err(e) = store.runs.create(&record).await {
            lock(&queue.runs).retain(|r| r.run_id != run_id);
            return Err(e.into());
        }
        run.log.emit(&StreamEvent::Metadata(&RunMetadata {
            run_id: run_id.clone(),
            thread_id: thread_id.to_string(),
            attempt: 1,
        }));
        lock(&self.active).insert(run_id.clone(), run.clone());
        let this = self.clone();
        let task_run = run.clone();
        tokio::spawn(async move {
            this.execute(task_run, queue, input, model, writer).await;
        });
        Ok((run, record))
    }

    async fn execute(
        self: Arc<Self>,
        run: Arc<ActiveRun>,
        queue: Arc<ThreadQueue>,
        input: Vec<Message>,
        model: Option<ModelClient>,
        writer: tokio::task::JoinHandle<()>,
    ) {
        let store = &self.deps.store;
        // A cancelled queued run stops waiting for its turn at once.
        let turn = tokio::select! {
            turn = queue.turn.lock() => Some(turn),
            () = run.cancel.cancelled() => None,
        };
        // Wait for older runs of this thread on other replicas (enqueue, or an interrupt in
        // progress). Only older ones: two replicas' queued runs never wait for each other.
        let mine = store
            .runs
            .get(&run.thread_id, &run.run_id)
            .await
            .ok()
            .flatten()
            .map(|r| (r.created_at, r.run_id));
        let mut notices = store.bus.subscribe();
        while !run.cancel.is_cancelled()
            && self
                .remote_active(&run.thread_id)
                .await
                .unwrap_or_default()
                .iter()
                .any(|r| {
                    mine.as_ref()
                        .is_none_or(|m| (r.created_at, &r.run_id) < (m.0, &m.1))
                })
        {
            tokio::select! {
                () = super::notices::stored_events(&mut notices, None, Duration::from_millis(300)) => {}
                () = run.cancel.cancelled() => {}
            }
        }
        let mut state = AgentState::default();
        // False when the stored history could not be read: nothing may be saved over it.
        let mut history_read = true;
        let outcome = if run.cancel.is_cancelled() {
            Outcome::interrupted()
        } else {
            let _ = store
                .runs
                .update(
                    &run.run_id,
                    &RunUpdate {
                        status: RunStatus::Running,
                        stop_reason: None,
                        error: None,
                        input_tokens: 0,
                        output_tokens: 0,
                        model_calls: 0,
                    },
                )
                .await;
            match self.load_values(&run).await {
                Ok(values) => {
                    state.values = values;
                    self.run_agent(&run, &mut state, input, model.as_ref())
                        .await
                }
                Err(e) => {
                    history_read = false;
                    Outcome::stop(RunStatus::Error, StopReason::Error, Some(e.to_string()))
                }
            }
        };
        self.finish(&run, &queue, turn, writer, state, outcome, history_read)
            .await;
    }

    /// The thread's stored values; an error (never an empty history) when they cannot be read.
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
        let sandbox = SandboxHandle::new(self.deps.sandbox.clone(), &run.thread_id);
        let snapshot = self.deps.catalog.snapshot();
        let agent = AgentRun {
            run_id: &run.run_id,
            thread_id: &run.thread_id,
            store: &self.deps.store,
            log: &run.log,
            cancel: &run.cancel,
            model,
            sandbox: &sandbox,
            skills: &snapshot,
            cfg: &self.deps.cfg,
            prompt_budget: self.deps.prompt_budget,
            hooks: &self.hooks,
        };
        let outcome = agent.run(state, input).await;
        deadline.abort();
        sandbox.release().await;
        outcome
    }

    /// Stores the final state and record, sends `error` (unless it succeeded) and `end`,
    /// and frees the thread.
    #[expect(clippy::too_many_arguments, reason = "the pieces of one run's ending")]
    async fn finish(
        &self,
        run: &ActiveRun,
        queue: &Arc<ThreadQueue>,
        turn: Option<tokio::sync::MutexGuard<'_, ()>>,
        writer: tokio::task::JoinHandle<()>,
        state: AgentState,
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
        // The record is final before `end` goes out, so a client that saw `end` reads the final
        // status; joiners keep reading from memory until the events are all stored.
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
        // The thread is free before `end` goes out: a client that saw `end` may start the next
        // run at once without meeting a conflict.
        drop(turn);
        lock(&queue.runs).retain(|r| r.run_id != run.run_id);
        run.log.emit(&StreamEvent::End);
        let _ = writer.await;
        tracing::info!(run.id = %run.run_id, thread.id = %run.thread_id, %status, %stop_reason, model_calls = state.usage.model_calls, "run finished");
        lock(&self.active).remove(&run.run_id);
        {
            let mut threads = lock(&self.threads);
            if lock(&queue.runs).is_empty() && Arc::strong_count(queue) <= 2 {
                threads.remove(&run.thread_id);
            }
        }
        run.finished.send_replace(true);
    }

    /// Cancels an active run (here, or on another replica through the bus); `wait` returns
    /// once it has stopped.
    pub async fn cancel(
        &self,
        thread_id: &str,
        run_id: &str,
        wait: bool,
    ) -> Result<RunRecord, RunError> {
        let store = &self.deps.store;
        let record = store.runs.get(thread_id, run_id).await?.ok_or_else(|| {
            RunError::NotFound(format!("no run '{run_id}' in thread '{thread_id}'"))
        })?;
        if let Some(run) = self.active(run_id) {
            run.cancel(StopReason::Cancelled);
        } else if record.status.is_active() {
            store
                .bus
                .publish(antler_store::Topic::RunCancel, run_id)
                .await?;
        } else {
            return Err(RunError::Conflict(format!(
                "run '{run_id}' is not active (status {})",
                record.status
            )));
        }
        if wait {
            self.wait_finished(thread_id, run_id).await;
        }
        Ok(store.runs.get(thread_id, run_id).await?.unwrap_or(record))
    }

    /// Whether the stored run is pending or running (on any replica).
    pub async fn run_is_active(&self, thread_id: &str, run_id: &str) -> bool {
        matches!(
            self.deps.store.runs.get(thread_id, run_id).await,
            Ok(Some(r)) if r.status.is_active()
        )
    }

    /// Resolves when the run has ended, wherever it runs.
    pub async fn wait_finished(&self, thread_id: &str, run_id: &str) {
        if let Some(run) = self.active(run_id) {
            run.finished().await;
            return;
        }
        let mut notices = self.deps.store.bus.subscribe();
        while self.run_is_active(thread_id, run_id).await {
            super::notices::stored_events(&mut notices, Some(run_id), Duration::from_millis(500))
                .await;
        }
    }

    /// Runs of a thread active on other replicas.
    async fn remote_active(&self, thread_id: &str) -> Result<Vec<RunRecord>, RunError> {
        Ok(self
            .deps
            .store
            .runs
            .list(thread_id, None, 50, 0)
            .await?
            .into_iter()
            .filter(|r| r.status.is_active() && r.instance != self.deps.instance)
            .collect())
    }

    /// Starts the cross-replica duties: cancelling runs on request from other replicas,
    /// heartbeats, and taking over the runs of replicas that died.
    pub fn start_background(self: &Arc<Self>) -> Vec<tokio::task::JoinHandle<()>> {
        let cancels = {
            let weak = Arc::downgrade(self);
            let mut notices = self.deps.store.bus.subscribe();
            tokio::spawn(async move {
                loop {
                    match notices.recv().await {
                        Ok(n) if n.topic == antler_store::Topic::RunCancel => {
                            let Some(rt) = weak.upgrade() else { return };
                            if let Some(run) = rt.active(&n.payload) {
                                tracing::info!(run.id = %n.payload, "run cancelled from another replica");
                                run.cancel(StopReason::Cancelled);
                            }
                        }
                        Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                    }
                }
            })
        };
        let liveness = {
            let weak = Arc::downgrade(self);
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(HEARTBEAT);
                loop {
                    tick.tick().await;
                    let Some(rt) = weak.upgrade() else { return };
                    if let Err(e) = rt.deps.store.instances.heartbeat(&rt.deps.instance).await {
                        tracing::warn!(error = %e, "heartbeat failed");
                        continue;
                    }
                    if let Err(e) = rt.take_over_dead().await {
                        tracing::warn!(error = %e, "could not take over the runs of a dead replica");
                    }
                }
            })
        };
        vec![cancels, liveness]
    }

    /// Interrupts the runs of instances whose heartbeat stopped, and ends their streams.
    async fn take_over_dead(&self) -> Result<(), RunError> {
        let store = &self.deps.store;
        let dead = store
            .instances
            .stale(&self.deps.instance, DEAD_AFTER.as_secs())
            .await?;
        for instance in dead {
            let runs = store
                .runs
                .interrupt_active(Some(&instance), StopReason::ReplicaLost)
                .await?;
            for r in &runs {
                tracing::warn!(run.id = %r.run_id, dead = %instance, "run interrupted: its replica stopped responding");
                let next = store.runs.last_event_seq(&r.run_id).await? + 1;
                let error = RunFailure::new(
                    RunErrorKind::ReplicaLost,
                    "The server running this run stopped responding; the run was interrupted.",
                );
                let error = StreamEvent::Error(&error);
                store
                    .runs
                    .append_events(
                        &r.run_id,
                        &[
                            antler_store::StoredEvent {
                                seq: next,
                                event: error.name().into(),
                                data: error.data(),
                            },
                            antler_store::StoredEvent {
                                seq: next + 1,
                                event: StreamEvent::End.name().into(),
                                data: StreamEvent::End.data(),
                            },
                        ],
                    )
                    .await?;
            }
            store.instances.remove(&instance).await?;
        }
        Ok(())
    }

    /// Cancels every run of a thread and waits until they have stopped (before deleting it).
    pub async fn cancel_thread(&self, thread_id: &str) {
        let runs: Vec<Arc<ActiveRun>> = lock(&self.active)
            .values()
            .filter(|r| r.thread_id == thread_id)
            .cloned()
            .collect();
        for r in &runs {
            r.cancel(StopReason::Cancelled);
        }
        for r in runs {
            r.finished().await;
        }
    }

    /// Counters of a stored run.
    pub fn usage(r: &RunRecord) -> RunUsage {
        RunUsage {
            input_tokens: r.input_tokens,
            output_tokens: r.output_tokens,
            model_calls: r.model_calls,
        }
    }
}

/// Stored thread values, or an error naming the problem (the run must not start over an
/// unreadable history: its first save would replace it).
fn stored_values(values: &serde_json::Value) -> Result<ThreadValues, RunError> {
    ThreadValues::from_value(values).map_err(|e| {
        tracing::error!(error = %e, "stored thread values do not parse");
        RunError::Unreadable(
            "the thread's stored history could not be read; it was left untouched".into(),
        )
    })
}

/// The `reject` strategy's answer when `thread_id` already runs `run_id`.
fn busy(thread_id: &str, run_id: &str) -> RunError {
    RunError::Conflict(format!(
        "thread '{thread_id}' already has a run in progress ({run_id}); use multitask_strategy interrupt or enqueue"
    ))
}
