//! Crons (scheduled runs) and their ticks: which crons are due, claimed by one replica each
//! time, so a tick runs exactly once however many replicas poll.

use antler_protocol::runs::{OnCompletion, RunStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::StoreError;

/// A cron as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct CronRecord {
    /// Unique id (a UUID).
    pub cron_id: String,
    /// Who created it; its runs are theirs.
    pub owner: String,
    /// The assistant its runs use.
    pub assistant_id: String,
    /// The thread its runs go to; `None`: a new thread per run.
    pub thread_id: Option<String>,
    /// The cron expression (5 fields, or 6 with leading seconds).
    pub schedule: String,
    /// The IANA time zone the schedule is read in (`None`: UTC).
    pub timezone: Option<String>,
    /// No run is started at or after this time.
    pub end_time: Option<DateTime<Utc>>,
    /// What happens to a new thread after its run (stateless crons only).
    pub on_run_completed: Option<OnCompletion>,
    /// The run request each tick starts.
    pub payload: Value,
    /// Free-form metadata.
    pub metadata: Map<String, Value>,
    /// Whether it starts runs.
    pub enabled: bool,
    /// When it is next due; `None` when disabled or past its end.
    pub next_run_date: Option<DateTime<Utc>>,
    /// The latest run it started.
    pub last_run: Option<LastRun>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// The latest run a cron started.
#[derive(Debug, Clone, PartialEq)]
pub struct LastRun {
    /// The run.
    pub run_id: String,
    /// Its thread.
    pub thread_id: String,
    /// Its status (from the run while it exists, else as last recorded).
    pub status: Option<RunStatus>,
    /// When it was started.
    pub created_at: DateTime<Utc>,
}

/// Which of an owner's crons a search finds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CronFilter {
    /// Only this assistant's.
    pub assistant_id: Option<String>,
    /// Only this thread's.
    pub thread_id: Option<String>,
    /// Only enabled (or disabled) ones.
    pub enabled: Option<bool>,
    /// Only those whose metadata has all these key/value pairs.
    pub metadata: Map<String, Value>,
}

/// A sort field of a cron search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CronSort {
    /// By id.
    CronId,
    /// By assistant.
    AssistantId,
    /// By thread.
    ThreadId,
    /// By creation time (the default).
    #[default]
    CreatedAt,
    /// By last change.
    UpdatedAt,
    /// By when it is next due.
    NextRunDate,
}

/// What a due cron does at its tick: whether it runs, and when it is due next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CronPlan {
    /// Start a run for the tick (false: past its end).
    pub run: bool,
    /// The next due time (`None`: no more).
    pub next: Option<DateTime<Utc>>,
}

/// Decides a due cron's plan at `now` (reads its schedule; kept out of the store).
pub type Planner = dyn Fn(&CronRecord, DateTime<Utc>) -> CronPlan + Send + Sync;

/// One tick taken by this replica: the cron as it was, when it was due, and the thread its
/// run goes to.
#[derive(Debug, Clone, PartialEq)]
pub struct CronTick {
    /// The cron.
    pub cron: CronRecord,
    /// When the tick was due.
    pub scheduled_for: DateTime<Utc>,
    /// The thread of its run (chosen at the claim for a new thread, so a takeover finds a
    /// run the first claimant started).
    pub thread_id: String,
    /// Who holds it.
    pub claimed_by: String,
}

/// Reads and writes crons and claims their ticks.
#[async_trait]
pub trait CronRepo: Send + Sync + 'static {
    /// Stores a new cron.
    async fn create(&self, cron: &CronRecord) -> Result<(), StoreError>;
    /// One cron of an owner.
    async fn get(&self, owner: &str, cron_id: &str) -> Result<Option<CronRecord>, StoreError>;
    /// A page of an owner's crons that `filter` finds, by `sort` (then id).
    async fn search(
        &self,
        owner: &str,
        filter: &CronFilter,
        sort: CronSort,
        ascending: bool,
        limit: u32,
        offset: u64,
    ) -> Result<Vec<CronRecord>, StoreError>;
    /// How many of an owner's crons `filter` finds.
    async fn count(&self, owner: &str, filter: &CronFilter) -> Result<u64, StoreError>;
    /// Writes the changeable fields of `cron` (schedule, timezone, end time, payload,
    /// metadata, enabled, `on_run_completed`, `updated_at`, and with `reschedule` its next
    /// run date); `None` when the owner has no such cron.
    async fn update(
        &self,
        cron: &CronRecord,
        reschedule: bool,
    ) -> Result<Option<CronRecord>, StoreError>;
    /// Deletes a cron with its ticks; false when there was none.
    async fn delete(&self, owner: &str, cron_id: &str) -> Result<bool, StoreError>;
    /// Claims up to `limit` crons due at `now` for `instance`: in one transaction per batch,
    /// each gets a tick row (unique per cron and due time) and its next due time from
    /// `plan`. Crons another replica is claiming are skipped, never waited for.
    async fn claim_due(
        &self,
        instance: &str,
        now: DateTime<Utc>,
        limit: u32,
        plan: &Planner,
    ) -> Result<Vec<CronTick>, StoreError>;
    /// Takes over up to `limit` ticks whose run was never recorded and whose claimant is
    /// gone: another instance with no heartbeat since `alive_after`, or this instance
    /// before `restarted_at` (an earlier process of it).
    async fn take_over(
        &self,
        instance: &str,
        alive_after: DateTime<Utc>,
        restarted_at: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<CronTick>, StoreError>;
    /// Records the run a tick started (and makes it the cron's last run); false when the
    /// tick is no longer this claimant's.
    async fn tick_started(
        &self,
        tick: &CronTick,
        run_id: &str,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// Records that a tick could not start its run.
    async fn tick_failed(&self, tick: &CronTick, error: &str) -> Result<(), StoreError>;
    /// Makes a run started outside the schedule ("run now") the cron's last run.
    async fn record_run(
        &self,
        cron_id: &str,
        thread_id: &str,
        run_id: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Remembers the final status of the cron's last run (its thread is about to go).
    async fn record_status(
        &self,
        cron_id: &str,
        run_id: &str,
        status: RunStatus,
    ) -> Result<(), StoreError>;
    /// Disables a cron that cannot run, with `reason` in its metadata (`disabled_reason`).
    async fn disable(&self, cron_id: &str, reason: &str) -> Result<(), StoreError>;
    /// Forgets finished ticks due before `before` (the cron keeps its last run); answers
    /// how many.
    async fn prune_ticks(&self, before: DateTime<Utc>) -> Result<u64, StoreError>;
}
