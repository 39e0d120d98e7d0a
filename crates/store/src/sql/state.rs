//! Thread state and its checkpoints.

use antler_protocol::threads::ThreadStatus;
use async_trait::async_trait;
use chrono::Utc;
use serde_json::Value;
use sqlx::types::Json;

use super::rows::{CHECKPOINT_COLUMNS, CheckpointRow};
use super::{Db, Engine, on};
use crate::StoreError;
use crate::runs::{CheckpointRecord, SavedCheckpoint, StateRepo};

pub(crate) struct SqlState(pub(crate) Db);

#[async_trait]
impl StateRepo for SqlState {
    async fn save(
        &self,
        thread_id: &str,
        values: &Value,
        status: ThreadStatus,
        run_id: Option<&str>,
    ) -> Result<SavedCheckpoint, StoreError> {
        let checkpoint_id = uuid::Uuid::new_v4().to_string();
        on!(&self.0, p => {
            let now = Utc::now();
            let mut tx = p.begin_write().await?;
            // Checkpoints of one thread are saved one at a time (the thread's row is the
            // lock), so the next step is the last one plus one; the unique (thread, step)
            // catches anything that slips past.
            sqlx::query(&format!(
                "SELECT thread_id FROM threads WHERE thread_id = $1{}",
                p.for_update()
            ))
            .bind(thread_id)
            .fetch_optional(&mut *tx)
            .await?;
            // Only the parent's id and step: its state may be large.
            let parent: Option<(String, i64)> = sqlx::query_as(
                "SELECT checkpoint_id, step FROM thread_checkpoints WHERE thread_id = $1 \
                 ORDER BY step DESC LIMIT 1",
            )
            .bind(thread_id)
            .fetch_optional(&mut *tx)
            .await?;
            let saved = SavedCheckpoint {
                checkpoint_id,
                step: parent.as_ref().map_or(0, |(_, step)| step + 1),
                parent_id: parent.map(|(id, _)| id),
            };
            sqlx::query(&format!(
                "INSERT INTO thread_checkpoints ({CHECKPOINT_COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)"
            ))
            .bind(&saved.checkpoint_id)
            .bind(thread_id)
            .bind(run_id)
            .bind(&saved.parent_id)
            .bind(saved.step)
            .bind(Json(values))
            .bind(p.time(now))
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "UPDATE threads SET state = $1, status = $2, updated_at = $3 WHERE thread_id = $4",
            )
            .bind(Json(values))
            .bind(status)
            .bind(p.time(now))
            .bind(thread_id)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(saved)
        })
    }

    async fn set_status(&self, thread_id: &str, status: ThreadStatus) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query("UPDATE threads SET status = $1, updated_at = $2 WHERE thread_id = $3")
                .bind(status)
                .bind(p.time(Utc::now()))
                .bind(thread_id)
                .execute(p)
                .await?;
        });
        Ok(())
    }

    async fn latest(&self, thread_id: &str) -> Result<Option<CheckpointRecord>, StoreError> {
        Ok(self.history(thread_id, 1, None).await?.into_iter().next())
    }

    async fn history(
        &self,
        thread_id: &str,
        limit: u32,
        before: Option<&str>,
    ) -> Result<Vec<CheckpointRecord>, StoreError> {
        let sql = format!(
            "SELECT {CHECKPOINT_COLUMNS} FROM thread_checkpoints WHERE thread_id = $1 AND \
             (CAST($2 AS TEXT) IS NULL OR step < \
               (SELECT step FROM thread_checkpoints WHERE thread_id = $1 AND checkpoint_id = $2)) \
             ORDER BY step DESC LIMIT $3"
        );
        let rows: Vec<CheckpointRow> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(thread_id)
            .bind(before)
            .bind(i64::from(limit))
            .fetch_all(p)
            .await?);
        Ok(rows.into_iter().map(Into::into).collect())
    }
}
