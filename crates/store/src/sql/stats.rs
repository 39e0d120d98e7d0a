//! [`StatsRepo`] over SQL.

use async_trait::async_trait;
use chrono::Utc;

use super::{Db, Engine, on};
use crate::StoreError;
use crate::stats::{PoolStats, QueueLengths, StatsRepo};

pub(crate) struct SqlStats(pub(crate) Db);

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

#[async_trait]
impl StatsRepo for SqlStats {
    async fn queue_lengths(&self) -> Result<QueueLengths, StoreError> {
        let (memory, crons): (i64, i64) = on!(&self.0, p => sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM memory_queue), \
             (SELECT COUNT(*) FROM crons WHERE next_run_date IS NOT NULL AND next_run_date <= $1)",
        )
        .bind(p.time(Utc::now()))
        .fetch_one(p)
        .await?);
        Ok(QueueLengths {
            memory_extraction: count(memory),
            crons_due: count(crons),
        })
    }

    fn pool(&self) -> PoolStats {
        match &self.0 {
            Db::Sqlite(db) => {
                let (open, idle, max) = db.readers().counts();
                PoolStats {
                    size: open + 1,
                    idle: idle + u32::from(db.writer().idle()),
                    max: max + 1,
                }
            }
            Db::Postgres(pool) => of(pool),
        }
    }
}

fn of<D: sqlx::Database>(p: &sqlx::Pool<D>) -> PoolStats {
    PoolStats {
        size: p.size(),
        idle: u32::try_from(p.num_idle()).unwrap_or(u32::MAX),
        max: p.options().get_max_connections(),
    }
}
