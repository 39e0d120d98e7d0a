//! The admin runs console: every person's runs, filtered, counted and paged by the database,
//! each with what the console shows beside it (its timeline, the models it called, its
//! owner's email).

use antler_protocol::console::RunStep;
use antler_protocol::runs::RunStatus;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::StoreError;
use crate::runs::RunRecord;

/// Which runs to list (every filter left `None` lets all runs through).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsoleFilter {
    /// One person's runs (their owner id).
    pub owner: Option<String>,
    /// One agent's runs.
    pub assistant_id: Option<String>,
    /// Runs in this status.
    pub status: Option<RunStatus>,
    /// Runs created at or after this time.
    pub from: Option<DateTime<Utc>>,
    /// Runs created before this time.
    pub to: Option<DateTime<Utc>>,
    /// Subagents' runs too (`metadata.parent_run_id` set); `false` keeps the runs people
    /// started.
    pub subagents: bool,
    /// Runs with feedback (of one rating).
    pub feedback: Option<crate::feedback::RatedFilter>,
}

/// A run as the console reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsoleRecord {
    /// The run.
    pub run: RunRecord,
    /// Its steps, as its final update stored them (`None`: a run from before timelines were
    /// kept, or one still working).
    pub timeline: Option<Vec<RunStep>>,
    /// The models its own calls used (`model_usage`), distinct and sorted.
    pub models: Vec<String>,
    /// Its owner's email when the owner is an account.
    pub owner_email: Option<String>,
    /// What people thought of its answer, oldest first.
    pub feedback: Vec<crate::feedback::FeedbackRecord>,
}

/// A page of runs and how many match in all.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsolePage {
    /// The page, newest first.
    pub runs: Vec<ConsoleRecord>,
    /// Runs matching the filter, over all pages.
    pub total: u64,
}

/// Reads runs across owners for admins (callers check who may).
#[async_trait]
pub trait ConsoleRepo: Send + Sync + 'static {
    /// The runs `filter` lets through, newest first: at most `limit` from `offset`, with
    /// the count of all of them.
    async fn list(
        &self,
        filter: &ConsoleFilter,
        limit: u32,
        offset: u32,
    ) -> Result<ConsolePage, StoreError>;
    /// One run, whoever owns it.
    async fn get(&self, run_id: &str) -> Result<Option<ConsoleRecord>, StoreError>;
    /// The runs of the subagents `run_id` started (`metadata.parent_run_id`), oldest first.
    async fn children(&self, run_id: &str) -> Result<Vec<ConsoleRecord>, StoreError>;
}
