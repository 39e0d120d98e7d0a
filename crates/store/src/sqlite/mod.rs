//! The SQLite engine.

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use crate::{Store, StoreError};

mod instances;
mod runs;
mod skill_states;
mod threads;

/// Opens the file, creating it and its directory when missing.
pub(crate) async fn connect(path: &Path, max_connections: u32) -> Result<SqlitePool, StoreError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| StoreError::Database(sqlx::Error::Io(e)))?;
    }
    let options = SqliteConnectOptions::from_str("sqlite:")?
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(Duration::from_secs(5))
        .foreign_keys(true);
    let pool = SqlitePoolOptions::new()
        .max_connections(max_connections.max(1))
        .connect_with(options)
        .await?;
    Ok(pool)
}

/// Applies the migrations in `migrations/sqlite/`.
pub(crate) async fn migrate(pool: &SqlitePool) -> Result<(), StoreError> {
    sqlx::migrate!("../../migrations/sqlite").run(pool).await?;
    Ok(())
}

pub(crate) fn store(pool: SqlitePool) -> Store {
    Store {
        skill_states: Arc::new(skill_states::SqliteSkillStates { pool: pool.clone() }),
        threads: Arc::new(threads::SqliteThreads { pool: pool.clone() }),
        runs: Arc::new(runs::SqliteRuns { pool: pool.clone() }),
        state: Arc::new(runs::SqliteRuns { pool: pool.clone() }),
        instances: Arc::new(instances::SqliteInstances { pool }),
        bus: Arc::new(crate::bus::LocalBus::default()),
    }
}
