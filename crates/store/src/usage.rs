//! What model calls used and cost, per person, run, model and UTC day; and the daily limits
//! admins set per person.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

use crate::StoreError;

/// Tokens, calls and cost of some model calls.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UsageCounts {
    /// Model calls answered.
    pub model_calls: u64,
    /// Prompt tokens, cached ones included.
    pub input_tokens: u64,
    /// Of `input_tokens`, read from the provider's prompt cache.
    pub cached_input_tokens: u64,
    /// Of `input_tokens`, written to the provider's prompt cache.
    pub cache_write_tokens: u64,
    /// Completion tokens, reasoning included.
    pub output_tokens: u64,
    /// Of `output_tokens`, spent reasoning.
    pub reasoning_tokens: u64,
    /// US dollars, from the models' prices.
    pub cost_usd: f64,
}

impl UsageCounts {
    /// Adds `more` to these counts.
    pub fn add(&mut self, more: &UsageCounts) {
        self.model_calls += more.model_calls;
        self.input_tokens += more.input_tokens;
        self.cached_input_tokens += more.cached_input_tokens;
        self.cache_write_tokens += more.cache_write_tokens;
        self.output_tokens += more.output_tokens;
        self.reasoning_tokens += more.reasoning_tokens;
        self.cost_usd += more.cost_usd;
    }

    /// Prompt plus completion tokens (what a token limit counts).
    pub fn tokens(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }
}

/// What one run used of one model on one UTC day (added to what is stored).
#[derive(Debug, Clone, PartialEq)]
pub struct UsageEntry {
    /// The person the run is for.
    pub owner: String,
    /// The run that made the calls (a subagent's own run id for its calls).
    pub run_id: String,
    /// Its thread.
    pub thread_id: String,
    /// The configured model's name.
    pub model: String,
    /// The UTC day the calls ended on.
    pub day: NaiveDate,
    /// What they used.
    pub counts: UsageCounts,
}

/// How usage rows are grouped (at least one is expected; none sums everything in one row).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageGrouping {
    /// One row per UTC day.
    pub day: bool,
    /// One row per model.
    pub model: bool,
    /// One row per person.
    pub user: bool,
}

/// Which usage to sum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageQuery {
    /// One person's, or everyone's (`None`).
    pub owner: Option<String>,
    /// First UTC day, included.
    pub from: NaiveDate,
    /// Last UTC day, included.
    pub to: NaiveDate,
    /// How to group.
    pub group: UsageGrouping,
}

/// One group of summed usage; the keys not grouped by are `None`.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageRow {
    /// The day, when grouped by day.
    pub day: Option<NaiveDate>,
    /// The model, when grouped by model.
    pub model: Option<String>,
    /// The person, when grouped by user.
    pub owner: Option<String>,
    /// The sums.
    pub counts: UsageCounts,
}

/// A person's daily limits as an admin set them (`None`: the configured default).
#[derive(Debug, Clone, PartialEq)]
pub struct UsageLimitRecord {
    /// The person.
    pub owner: String,
    /// Prompt plus completion tokens per UTC day.
    pub tokens_per_day: Option<u64>,
    /// US dollars per UTC day.
    pub cost_usd_per_day: Option<f64>,
    /// When it was last set.
    pub updated_at: DateTime<Utc>,
}

/// Reads and writes model usage and limits.
#[async_trait]
pub trait UsageRepo: Send + Sync + 'static {
    /// Adds `entries` to what is stored, in one transaction (a run's usage lands whole or
    /// not at all).
    async fn record(&self, entries: &[UsageEntry]) -> Result<(), StoreError>;
    /// Sums usage as `query` asks, ordered by day, model and person.
    async fn summary(&self, query: &UsageQuery) -> Result<Vec<UsageRow>, StoreError>;
    /// What `owner` used on `day`.
    async fn day_total(&self, owner: &str, day: NaiveDate) -> Result<UsageCounts, StoreError>;
    /// The limits an admin set for `owner`, if any.
    async fn limit(&self, owner: &str) -> Result<Option<UsageLimitRecord>, StoreError>;
    /// Every person's limits an admin set, by person.
    async fn limits(&self) -> Result<Vec<UsageLimitRecord>, StoreError>;
    /// Sets a person's limits; both `None` removes them (the defaults apply).
    async fn set_limit(&self, limit: &UsageLimitRecord) -> Result<(), StoreError>;
}
