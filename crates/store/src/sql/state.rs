//! Thread state and its checkpoints.

use antler_protocol::threads::ThreadStatus;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use sqlx::types::Json;

use super::rows::{CHECKPOINT_COLUMNS, CheckpointRow};
use super::{Db, Engine, on};
use crate::StoreError;
use crate::runs::{CheckpointRecord, NewCheckpoint, SavedCheckpoint, StateRepo};

pub(crate) struct SqlState(pub(crate) Db);

#[async_trait]
impl StateRepo for SqlState {
    async fn save(&self, cp: NewCheckpoint<'_>) -> Result<SavedCheckpoint, StoreError> {
        on!(&self.0, p => {
            let now = Utc::now();
            let mut tx = p.begin_write().await?;
            // Checkpoints of one thread are saved one at a time (the thread's row is the
            // lock), so the next position is the last one plus one; the unique (thread,
            // step) catches anything that slips past.
            sqlx::query(&format!(
                "SELECT thread_id FROM threads WHERE thread_id = $1{}",
                p.for_update()
            ))
            .bind(cp.thread_id)
            .fetch_optional(&mut *tx)
            .await?;
            let last: Option<i64> = sqlx::query_scalar(
                "SELECT MAX(step) FROM thread_checkpoints WHERE thread_id = $1",
            )
            .bind(cp.thread_id)
            .fetch_one(&mut *tx)
            .await?;
            let saved = SavedCheckpoint {
                // Time-ordered like LangGraph's (clients order branches by id), and made
                // under the lock so that id order is position order.
                checkpoint_id: uuid::Uuid::now_v7().to_string(),
                step: last.map_or(0, |step| step + 1),
                parent_id: cp.parent_id.map(str::to_string),
            };
            sqlx::query(&format!(
                "INSERT INTO thread_checkpoints ({CHECKPOINT_COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
            ))
            .bind(&saved.checkpoint_id)
            .bind(cp.thread_id)
            .bind(cp.run_id)
            .bind(&saved.parent_id)
            .bind(saved.step)
            .bind(Json(cp.values))
            .bind(p.time(now))
            .bind(Json(cp.metadata))
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "UPDATE threads SET state = $1, status = $2, updated_at = $3 WHERE thread_id = $4",
            )
            .bind(Json(cp.values))
            .bind(cp.status)
            .bind(p.time(now))
            .bind(cp.thread_id)
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

    async fn head(&self, thread_id: &str) -> Result<Option<CheckpointRecord>, StoreError> {
        type Row = (
            String,
            Option<String>,
            Option<String>,
            i64,
            DateTime<Utc>,
            Option<Json<Map<String, Value>>>,
        );
        let row: Option<Row> = on!(&self.0, p => sqlx::query_as(
            "SELECT checkpoint_id, run_id, parent_id, step, created_at, metadata \
             FROM thread_checkpoints WHERE thread_id = $1 ORDER BY step DESC LIMIT 1",
        )
        .bind(thread_id)
        .fetch_optional(p)
        .await?);
        Ok(row.map(
            |(checkpoint_id, run_id, parent_id, step, created_at, metadata)| CheckpointRecord {
                checkpoint_id,
                thread_id: thread_id.to_string(),
                run_id,
                parent_id,
                step,
                state: Value::Null,
                metadata: metadata.map(|m| m.0).unwrap_or_default(),
                created_at,
            },
        ))
    }

    async fn get(
        &self,
        thread_id: &str,
        checkpoint_id: &str,
    ) -> Result<Option<CheckpointRecord>, StoreError> {
        let sql = format!(
            "SELECT {CHECKPOINT_COLUMNS} FROM thread_checkpoints \
             WHERE thread_id = $1 AND checkpoint_id = $2"
        );
        let row: Option<CheckpointRow> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(thread_id)
            .bind(checkpoint_id)
            .fetch_optional(p)
            .await?);
        Ok(row.map(Into::into))
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
