//! Conversation threads.

use antler_protocol::threads::{ThreadSortBy, ThreadStatus};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::StoreError;

/// A stored thread.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadRecord {
    /// Unique id.
    pub thread_id: String,
    /// Who owns it.
    pub owner: String,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// Free-form metadata (title and such).
    pub metadata: Map<String, Value>,
    /// What it is doing.
    pub status: ThreadStatus,
    /// The thread's state values (messages, artifacts, title).
    pub values: Value,
}

/// A search over one owner's threads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThreadQuery {
    /// Every key must equal the thread's metadata value.
    pub metadata: Map<String, Value>,
    /// Only threads in this status.
    pub status: Option<ThreadStatus>,
    /// Every key must equal the top-level value of that name in the thread's values.
    pub values: Map<String, Value>,
    /// Only these threads (no filter when empty).
    pub ids: Vec<String>,
    /// Page size.
    pub limit: u32,
    /// Rows to skip.
    pub offset: u32,
    /// Sort field.
    pub sort: ThreadSortBy,
    /// Ascending instead of the default descending.
    pub ascending: bool,
}

/// Outcome of an idempotent create.
#[derive(Debug, Clone, PartialEq)]
pub struct Created {
    /// The thread (new or existing).
    pub thread: ThreadRecord,
    /// False when it already existed.
    pub created: bool,
}

/// Reads and writes threads.
#[async_trait]
pub trait ThreadRepo: Send + Sync + 'static {
    /// Creates the thread, or returns the existing one with that id and owner; `None` when
    /// the id is another owner's.
    async fn create(
        &self,
        owner: &str,
        thread_id: &str,
        metadata: Map<String, Value>,
    ) -> Result<Option<Created>, StoreError>;
    /// Bytes the owner's threads keep (checkpoints, their messages, run events).
    async fn stored_bytes(&self, owner: &str) -> Result<u64, StoreError>;
    /// Marks a thread as temporary (a stateless run's: deleted when its run has ended,
    /// also after a crash) or as kept.
    async fn set_temporary(&self, thread_id: &str, temporary: bool) -> Result<(), StoreError>;
    /// Temporary threads older than `older_than` with no pending or running run, as
    /// (owner, thread id).
    async fn finished_temporary(
        &self,
        older_than: DateTime<Utc>,
    ) -> Result<Vec<(String, String)>, StoreError>;
    /// One thread of an owner.
    async fn get(&self, owner: &str, thread_id: &str) -> Result<Option<ThreadRecord>, StoreError>;
    /// Shallow-merges `patch` into the metadata (a `null` value removes the key).
    async fn merge_metadata(
        &self,
        owner: &str,
        thread_id: &str,
        patch: Map<String, Value>,
    ) -> Result<Option<ThreadRecord>, StoreError>;
    /// Records in the metadata which graph and assistant ran on the thread last (as
    /// LangGraph does), in one statement; nothing happens when there is no such thread.
    async fn record_assistant(
        &self,
        owner: &str,
        thread_id: &str,
        graph_id: &str,
        assistant_id: &str,
    ) -> Result<(), StoreError>;
    /// Deletes the thread; false when there was none.
    async fn delete(&self, owner: &str, thread_id: &str) -> Result<bool, StoreError>;
    /// Searches an owner's threads.
    async fn search(
        &self,
        owner: &str,
        query: &ThreadQuery,
    ) -> Result<Vec<ThreadRecord>, StoreError>;
    /// How many of an owner's threads match the query's filters (its page is ignored).
    async fn count(&self, owner: &str, query: &ThreadQuery) -> Result<u64, StoreError>;
    /// Copies an owner's thread to a new id of the same owner: metadata, values and every
    /// checkpoint (new ids, the same tree, times and states) except those of the runs in
    /// `skip_runs`; the copy's values are its newest checkpoint's (the source's when it has
    /// none) and its status `idle` (`interrupted` when its values wait for an answer). In
    /// one transaction; `None` when the source is not the owner's.
    async fn copy(
        &self,
        owner: &str,
        source: &str,
        target: &str,
        skip_runs: &[String],
    ) -> Result<Option<ThreadRecord>, StoreError>;
}

/// Applies a shallow metadata patch.
pub fn merge(metadata: &mut Map<String, Value>, patch: Map<String, Value>) {
    for (k, v) in patch {
        if v.is_null() {
            metadata.remove(&k);
        } else {
            metadata.insert(k, v);
        }
    }
}

/// RFC 3339 with microseconds, so text order is time order.
pub fn timestamp(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}
