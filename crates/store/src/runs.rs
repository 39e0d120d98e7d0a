//! Runs, their event logs and thread checkpoints.

use antler_protocol::runs::{MultitaskStrategy, RunStatus, RunUsage, StopReason};
use antler_protocol::threads::ThreadStatus;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::StoreError;

/// A stored run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// Run id.
    pub run_id: String,
    /// Its thread.
    pub thread_id: String,
    /// Owner of the thread.
    pub owner: String,
    /// The agent.
    pub assistant_id: String,
    /// Where it is.
    pub status: RunStatus,
    /// Why it stopped.
    pub stop_reason: Option<StopReason>,
    /// Error message.
    pub error: Option<String>,
    /// Multitask strategy.
    pub multitask_strategy: MultitaskStrategy,
    /// Metadata.
    pub metadata: Map<String, Value>,
    /// The creation request.
    pub kwargs: Value,
    /// The server instance executing it.
    pub instance: String,
    /// Tokens, calls and cost (its subagents' included).
    pub usage: RunUsage,
    /// Created.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// How a run ended (or what it is doing now).
#[derive(Debug, Clone, PartialEq)]
pub struct RunUpdate {
    /// New status.
    pub status: RunStatus,
    /// Why it stopped.
    pub stop_reason: Option<StopReason>,
    /// Error message.
    pub error: Option<String>,
    /// Tokens, calls and cost so far.
    pub usage: RunUsage,
    /// New metadata for the run (what it was created with, plus what it added); `None`
    /// keeps what it has.
    pub metadata: Option<Map<String, Value>>,
    /// Its steps (model calls, tool calls, subagents) for the runs console, given once when
    /// it ends; `None` keeps what is stored.
    pub timeline: Option<Vec<antler_protocol::console::RunStep>>,
}

/// One event of a run's stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Position in the run's log (the SSE id).
    pub seq: u64,
    /// SSE event name.
    pub event: String,
    /// SSE data (JSON text).
    pub data: String,
}

/// A saved thread state.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointRecord {
    /// Id.
    pub checkpoint_id: String,
    /// Thread.
    pub thread_id: String,
    /// The run that produced it.
    pub run_id: Option<String>,
    /// The checkpoint it continues (on its branch).
    pub parent_id: Option<String>,
    /// Position within the thread (0 first), across all branches: the history's order.
    pub step: i64,
    /// The state values.
    pub state: Value,
    /// LangGraph checkpoint metadata (`source`, `step`, `parents`, `writes`, `run_id`, …);
    /// empty for checkpoints saved before it was recorded.
    pub metadata: Map<String, Value>,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// A checkpoint to save.
#[derive(Debug, Clone, Copy)]
pub struct NewCheckpoint<'a> {
    /// Its thread.
    pub thread_id: &'a str,
    /// The state values, which also become the thread's current values.
    pub values: &'a Value,
    /// The thread's status from now on.
    pub status: ThreadStatus,
    /// The run that produced it.
    pub run_id: Option<&'a str>,
    /// The checkpoint it continues: the head of its branch (none for a thread's first).
    pub parent_id: Option<&'a str>,
    /// LangGraph checkpoint metadata.
    pub metadata: &'a Map<String, Value>,
}

/// Reads and writes runs.
#[async_trait]
pub trait RunRepo: Send + Sync + 'static {
    /// Stores a new run.
    async fn create(&self, run: &RunRecord) -> Result<(), StoreError>;
    /// One run of a thread.
    async fn get(&self, thread_id: &str, run_id: &str) -> Result<Option<RunRecord>, StoreError>;
    /// A thread's runs, newest first, optionally only those with `status` (filtered before
    /// the page is cut).
    async fn list(
        &self,
        thread_id: &str,
        status: Option<RunStatus>,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<RunRecord>, StoreError>;
    /// A thread's `pending` and `running` runs (of every instance), oldest first.
    async fn active(&self, thread_id: &str) -> Result<Vec<RunRecord>, StoreError>;
    /// An owner's `pending` and `running` runs (of one thread when `thread_id` is given),
    /// oldest first, at most `limit`.
    async fn active_of_owner(
        &self,
        owner: &str,
        thread_id: Option<&str>,
        limit: u32,
    ) -> Result<Vec<RunRecord>, StoreError>;
    /// Deletes a thread's run with its events unless it is `pending` or `running`; false
    /// when no such finished run exists.
    async fn delete(&self, thread_id: &str, run_id: &str) -> Result<bool, StoreError>;
    /// Updates status, stop reason and counters.
    async fn update(&self, run_id: &str, update: &RunUpdate) -> Result<(), StoreError>;
    /// Marks every `pending` or `running` run of `instance` (all instances when `None`) as
    /// `interrupted` with `stop_reason`; returns the affected runs.
    async fn interrupt_active(
        &self,
        instance: Option<&str>,
        stop_reason: StopReason,
    ) -> Result<Vec<RunRecord>, StoreError>;
    /// Appends events to a run's log; nothing when the run no longer exists.
    async fn append_events(&self, run_id: &str, events: &[StoredEvent]) -> Result<(), StoreError>;
    /// Appends the events of several runs in one transaction (all or none); an error when
    /// any of the runs no longer exists, where [`RunRepo::append_events`] for each one
    /// skips those.
    async fn append_events_of_runs(
        &self,
        batch: &[(&str, &[StoredEvent])],
    ) -> Result<(), StoreError>;
    /// Events with `seq > after`, in order.
    async fn events_after(&self, run_id: &str, after: u64) -> Result<Vec<StoredEvent>, StoreError>;
    /// Events with `seq > after` named `event` whose data begins with `prefix`, in order.
    async fn events_with_prefix(
        &self,
        run_id: &str,
        after: u64,
        event: &str,
        prefix: &str,
    ) -> Result<Vec<StoredEvent>, StoreError>;
    /// The sequence number of a run's last stored event (0 when none).
    async fn last_event_seq(&self, run_id: &str) -> Result<u64, StoreError>;
}

/// Where a saved checkpoint sits in its thread's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedCheckpoint {
    /// Its id.
    pub checkpoint_id: String,
    /// The checkpoint it continues.
    pub parent_id: Option<String>,
    /// Its position in the thread (0 first).
    pub step: i64,
}

/// Thread state and checkpoints.
#[async_trait]
pub trait StateRepo: Send + Sync + 'static {
    /// Records a checkpoint (a time-ordered UUIDv7 id) and makes its values and status the
    /// thread's current ones; answered without its state, which the caller has.
    async fn save(&self, checkpoint: NewCheckpoint<'_>) -> Result<SavedCheckpoint, StoreError> {
        let mut saved = self.save_chain(std::slice::from_ref(&checkpoint)).await?;
        saved
            .pop()
            .ok_or_else(|| StoreError::Corrupt("a checkpoint was saved without a position".into()))
    }
    /// Records checkpoints made one after the other, at once (one transaction): each
    /// continues the one before it (so only the first one's `parent_id` is read), and the
    /// thread takes the last one's values and status. Answers their places, in order.
    async fn save_chain(
        &self,
        chain: &[NewCheckpoint<'_>],
    ) -> Result<Vec<SavedCheckpoint>, StoreError>;
    /// Sets only the thread's status.
    async fn set_status(&self, thread_id: &str, status: ThreadStatus) -> Result<(), StoreError>;
    /// The newest checkpoint.
    async fn latest(&self, thread_id: &str) -> Result<Option<CheckpointRecord>, StoreError>;
    /// The newest checkpoint without its state (`state` is null): where the thread's
    /// newest branch ends.
    async fn head(&self, thread_id: &str) -> Result<Option<CheckpointRecord>, StoreError>;
    /// One checkpoint of a thread.
    async fn get(
        &self,
        thread_id: &str,
        checkpoint_id: &str,
    ) -> Result<Option<CheckpointRecord>, StoreError>;
    /// Checkpoints newest first, optionally before a checkpoint id: at most `limit`, and
    /// no more than about `max_bytes` of states (but always one when there is one).
    async fn history(
        &self,
        thread_id: &str,
        limit: u32,
        before: Option<&str>,
        max_bytes: usize,
    ) -> Result<Vec<CheckpointRecord>, StoreError>;
    /// Deletes runs of a thread with their events and the checkpoints they wrote, and makes
    /// the newest remaining checkpoint's values the thread's (empty values when none is
    /// left), with status `idle` (`interrupted` when those values wait for an answer). In
    /// one transaction.
    async fn roll_back(&self, thread_id: &str, run_ids: &[String]) -> Result<(), StoreError>;
    /// Deletes every checkpoint of a thread but its newest (its current state stays).
    async fn keep_latest(&self, thread_id: &str) -> Result<(), StoreError>;
    /// Shallow-merges `patch` into the metadata of a checkpoint (the thread's newest when
    /// `checkpoint_id` is `None`; a `null` value removes the key); answers the checkpoint's
    /// id, `None` when there is no such checkpoint.
    async fn patch_metadata(
        &self,
        thread_id: &str,
        checkpoint_id: Option<&str>,
        patch: Map<String, Value>,
    ) -> Result<Option<String>, StoreError>;
}
