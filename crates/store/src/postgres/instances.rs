use async_trait::async_trait;
use sqlx::{PgPool, Row};

use crate::StoreError;
use crate::instances::InstanceRepo;

pub(crate) struct PgInstances {
    pub(crate) pool: PgPool,
}

#[async_trait]
impl InstanceRepo for PgInstances {
    async fn heartbeat(&self, instance: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO instances (instance_id, heartbeat_at) VALUES ($1, now()) \
             ON CONFLICT (instance_id) DO UPDATE SET heartbeat_at = now()",
        )
        .bind(instance)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn stale(&self, me: &str, max_age_secs: u64) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT instance_id FROM instances WHERE instance_id <> $1 \
             AND heartbeat_at <= now() - make_interval(secs => $2)",
        )
        .bind(me)
        .bind(max_age_secs as f64)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| Ok(r.try_get("instance_id")?)).collect()
    }

    async fn remove(&self, instance: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM instances WHERE instance_id = $1")
            .bind(instance)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
