//! Agent runs of a caller's threads: start, list, cancel, join, follow their events, and
//! the threads' state and checkpoints.

use std::collections::HashSet;
use std::sync::Arc;

use antler_agent_runtime::runs::RunManager;
use antler_protocol::runs::{Run, RunCreate, RunStatus};
use antler_protocol::stream::StreamMode;
use antler_protocol::threads::ThreadValues;
use antler_store::threads::timestamp;
use antler_store::{RunRecord, Store, StoreError, ThreadRecord};

use crate::Caller;
use crate::assistants::{AssistantError, AssistantsService};
use crate::config::ThreadsConfig;
use crate::threads::{ThreadError, check_id, parse_values};

// What the HTTP layer holds of a run: its event follower, the run itself (to cancel it when
// a client goes away) and the run manager's errors.
pub use antler_agent_runtime::runs::stream::Events;
pub use antler_agent_runtime::runs::{ActiveRun, RunError};

/// Largest page of runs or checkpoints.
pub const MAX_PAGE: u32 = 1000;

/// What can go wrong with a run.
#[derive(Debug, thiserror::Error)]
pub enum RunOpError {
    /// The thread is missing, not the caller's, or unreadable.
    #[error(transparent)]
    Thread(#[from] ThreadError),
    /// The run manager refused or failed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// Files sent in the messages could not be stored.
    #[error(transparent)]
    Files(#[from] crate::files::FileError),
    /// The run's assistant does not exist for the caller.
    #[error(transparent)]
    Assistant(#[from] AssistantError),
    /// The run id is not a UUID.
    #[error("run id {0:?} is not a UUID")]
    InvalidRunId(String),
    /// No such run in the thread.
    #[error("no run '{run_id}' in thread '{thread_id}'")]
    RunNotFound {
        /// The thread.
        thread_id: String,
        /// The run asked for.
        run_id: String,
    },
    /// The run is still pending or running (cancel it first).
    #[error("run '{0}' is still active; cancel it before deleting it")]
    Active(String),
    /// The caller's conversations keep more than their storage quota allows.
    #[error(
        "your conversations keep {used} bytes, over your storage quota of {limit} bytes; delete conversations you no longer need"
    )]
    Quota {
        /// Bytes kept.
        used: u64,
        /// The quota.
        limit: u64,
    },
    /// The caller reached a daily usage limit.
    #[error(transparent)]
    UsageLimit(crate::usage::LimitReached),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A started run: its live handle (events, cancellation) and its record as created.
#[derive(Debug)]
pub struct Started {
    /// The run in this process.
    pub run: Arc<ActiveRun>,
    /// The record as created (`pending`).
    pub record: Run,
}

/// The runs use-cases.
pub struct RunsService {
    pub(crate) store: Store,
    manager: Arc<RunManager>,
    assistants: Arc<AssistantsService>,
    pub(crate) limits: ThreadsConfig,
    usage: Option<crate::usage::UsageService>,
}

impl std::fmt::Debug for RunsService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunsService").finish_non_exhaustive()
    }
}

impl RunsService {
    pub(crate) fn new(
        store: Store,
        manager: Arc<RunManager>,
        assistants: Arc<AssistantsService>,
        limits: ThreadsConfig,
    ) -> Self {
        RunsService {
            store,
            manager,
            assistants,
            limits,
            usage: None,
        }
    }

    /// Checks daily usage limits before every run starts.
    pub(crate) fn with_usage(mut self, usage: crate::usage::UsageService) -> Self {
        self.usage = Some(usage);
        self
    }

    /// Whether the caller may start a run: under their storage quota and their daily usage
    /// limits. Every way a run starts (stream, wait, background, batch, crons, stateless)
    /// passes here.
    pub(crate) async fn admit(&self, caller: &Caller) -> Result<(), RunOpError> {
        self.check_quota(caller).await?;
        if let Some(usage) = &self.usage
            && let Some(reached) = usage.check(caller.owner()).await?
        {
            tracing::info!(
                user.id = caller.owner(),
                limit = reached.limit_name(),
                "daily usage limit reached; run refused"
            );
            return Err(RunOpError::UsageLimit(reached));
        }
        Ok(())
    }

    /// Refuses to store more for a caller whose conversations are over their quota.
    pub(crate) async fn check_quota(&self, caller: &Caller) -> Result<(), RunOpError> {
        let limit = self.limits.max_stored_bytes_per_user;
        if limit == 0 {
            return Ok(());
        }
        let used = self.store.threads.stored_bytes(caller.owner()).await?;
        if used >= limit {
            tracing::info!(used, limit, "storage quota reached");
            return Err(RunOpError::Quota { used, limit });
        }
        Ok(())
    }

    /// The run manager (for background duties and benchmarks).
    pub fn manager(&self) -> &Arc<RunManager> {
        &self.manager
    }

    /// Starts a run on the caller's thread (created first when `if_not_exists` says so);
    /// clients go through [`crate::App::start_run`], which checks the quota and stores
    /// files sent in the messages first.
    pub(crate) async fn start(
        &self,
        caller: &Caller,
        thread_id: &str,
        req: RunCreate,
    ) -> Result<Started, RunOpError> {
        check_id(thread_id)?;
        let profile = self.assistants.profile(caller, &req.assistant_id).await?;
        let graph_id = profile.graph_id();
        let (run, record) = self
            .manager
            .create(caller.owner(), thread_id, req, profile)
            .await?;
        // As LangGraph does: clients (the Agent Chat UI) find a graph's threads by these.
        if let Err(error) = self
            .store
            .threads
            .record_assistant(caller.owner(), thread_id, graph_id, &record.assistant_id)
            .await
        {
            tracing::warn!(%error, thread.id = thread_id, "could not record the run's assistant in the thread's metadata");
        }
        Ok(Started {
            run,
            record: wire(record),
        })
    }

    /// Waits until the run has ended, then answers the thread's values.
    pub async fn finished_values(
        &self,
        caller: &Caller,
        thread_id: &str,
        run: &ActiveRun,
    ) -> Result<ThreadValues, RunOpError> {
        run.finished().await;
        Ok(self.values(caller, thread_id).await?)
    }

    /// The caller's thread's runs, newest first.
    pub async fn list(
        &self,
        caller: &Caller,
        thread_id: &str,
        status: Option<RunStatus>,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<Run>, RunOpError> {
        self.thread(caller, thread_id).await?;
        let runs = self
            .store
            .runs
            .list(thread_id, status, limit.clamp(1, MAX_PAGE), offset)
            .await?;
        Ok(runs.into_iter().map(wire).collect())
    }

    /// One run of the caller's thread.
    pub async fn get(
        &self,
        caller: &Caller,
        thread_id: &str,
        run_id: &str,
    ) -> Result<Run, RunOpError> {
        Ok(wire(self.record(caller, thread_id, run_id).await?))
    }

    /// Stops a run (here or on another replica); with `wait`, answers once it has stopped.
    pub async fn cancel(
        &self,
        caller: &Caller,
        thread_id: &str,
        run_id: &str,
        wait: bool,
    ) -> Result<Run, RunOpError> {
        self.record(caller, thread_id, run_id).await?;
        Ok(wire(self.manager.cancel(thread_id, run_id, wait).await?))
    }

    /// Deletes a finished run of the caller's thread with its events (its messages stay in
    /// the thread).
    pub async fn delete(
        &self,
        caller: &Caller,
        thread_id: &str,
        run_id: &str,
    ) -> Result<(), RunOpError> {
        let record = self.record(caller, thread_id, run_id).await?;
        if matches!(record.status, RunStatus::Pending | RunStatus::Running) {
            return Err(RunOpError::Active(run_id.to_string()));
        }
        if !self.store.runs.delete(thread_id, run_id).await? {
            // It became active again in between, or another request deleted it.
            return Err(RunOpError::RunNotFound {
                thread_id: thread_id.to_string(),
                run_id: run_id.to_string(),
            });
        }
        tracing::info!(thread.id = thread_id, run.id = run_id, "run deleted");
        Ok(())
    }

    /// Waits for a run to end, then answers the thread's values.
    pub async fn join(
        &self,
        caller: &Caller,
        thread_id: &str,
        run_id: &str,
    ) -> Result<ThreadValues, RunOpError> {
        self.record(caller, thread_id, run_id).await?;
        self.manager.wait_finished(thread_id, run_id).await;
        Ok(self.values(caller, thread_id).await?)
    }

    /// Follows a run's events after `after` (an event id) that `modes` want (empty: all),
    /// ending with `end`. `cancel_on_disconnect` answers the live run to stop when the
    /// follower goes away.
    pub async fn follow(
        &self,
        caller: &Caller,
        thread_id: &str,
        run_id: &str,
        after: u64,
        modes: HashSet<StreamMode>,
    ) -> Result<Events, RunOpError> {
        self.record(caller, thread_id, run_id).await?;
        Ok(self.events(thread_id, run_id, after, modes))
    }

    /// The events of a run the caller was just given (no checks).
    pub fn events(
        &self,
        thread_id: &str,
        run_id: &str,
        after: u64,
        modes: HashSet<StreamMode>,
    ) -> Events {
        antler_agent_runtime::runs::stream::follow(
            self.manager.clone(),
            thread_id.to_string(),
            run_id.to_string(),
            after,
            modes,
        )
    }

    /// A run of this process, if it is still active.
    pub fn active(&self, run_id: &str) -> Option<Arc<ActiveRun>> {
        self.manager.active(run_id)
    }

    pub(crate) async fn thread(
        &self,
        caller: &Caller,
        thread_id: &str,
    ) -> Result<ThreadRecord, RunOpError> {
        check_id(thread_id)?;
        Ok(self
            .store
            .threads
            .get(caller.owner(), thread_id)
            .await?
            .ok_or_else(|| ThreadError::NotFound(thread_id.to_string()))?)
    }

    async fn values(&self, caller: &Caller, thread_id: &str) -> Result<ThreadValues, ThreadError> {
        let thread = self
            .store
            .threads
            .get(caller.owner(), thread_id)
            .await?
            .ok_or_else(|| ThreadError::NotFound(thread_id.to_string()))?;
        parse_values(thread_id, &thread.values)
    }

    pub(crate) async fn record(
        &self,
        caller: &Caller,
        thread_id: &str,
        run_id: &str,
    ) -> Result<RunRecord, RunOpError> {
        if uuid::Uuid::parse_str(run_id).is_err() {
            let shown: String = run_id.chars().take(80).collect();
            return Err(RunOpError::InvalidRunId(shown));
        }
        self.thread(caller, thread_id).await?;
        self.store
            .runs
            .get(thread_id, run_id)
            .await?
            .ok_or_else(|| RunOpError::RunNotFound {
                thread_id: thread_id.to_string(),
                run_id: run_id.to_string(),
            })
    }
}

/// The wire shape of a stored run.
pub fn wire(r: RunRecord) -> Run {
    Run {
        usage: RunManager::usage(&r),
        run_id: r.run_id,
        thread_id: r.thread_id,
        assistant_id: r.assistant_id,
        created_at: timestamp(r.created_at),
        updated_at: timestamp(r.updated_at),
        status: r.status,
        stop_reason: r.stop_reason,
        error: r.error,
        metadata: r.metadata,
        multitask_strategy: r.multitask_strategy,
        kwargs: r.kwargs,
    }
}
