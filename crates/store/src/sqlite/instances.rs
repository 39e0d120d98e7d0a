use async_trait::async_trait;
use chrono::{Duration, Utc};
use sqlx::{Row, SqlitePool};

use crate::StoreError;
use crate::instances::InstanceRepo;
use crate::threads::timestamp;

pub(crate) struct SqliteInstances {
    pub(crate) pool: SqlitePool,
}

#[async_trait]
impl InstanceRepo for SqliteInstances {
    async fn heartbeat(&self, instance: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO instances (instance_id, heartbeat_at) VALUES (?, ?) \
             ON CONFLICT (instance_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
        )
        .bind(instance)
        .bind(timestamp(Utc::now()))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn stale(&self, me: &str, max_age_secs: u64) -> Result<Vec<String>, StoreError> {
        let cutoff =
            Utc::now() - Duration::seconds(i64::try_from(max_age_secs).unwrap_or(i64::MAX));
        let rows = sqlx::query(
            "SELECT instance_id FROM instances WHERE instance_id <> ? AND heartbeat_at <= ?",
        )
        .bind(me)
        .bind(timestamp(cutoff))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| Ok(r.try_get("instance_id")?)).collect()
    }

    async fn remove(&self, instance: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM instances WHERE instance_id = ?")
            .bind(instance)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
