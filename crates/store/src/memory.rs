//! Long-term memory: facts about each person, their history, full-text search, and each
//! person's memory settings.

use antler_protocol::memory::FactCategory;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::StoreError;

/// A stored fact.
#[derive(Debug, Clone, PartialEq)]
pub struct FactRecord {
    /// Its id.
    pub fact_id: String,
    /// Whose.
    pub owner: String,
    /// Only for this assistant (`None`: all of the owner's).
    pub assistant_id: Option<String>,
    /// What is known.
    pub content: String,
    /// `preference`, `knowledge`, `context`, `behavior`, `goal`, …
    pub category: FactCategory,
    /// How sure (0–1).
    pub confidence: f64,
    /// How often it was found again.
    pub confirmations: i64,
    /// The thread it was learned in.
    pub source_thread: Option<String>,
    /// The fact it replaced.
    pub supersedes: Option<String>,
    /// False once superseded.
    pub active: bool,
    /// When it was learned.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
    /// When it was last given to the model.
    pub last_used_at: Option<DateTime<Utc>>,
}

/// A search of one owner's facts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FactQuery {
    /// Facts for this assistant and those for all (`None`: every fact; [`SHARED_ONLY`]:
    /// only those for all).
    pub assistant_id: Option<String>,
    /// Only this category.
    pub category: Option<FactCategory>,
    /// Full-text words (any of them); results ranked by relevance.
    pub search: Option<String>,
    /// Superseded facts too.
    pub include_inactive: bool,
    /// Page size.
    pub limit: u32,
    /// Rows to skip.
    pub offset: u32,
}

/// An `assistant_id` no assistant has: a query for it finds the shared facts only.
pub const SHARED_ONLY: &str = "";

impl FactQuery {
    /// The facts an agent learning for `scope` reads: the assistant's own and the shared
    /// ones, or (`None`) the shared ones only.
    pub fn visible_to(scope: Option<&str>) -> Self {
        FactQuery {
            assistant_id: Some(scope.unwrap_or(SHARED_ONLY).to_string()),
            ..FactQuery::default()
        }
    }
}

/// A person's memory settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemorySettings {
    /// Memory on (the default) or off.
    pub enabled: bool,
    /// A summary of the person's context.
    pub summary: Option<String>,
}

impl Default for MemorySettings {
    fn default() -> Self {
        MemorySettings {
            enabled: true,
            summary: None,
        }
    }
}

/// Reads and writes memory.
#[async_trait]
pub trait MemoryRepo: Send + Sync + 'static {
    /// Stores a new fact.
    async fn add(&self, fact: &FactRecord) -> Result<(), StoreError>;
    /// One of an owner's facts.
    async fn get(&self, owner: &str, fact_id: &str) -> Result<Option<FactRecord>, StoreError>;
    /// An owner's facts: ranked by relevance (best first, with the rank) when searching,
    /// else most recently changed first.
    async fn list(
        &self,
        owner: &str,
        query: &FactQuery,
    ) -> Result<Vec<(FactRecord, f64)>, StoreError>;
    /// How many active facts an owner has.
    async fn count(&self, owner: &str) -> Result<u64, StoreError>;
    /// A number that changes whenever an owner's facts change (not when they are used).
    async fn version(&self, owner: &str) -> Result<u64, StoreError>;
    /// [`MemoryRepo::version`] in one read with the setting: `None` when the owner
    /// switched memory off.
    async fn version_if_enabled(&self, owner: &str) -> Result<Option<u64>, StoreError>;
    /// Every active fact of an owner.
    async fn active(&self, owner: &str) -> Result<Vec<FactRecord>, StoreError>;
    /// Replaces a fact by `next` (which supersedes it); `false` when the owner has no such
    /// active fact.
    async fn supersede(
        &self,
        owner: &str,
        fact_id: &str,
        next: &FactRecord,
    ) -> Result<bool, StoreError>;
    /// Counts one more confirmation of an active fact; `false` when there is none.
    async fn confirm(&self, owner: &str, fact_id: &str) -> Result<bool, StoreError>;
    /// Deletes a fact with the facts it superseded; `false` when there was none.
    async fn delete(&self, owner: &str, fact_id: &str) -> Result<bool, StoreError>;
    /// In one transaction: adds `add` (each unless an active fact of the same owner,
    /// content and assistant exists), deletes `evict` with their history, and sets the
    /// summary when one is given. Answers how many facts were added.
    async fn import(
        &self,
        owner: &str,
        add: &[FactRecord],
        evict: &[String],
        summary: Option<&str>,
    ) -> Result<u64, StoreError>;
    /// Deletes the facts learned from one thread (and the versions they became); answers
    /// how many.
    async fn forget_thread(&self, owner: &str, thread_id: &str) -> Result<u64, StoreError>;
    /// Deletes every fact of an owner; answers how many.
    async fn forget_all(&self, owner: &str) -> Result<u64, StoreError>;
    /// Records that facts were given to the model.
    async fn touch(&self, owner: &str, fact_ids: &[String]) -> Result<(), StoreError>;
    /// An owner's settings (defaults when never set).
    async fn settings(&self, owner: &str) -> Result<MemorySettings, StoreError>;
    /// Stores an owner's settings.
    async fn set_settings(&self, owner: &str, settings: &MemorySettings) -> Result<(), StoreError>;
}

/// What one reading of a conversation changes in its owner's memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Learned {
    /// New facts.
    pub add: Vec<FactRecord>,
    /// Known facts seen again (each counted once).
    pub confirm: Vec<String>,
    /// Corrections: the fact replaced and its new version.
    pub supersede: Vec<(String, FactRecord)>,
    /// Facts the conversation shows are wrong, deleted with their history.
    pub delete: Vec<String>,
    /// The least useful facts, forgotten to stay within the maximum.
    pub evict: Vec<String>,
}

/// A conversation waiting for memory extraction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedTurn {
    /// Whose.
    pub owner: String,
    /// The thread.
    pub thread_id: String,
    /// The assistant of its last run.
    pub assistant_id: Option<String>,
    /// When it was claimed (a newer turn after this keeps it queued).
    pub claimed_at: DateTime<Utc>,
    /// The instance that claimed it: only it finishes or retries it.
    pub claimed_by: String,
    /// Claims so far (this one included).
    pub attempts: i64,
}

/// The durable queue of conversations to learn from.
#[async_trait]
pub trait MemoryQueueRepo: Send + Sync + 'static {
    /// Queues a thread to be read at `due_at` (a thread queued already is moved: a burst of
    /// turns is read once); nothing is queued for an owner who switched memory off.
    async fn enqueue(
        &self,
        owner: &str,
        thread_id: &str,
        assistant_id: Option<&str>,
        due_at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Claims the next due thread for `instance` (one claimant across replicas; a claim
    /// older than `stale_before` is taken over).
    async fn claim(
        &self,
        instance: &str,
        stale_before: DateTime<Utc>,
    ) -> Result<Option<QueuedTurn>, StoreError>;
    /// Done: removed, unless a newer turn arrived since the claim (then it stays queued).
    async fn finish(&self, item: &QueuedTurn) -> Result<(), StoreError>;
    /// Applies what a reading of the turn's conversation learned and finishes the turn, in
    /// one transaction; false (nothing changed) when the claim is no longer the item's.
    async fn apply_learned(&self, item: &QueuedTurn, learned: &Learned)
    -> Result<bool, StoreError>;
    /// Still working on it: the claim is renewed, so no other replica takes it over; `false`
    /// when it is no longer `instance`'s (taken over, or forgotten).
    async fn renew(&self, item: &QueuedTurn, instance: &str) -> Result<bool, StoreError>;
    /// Failed: tried again at `retry_at`.
    async fn retry(&self, item: &QueuedTurn, retry_at: DateTime<Utc>) -> Result<(), StoreError>;
    /// Drops an owner's queued conversations (all, or one thread's): memory was forgotten.
    async fn drop_queued(&self, owner: &str, thread_id: Option<&str>) -> Result<(), StoreError>;
    /// How many conversations are queued.
    async fn queued(&self) -> Result<u64, StoreError>;
}

/// The words of a search as a safe full-text query: letters and digits only, each quoted.
pub fn search_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 2)
        .map(str::to_lowercase)
        .collect();
    words.sort();
    words.dedup();
    words.truncate(32);
    words
}
