//! Feedback on answers: each person's thumbs up or down on a run of their own conversation,
//! with an optional comment, one per run and person.

use antler_protocol::feedback::Rating;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::StoreError;

/// Feedback as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedbackRecord {
    /// The rated run.
    pub run_id: String,
    /// Its thread.
    pub thread_id: String,
    /// Who gave it.
    pub owner: String,
    /// Their email when they are an account (read where it is shown; `None` otherwise).
    pub owner_email: Option<String>,
    /// Thumbs up or down.
    pub rating: Rating,
    /// The comment (trimmed, never blank).
    pub comment: Option<String>,
    /// First given.
    pub created_at: DateTime<Utc>,
    /// Last changed.
    pub updated_at: DateTime<Utc>,
}

/// Feedback to store (replacing the giver's earlier feedback on the run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFeedback {
    /// Who gives it: the thread must be theirs.
    pub owner: String,
    /// The thread.
    pub thread_id: String,
    /// The run: it must belong to the thread.
    pub run_id: String,
    /// Thumbs up or down.
    pub rating: Rating,
    /// The comment.
    pub comment: Option<String>,
    /// Now.
    pub at: DateTime<Utc>,
}

/// Feedback as exported, with what its run says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedFeedback {
    /// The feedback, its giver's email included.
    pub feedback: FeedbackRecord,
    /// The agent that answered.
    pub assistant_id: String,
    /// The model that made most of the run's own calls.
    pub model: Option<String>,
}

/// Which feedback an export holds: changed at or after `since`, before `until`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportRange {
    /// Inclusive lower bound of `updated_at`.
    pub since: Option<DateTime<Utc>>,
    /// Exclusive upper bound of `updated_at`.
    pub until: Option<DateTime<Utc>>,
}

/// Where the next page of an export starts: after this feedback (exports are ordered by
/// `updated_at`, run and giver, so paging is stable while feedback keeps arriving).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportCursor {
    /// The last exported feedback's `updated_at`.
    pub updated_at: DateTime<Utc>,
    /// Its run.
    pub run_id: String,
    /// Its giver.
    pub owner: String,
}

impl ExportCursor {
    /// The position just after `f`.
    pub fn after(f: &FeedbackRecord) -> Self {
        ExportCursor {
            updated_at: f.updated_at,
            run_id: f.run_id.clone(),
            owner: f.owner.clone(),
        }
    }
}

/// Stores feedback. Callers check identities; the writes check that the run belongs to the
/// giver's thread in the same statement.
#[async_trait]
pub trait FeedbackRepo: Send + Sync + 'static {
    /// Stores `f` (replacing the giver's earlier rating and comment of the run, keeping when
    /// it was first given); `None` when the run is not in a thread of the giver.
    async fn put(&self, f: &NewFeedback) -> Result<Option<FeedbackRecord>, StoreError>;
    /// Removes `owner`'s feedback on the run; `false` when there was none.
    async fn delete(&self, owner: &str, thread_id: &str, run_id: &str) -> Result<bool, StoreError>;
    /// `owner`'s feedback on the runs of a thread, oldest run first.
    async fn of_thread(
        &self,
        owner: &str,
        thread_id: &str,
    ) -> Result<Vec<FeedbackRecord>, StoreError>;
    /// A page of every person's feedback in `range`, after `after`, oldest change first.
    async fn export_page(
        &self,
        range: &ExportRange,
        after: Option<&ExportCursor>,
        limit: u32,
    ) -> Result<Vec<ExportedFeedback>, StoreError>;
}

/// Runs with feedback, for the runs console's filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatedFilter {
    /// Runs with any feedback.
    Any,
    /// Runs with feedback of this rating (from anyone).
    Only(Rating),
}
