//! Instance heartbeats.

use async_trait::async_trait;
use chrono::{Duration, Utc};

use super::{Db, Engine, on};
use crate::StoreError;
use crate::instances::InstanceRepo;

pub(crate) struct SqlInstances(pub(crate) Db);

#[async_trait]
impl InstanceRepo for SqlInstances {
    async fn heartbeat(&self, instance: &str) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "INSERT INTO instances (instance_id, heartbeat_at) VALUES ($1, $2) \
                 ON CONFLICT (instance_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
            )
            .bind(instance)
            .bind(p.time(Utc::now()))
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn stale(&self, me: &str, max_age_secs: u64) -> Result<Vec<String>, StoreError> {
        let cutoff =
            Utc::now() - Duration::seconds(i64::try_from(max_age_secs).unwrap_or(i64::MAX));
        let ids: Vec<String> = on!(&self.0, p => sqlx::query_scalar(
            "SELECT instance_id FROM instances WHERE instance_id <> $1 AND heartbeat_at <= $2",
        )
        .bind(me)
        .bind(p.time(cutoff))
        .fetch_all(p)
        .await?);
        Ok(ids)
    }

    async fn remove(&self, instance: &str) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query("DELETE FROM instances WHERE instance_id = $1")
                .bind(instance)
                .execute(p)
                .await?;
        });
        Ok(())
    }
}
