//! Assistants (custom agents) and their versions.

use antler_protocol::assistants::AssistantSortBy;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::StoreError;

/// One version of an assistant (the current one, or one of its history).
#[derive(Debug, Clone, PartialEq)]
pub struct AssistantRecord {
    /// Unique id (a UUID).
    pub assistant_id: String,
    /// Who owns it.
    pub owner: String,
    /// The graph it configures.
    pub graph_id: String,
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// LangGraph run configuration.
    pub config: Value,
    /// The agent's settings (system prompt, model, skills, tools).
    pub context: Value,
    /// Free-form metadata.
    pub metadata: Map<String, Value>,
    /// This version's number (1 first).
    pub version: i64,
    /// When the assistant was created.
    pub created_at: DateTime<Utc>,
    /// When this version was made.
    pub updated_at: DateTime<Utc>,
}

/// Versions kept per assistant: an update past it forgets the oldest.
pub const MAX_VERSIONS: i64 = 100;

/// Which of an owner's assistants a search finds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssistantFilter {
    /// Only this graph's.
    pub graph_id: Option<String>,
    /// Only names containing this (ignoring ASCII case).
    pub name: Option<String>,
    /// Only those whose metadata has all these key/value pairs.
    pub metadata: Map<String, Value>,
}

/// The order of a search: a field (then the id), descending unless `ascending`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AssistantOrder {
    /// The field.
    pub by: AssistantSortBy,
    /// Smallest first.
    pub ascending: bool,
}

/// A place in a search's order: the sort field's value and the id (for an assistant that
/// is not stored, such as the built-in one).
#[derive(Debug, Clone, PartialEq)]
pub enum SortKey {
    /// A time field's value, with the id.
    Time(DateTime<Utc>, String),
    /// A text field's value (a name compared lower-cased), with the id.
    Text(String, String),
}

/// Reads and writes assistants.
#[async_trait]
pub trait AssistantRepo: Send + Sync + 'static {
    /// Stores a new assistant as its version 1; false when its id is taken (by anyone).
    async fn create(&self, assistant: &AssistantRecord) -> Result<bool, StoreError>;
    /// One assistant of an owner, at its current version.
    async fn get(
        &self,
        owner: &str,
        assistant_id: &str,
    ) -> Result<Option<AssistantRecord>, StoreError>;
    /// A page of an owner's assistants that `filter` finds, in `order`.
    async fn search(
        &self,
        owner: &str,
        filter: &AssistantFilter,
        order: AssistantOrder,
        limit: u32,
        offset: u64,
    ) -> Result<Vec<AssistantRecord>, StoreError>;
    /// How many of an owner's assistants `filter` finds.
    async fn count(&self, owner: &str, filter: &AssistantFilter) -> Result<u64, StoreError>;
    /// How many of those come before `key` in `order`.
    async fn count_before(
        &self,
        owner: &str,
        filter: &AssistantFilter,
        order: AssistantOrder,
        key: &SortKey,
    ) -> Result<u64, StoreError>;
    /// Stores `next` as a new version (numbered after the newest) and makes it current;
    /// `None` when the owner has no such assistant.
    async fn update(&self, next: &AssistantRecord) -> Result<Option<AssistantRecord>, StoreError>;
    /// Makes an earlier version current again; `None` when the assistant or the version
    /// does not exist.
    async fn set_version(
        &self,
        owner: &str,
        assistant_id: &str,
        version: i64,
    ) -> Result<Option<AssistantRecord>, StoreError>;
    /// Deletes an assistant with its versions; false when there was none.
    async fn delete(&self, owner: &str, assistant_id: &str) -> Result<bool, StoreError>;
    /// A page of an assistant's versions whose metadata has all of `metadata`, newest
    /// first.
    async fn versions(
        &self,
        owner: &str,
        assistant_id: &str,
        metadata: &Map<String, Value>,
        limit: u32,
        offset: u64,
    ) -> Result<Vec<AssistantRecord>, StoreError>;
}
