//! The one SQL implementation of the repositories, for both engines.
//!
//! Each method is written once; [`on`] expands its body for the SQLite and the PostgreSQL
//! pool, so both are type-checked and any difference is visible where it is. The SQL text
//! is shared (`$N` placeholders work in both); only what truly differs is per engine: JSON
//! containment in thread search, row locking, how times are stored (RFC 3339 text in
//! SQLite, `TIMESTAMPTZ` in PostgreSQL) and how a write transaction starts.

mod accounts;
mod assistant_search;
mod assistants;
mod blobs;
mod console;
mod cron_rows;
mod crons;
mod feedback;
mod instances;
mod items;
mod mcp_config;
mod memory;
mod preferences;
mod readers;
mod rows;
mod runs;
mod secrets;
mod skill_states;
mod sqlite;
mod state;
mod stats;
mod thread_copy;
mod thread_search;
mod threads;
mod usage;
mod wire;
mod writer;

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqliteSynchronous};

use self::sqlite::SqliteDb;

use crate::threads::timestamp;
use crate::{Store, StoreError};

/// A connection pool of either engine.
#[derive(Clone)]
pub(crate) enum Db {
    /// A SQLite file.
    Sqlite(SqliteDb),
    /// A PostgreSQL database.
    Postgres(PgPool),
}

/// Runs `$body` with `$p` bound to the pool of whichever engine `$db` is.
macro_rules! on {
    ($db:expr, $p:ident => $body:expr) => {
        match $db {
            crate::sql::Db::Sqlite($p) => $body,
            crate::sql::Db::Postgres($p) => $body,
        }
    };
}
pub(crate) use on;

/// What differs between the engines' pools, called by method so each arm of [`on`] gets its
/// own.
pub(crate) trait Engine {
    /// The engine.
    type Database: sqlx::Database;
    /// How a time is stored.
    type Time;
    /// A write transaction: dereferences to a connection, ends with `commit()`, rolls back
    /// when dropped.
    type Tx;
    /// Begins a write transaction.
    async fn begin_write(&self) -> Result<Self::Tx, sqlx::Error>;
    /// `t` as stored.
    fn time(&self, t: DateTime<Utc>) -> Self::Time;
    /// Appended to a `SELECT` that must lock the rows it reads (until commit).
    fn for_update(&self) -> &'static str;
    /// The JSON object in `column` with the top-level `keys` set to text parameters
    /// (`(key, "$N")`; the keys are constants of ours, never input).
    fn with_text_keys(&self, column: &str, keys: &[(&str, &str)]) -> String;
}

impl Engine for SqliteDb {
    type Database = sqlx::Sqlite;
    type Time = String;
    type Tx = writer::WriteTx;

    async fn begin_write(&self) -> Result<writer::WriteTx, sqlx::Error> {
        self.writer().begin().await
    }

    fn time(&self, t: DateTime<Utc>) -> String {
        // Text with a fixed format sorts as time (the column is TEXT).
        timestamp(t)
    }

    fn for_update(&self) -> &'static str {
        // A write transaction (`BEGIN IMMEDIATE`) already holds the database.
        ""
    }

    fn with_text_keys(&self, column: &str, keys: &[(&str, &str)]) -> String {
        let pairs: Vec<String> = keys
            .iter()
            .map(|(k, param)| format!("'$.{k}', CAST({param} AS TEXT)"))
            .collect();
        format!("json_set({column}, {})", pairs.join(", "))
    }
}

impl Engine for PgPool {
    type Database = sqlx::Postgres;
    type Time = DateTime<Utc>;
    type Tx = sqlx::Transaction<'static, sqlx::Postgres>;

    async fn begin_write(&self) -> Result<Self::Tx, sqlx::Error> {
        self.begin().await
    }

    fn time(&self, t: DateTime<Utc>) -> DateTime<Utc> {
        t
    }

    fn for_update(&self) -> &'static str {
        " FOR UPDATE"
    }

    fn with_text_keys(&self, column: &str, keys: &[(&str, &str)]) -> String {
        let pairs: Vec<String> = keys
            .iter()
            .map(|(k, param)| format!("'{k}', CAST({param} AS TEXT)"))
            .collect();
        format!("{column} || jsonb_build_object({})", pairs.join(", "))
    }
}

impl Db {
    /// Opens a SQLite file, creating it and its directory when missing.
    pub(crate) async fn sqlite(path: &Path, max_connections: u32) -> Result<Db, StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| StoreError::Database(sqlx::Error::Io(e)))?;
        }
        let options = SqliteConnectOptions::from_str("sqlite:")?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        // The writer stays open: its WAL files are there for the readers.
        // Inside a group transaction every statement and savepoint keeps the pages it
        // changes in a statement journal, so it can be undone alone: kept in memory, not in
        // a temporary file (that was most of the writer's system calls).
        // It also checkpoints the write-ahead log into the file every 10,000 pages rather
        // than SQLite's 1,000: the same hot pages (a table's root, its indexes) are written
        // by many commits, and a checkpoint copies each page once, so fewer, larger ones
        // copy less (the log grows to some 40 MB between them).
        let writer_options = options
            .clone()
            .pragma("temp_store", "memory")
            .pragma("wal_autocheckpoint", "10000");
        let mut write = SqliteConnection::connect_with(&writer_options).await?;
        sqlx::migrate!("../../migrations/sqlite")
            .run(&mut write)
            .await?;
        let read = readers::Readers::open(options, max_connections).await?;
        Ok(Db::Sqlite(SqliteDb::new(read, writer::Writer::new(write))))
    }

    /// Connects to a PostgreSQL database (a lock in the migrator keeps replicas from racing).
    pub(crate) async fn postgres(url: &str, max_connections: u32) -> Result<Db, StoreError> {
        let options: PgConnectOptions = url.parse()?;
        let pool = PgPoolOptions::new()
            .max_connections(max_connections.max(2))
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await?;
        sqlx::migrate!("../../migrations/postgres")
            .run(&pool)
            .await?;
        Ok(Db::Postgres(pool))
    }

    /// The repositories over this database.
    pub(crate) async fn store(self) -> Result<Store, StoreError> {
        let bus: Arc<dyn crate::Bus> = match &self {
            Db::Sqlite(_) => Arc::new(crate::bus::LocalBus::default()),
            Db::Postgres(pool) => Arc::new(crate::pg_bus::PgBus::start(pool.clone()).await?),
        };
        Ok(Store {
            accounts: Arc::new(accounts::SqlAccounts(self.clone())),
            assistants: Arc::new(assistants::SqlAssistants(self.clone())),
            skill_states: Arc::new(skill_states::SqlSkillStates(self.clone())),
            threads: Arc::new(threads::SqlThreads(self.clone())),
            thread_search: Arc::new(thread_search::SqlThreadSearch(self.clone())),
            runs: Arc::new(runs::SqlRuns(self.clone())),
            state: Arc::new(state::SqlState(self.clone())),
            mcp: Arc::new(mcp_config::SqlMcpConfig(self.clone())),
            memory: Arc::new(memory::SqlMemory(self.clone())),
            memory_queue: Arc::new(memory::SqlMemoryQueue(self.clone())),
            secrets: Arc::new(secrets::SqlSecrets(self.clone())),
            crons: Arc::new(crons::SqlCrons(self.clone())),
            items: Arc::new(items::SqlItems(self.clone())),
            preferences: Arc::new(preferences::SqlPreferences(self.clone())),
            usage: Arc::new(usage::SqlUsage(self.clone())),
            console: Arc::new(console::SqlConsole(self.clone())),
            feedback: Arc::new(feedback::SqlFeedback(self.clone())),
            stats: Arc::new(stats::SqlStats(self.clone())),
            instances: Arc::new(instances::SqlInstances(self)),
            bus,
        })
    }
}
