//! The PostgreSQL engine (shared deployments: several server replicas on one database).

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use crate::{Store, StoreError};

mod bus;
mod instances;
mod runs;
mod skill_states;
mod threads;

/// Connects to `url`.
pub(crate) async fn connect(url: &str, max_connections: u32) -> Result<PgPool, StoreError> {
    let options: PgConnectOptions = url.parse()?;
    let pool = PgPoolOptions::new()
        .max_connections(max_connections.max(2))
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options)
        .await?;
    Ok(pool)
}

/// Applies the migrations in `migrations/postgres/` (a lock keeps replicas from racing).
pub(crate) async fn migrate(pool: &PgPool) -> Result<(), StoreError> {
    sqlx::migrate!("../../migrations/postgres")
        .run(pool)
        .await?;
    Ok(())
}

pub(crate) async fn store(pool: PgPool) -> Result<Store, StoreError> {
    let bus = bus::PgBus::start(pool.clone()).await?;
    Ok(Store {
        skill_states: Arc::new(skill_states::PgSkillStates { pool: pool.clone() }),
        threads: Arc::new(threads::PgThreads { pool: pool.clone() }),
        runs: Arc::new(runs::PgRuns { pool: pool.clone() }),
        state: Arc::new(runs::PgRuns { pool: pool.clone() }),
        instances: Arc::new(instances::PgInstances { pool }),
        bus: Arc::new(bus),
    })
}
