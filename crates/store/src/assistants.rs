//! Assistants (custom agents) and their versions.

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
    /// Every assistant of an owner, most recently updated first.
    async fn list(&self, owner: &str) -> Result<Vec<AssistantRecord>, StoreError>;
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
    /// An assistant's versions, newest first.
    async fn versions(
        &self,
        owner: &str,
        assistant_id: &str,
    ) -> Result<Vec<AssistantRecord>, StoreError>;
}
