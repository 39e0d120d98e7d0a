//! Long-term memory on the wire: facts, the person's settings, export and import.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

crate::wire_enum::wire_enum! {
    /// What kind of thing a fact is.
    pub enum FactCategory {
        /// What the person likes or wants done a certain way.
        Preference = "preference",
        /// What they know or work with.
        Knowledge = "knowledge",
        /// Their situation (the default).
        Context = "context",
        /// How they tend to work.
        Behavior = "behavior",
        /// What they are after.
        Goal = "goal",
    }
}

#[expect(clippy::derivable_impls, reason = "wire_enum! owns the derives")]
impl Default for FactCategory {
    fn default() -> Self {
        FactCategory::Context
    }
}

/// A remembered fact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Fact {
    /// Its id.
    pub fact_id: String,
    /// What is known (at most 2,000 characters).
    pub content: String,
    /// What kind of thing it is.
    pub category: FactCategory,
    /// How sure, 0–1.
    pub confidence: f64,
    /// How often it was found again.
    pub confirmations: i64,
    /// Only for this assistant (`null`: every assistant).
    pub assistant_id: Option<String>,
    /// The thread it was learned in.
    pub source_thread: Option<String>,
    /// The fact it replaced.
    pub supersedes: Option<String>,
    /// RFC 3339 time it was learned.
    pub created_at: String,
    /// RFC 3339 time it last changed.
    pub updated_at: String,
    /// RFC 3339 time it was last given to the model.
    pub last_used_at: Option<String>,
}

/// `GET /api/memory`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MemoryList {
    /// The facts (ranked by relevance when searching, else newest first).
    pub facts: Vec<Fact>,
    /// How many the person has.
    pub total: u64,
    /// A summary of the person's context.
    pub summary: Option<String>,
    /// Whether memory is on for the person.
    pub enabled: bool,
}

/// `POST /api/memory/facts` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FactCreate {
    /// What to remember.
    pub content: String,
    /// What kind of thing it is (`context` when absent).
    #[serde(default)]
    pub category: Option<FactCategory>,
    /// How sure, 0–1 (default 1: the person said so).
    #[serde(default)]
    pub confidence: Option<f64>,
    /// Only for this assistant.
    #[serde(default)]
    pub assistant_id: Option<String>,
}

/// `PATCH /api/memory/facts/{id}` body: a new version of the fact (the old one is kept as
/// its history).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FactPatch {
    /// New content.
    #[serde(default)]
    pub content: Option<String>,
    /// New category.
    #[serde(default)]
    pub category: Option<FactCategory>,
    /// New confidence.
    #[serde(default)]
    pub confidence: Option<f64>,
}

/// `GET/PUT /api/memory/settings`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MemorySettingsBody {
    /// Memory on or off for the person (off: nothing is given to runs or learned).
    pub enabled: bool,
    /// A summary of the person's context (given to runs with the facts).
    #[serde(default)]
    pub summary: Option<String>,
}

/// `GET /api/memory/export` and `POST /api/memory/import`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MemoryExport {
    /// The facts.
    pub facts: Vec<FactCreate>,
    /// The summary.
    #[serde(default)]
    pub summary: Option<String>,
}

/// What `POST /api/memory/import` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MemoryImported {
    /// Facts added.
    pub count: u64,
    /// Facts skipped because the same fact is already remembered (or repeats in the file).
    pub duplicates: u64,
    /// Facts of the file not kept: over `memory.max_facts` and less useful than the rest.
    pub not_kept: u64,
    /// Facts remembered before that were forgotten to make room (less useful than the
    /// imported ones).
    pub evicted: u64,
    /// Facts remembered now.
    pub total: u64,
}
