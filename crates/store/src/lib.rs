//! Persistence: one trait per repository, one SQL implementation for both engines.
//!
//! Callers hold a [`Store`] of trait objects and never see SQL. SQLite is the default (a file
//! in the data dir, nothing to install); PostgreSQL serves replicas sharing state. The `sql`
//! module writes each query once for both.

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub mod accounts;
pub mod assistants;
pub mod bus;
pub mod console;
pub mod crons;
pub mod feedback;
pub mod instances;
pub mod items;
pub mod mcp_config;
pub mod memory;
mod pg_bus;
pub mod preferences;
pub mod runs;
pub mod secrets;
pub mod skill_states;
mod sql;
pub mod stats;
pub mod thread_search;
pub mod threads;
pub mod usage;

pub use accounts::{AccountRepo, SessionRecord, SetupOutcome, TokenRecord, UserRecord, UserUpdate};
pub use assistants::{
    AssistantFilter, AssistantOrder, AssistantRecord, AssistantRepo, MAX_VERSIONS, SortKey,
};
pub use bus::{Bus, Notice, Topic};
pub use console::{ConsoleFilter, ConsolePage, ConsoleRecord, ConsoleRepo};
pub use crons::{CronFilter, CronPlan, CronRecord, CronRepo, CronSort, CronTick, LastRun};
pub use feedback::{
    ExportCursor, ExportRange, ExportedFeedback, FeedbackRecord, FeedbackRepo, NewFeedback,
    RatedFilter,
};
pub use instances::InstanceRepo;
pub use items::{ItemQuery, ItemRecord, ItemRepo, NamespaceQuery, NewItem};
pub use mcp_config::McpConfigRepo;
pub use memory::{
    FactQuery, FactRecord, Learned, MemoryQueueRepo, MemoryRepo, MemorySettings, QueuedTurn,
};
pub use runs::{
    CheckpointRecord, NewCheckpoint, RunRecord, RunRepo, RunUpdate, SavedCheckpoint, StateRepo,
    StoredEvent,
};
pub use secrets::{SecretRecord, SecretRepo};
pub use skill_states::{SkillState, SkillStateRepo};
pub use thread_search::{TextHit, ThreadSearchRepo};
pub use threads::{ThreadQuery, ThreadRecord, ThreadRepo};
pub use usage::{
    UsageCounts, UsageEntry, UsageGrouping, UsageLimitRecord, UsageQuery, UsageRepo, UsageRow,
};

/// Failures of the storage layer. The gateway maps every variant to a 500 without leaking text.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database refused or failed a query.
    #[error("database error: {0}")]
    Database(sqlx::Error),
    /// The value is valid JSON the engine cannot hold (PostgreSQL's `jsonb` has no NUL
    /// character); nothing was written.
    #[error("{0}")]
    Unstorable(String),
    /// A migration could not be applied.
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The database URL names an engine this build does not support.
    #[error("unsupported database url '{0}': expected sqlite:… or postgres://…")]
    UnsupportedUrl(String),
    /// A stored value is not what the schema promises.
    #[error("corrupt row: {0}")]
    Corrupt(String),
    /// The row exists but may not be used this way (for example another owner's id).
    #[error("conflict: {0}")]
    Conflict(String),
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        // 22P05 untranslatable_character: a `\u0000` escape in JSON sent to a jsonb column.
        if e.as_database_error().and_then(|d| d.code()).as_deref() == Some("22P05") {
            return StoreError::Unstorable(
                "the database cannot store the NUL character (U+0000) in JSON text".into(),
            );
        }
        StoreError::Database(e)
    }
}

/// Where the database is. `Debug` and `Display` never show a password.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database (the URL, password included; never logged).
    Postgres(String),
}

impl Location {
    /// Resolves `database.url`: `None` means `<data_dir>/antler.db`.
    pub fn resolve(url: Option<&str>, data_dir: &Path) -> Result<Self, StoreError> {
        match url {
            None | Some("") => Ok(Location::Sqlite(data_dir.join("antler.db"))),
            Some(url) => {
                if url.starts_with("postgres://") || url.starts_with("postgresql://") {
                    return Ok(Location::Postgres(url.to_string()));
                }
                if let Some(path) = url
                    .strip_prefix("sqlite://")
                    .or_else(|| url.strip_prefix("sqlite:"))
                {
                    let path = path.split('?').next().unwrap_or(path);
                    Ok(Location::Sqlite(PathBuf::from(path)))
                } else {
                    Err(StoreError::UnsupportedUrl(redact(url)))
                }
            }
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "sqlite:{}", path.display()),
            Location::Postgres(url) => f.write_str(&redact(url)),
        }
    }
}

impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// Hides a password in a URL before it reaches an error message.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://…@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}

/// The repositories, shared by every request.
#[derive(Clone)]
pub struct Store {
    /// Accounts, sessions and tokens.
    pub accounts: Arc<dyn AccountRepo>,
    /// Assistants (custom agents).
    pub assistants: Arc<dyn AssistantRepo>,
    /// Enabled state of skills.
    pub skill_states: Arc<dyn SkillStateRepo>,
    /// Conversation threads.
    pub threads: Arc<dyn ThreadRepo>,
    /// Full-text search over the threads' titles and messages.
    pub thread_search: Arc<dyn ThreadSearchRepo>,
    /// Runs and their event logs.
    pub runs: Arc<dyn RunRepo>,
    /// Thread state and checkpoints.
    pub state: Arc<dyn StateRepo>,
    /// Instance heartbeats.
    pub instances: Arc<dyn InstanceRepo>,
    /// The MCP servers' configuration.
    pub mcp: Arc<dyn McpConfigRepo>,
    /// Long-term memory.
    pub memory: Arc<dyn MemoryRepo>,
    /// Conversations waiting for memory extraction.
    pub memory_queue: Arc<dyn MemoryQueueRepo>,
    /// Named secrets (sealed).
    pub secrets: Arc<dyn SecretRepo>,
    /// LangGraph store items (each person's JSON documents).
    pub items: Arc<dyn ItemRepo>,
    /// Each person's preferences (follow-up suggestions).
    pub preferences: Arc<dyn preferences::PreferenceRepo>,
    /// Notices between processes.
    pub bus: Arc<dyn Bus>,
    /// Crons (scheduled runs) and their ticks.
    pub crons: Arc<dyn CronRepo>,
    /// Model usage and daily limits.
    pub usage: Arc<dyn UsageRepo>,
    /// Runs across owners for the admin runs console.
    pub console: Arc<dyn ConsoleRepo>,
    /// Feedback on answers (thumbs up or down).
    pub feedback: Arc<dyn FeedbackRepo>,
    /// Queue lengths and pool figures for `/metrics`.
    pub stats: Arc<dyn stats::StatsRepo>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Store")
    }
}

impl Store {
    /// Opens (creating when missing) the database and applies pending migrations.
    pub async fn open(location: &Location, max_connections: u32) -> Result<Self, StoreError> {
        let db = match location {
            Location::Sqlite(path) => sql::Db::sqlite(path, max_connections).await?,
            Location::Postgres(url) => sql::Db::postgres(url, max_connections).await?,
        };
        db.store().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_database_urls() {
        let data = Path::new("/data");
        assert_eq!(
            Location::resolve(None, data).unwrap(),
            Location::Sqlite("/data/antler.db".into())
        );
        assert_eq!(
            Location::resolve(Some("sqlite:///tmp/x.db?mode=rwc"), data).unwrap(),
            Location::Sqlite("/tmp/x.db".into())
        );
        assert_eq!(
            Location::resolve(Some("sqlite:rel.db"), data).unwrap(),
            Location::Sqlite("rel.db".into())
        );
        let err = Location::resolve(Some("mysql://u:secret@h/db"), data).unwrap_err();
        assert!(!err.to_string().contains("secret"), "{err}");
        let pg = Location::resolve(Some("postgres://u:secret@h:5432/db"), data).unwrap();
        assert_eq!(pg.to_string(), "postgres://…@h:5432/db");
        assert!(!format!("{pg:?}").contains("secret"));
    }
}
