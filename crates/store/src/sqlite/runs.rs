use antler_protocol::runs::{RunStatus, StopReason};
use antler_protocol::threads::ThreadStatus;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqlitePool};

use crate::StoreError;
use crate::runs::{
    CheckpointRecord, RunRecord, RunRepo, RunUpdate, SavedCheckpoint, StateRepo, StoredEvent,
};
use crate::threads::timestamp;

pub(crate) struct SqliteRuns {
    pub(crate) pool: SqlitePool,
}

const RUN_COLUMNS: &str = "run_id, thread_id, owner, assistant_id, status, stop_reason, error, \
    multitask_strategy, metadata, kwargs, instance, input_tokens, output_tokens, model_calls, \
    created_at, updated_at";

pub(crate) fn time(row: &SqliteRow, col: &str) -> Result<DateTime<Utc>, StoreError> {
    let text: String = row.try_get(col)?;
    DateTime::parse_from_rfc3339(&text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| StoreError::Corrupt(format!("{col} '{text}': {e}")))
}

pub(crate) fn json_col<T: serde::de::DeserializeOwned>(
    row: &SqliteRow,
    col: &str,
) -> Result<T, StoreError> {
    let text: String = row.try_get(col)?;
    serde_json::from_str(&text).map_err(|e| StoreError::Corrupt(format!("{col}: {e}")))
}

fn to_json(v: &impl serde::Serialize) -> Result<String, StoreError> {
    serde_json::to_string(v).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn run(row: &SqliteRow) -> Result<RunRecord, StoreError> {
    let count =
        |col: &str| -> Result<u64, StoreError> { Ok(row.try_get::<i64, _>(col)?.max(0) as u64) };
    Ok(RunRecord {
        run_id: row.try_get("run_id")?,
        thread_id: row.try_get("thread_id")?,
        owner: row.try_get("owner")?,
        assistant_id: row.try_get("assistant_id")?,
        status: row.try_get("status")?,
        stop_reason: row.try_get("stop_reason")?,
        error: row.try_get("error")?,
        multitask_strategy: row.try_get("multitask_strategy")?,
        metadata: json_col(row, "metadata")?,
        kwargs: json_col(row, "kwargs")?,
        instance: row.try_get("instance")?,
        input_tokens: count("input_tokens")?,
        output_tokens: count("output_tokens")?,
        model_calls: count("model_calls")?,
        created_at: time(row, "created_at")?,
        updated_at: time(row, "updated_at")?,
    })
}

#[async_trait]
impl RunRepo for SqliteRuns {
    async fn create(&self, r: &RunRecord) -> Result<(), StoreError> {
        sqlx::query(&format!(
            "INSERT INTO runs ({RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ))
        .bind(&r.run_id)
        .bind(&r.thread_id)
        .bind(&r.owner)
        .bind(&r.assistant_id)
        .bind(r.status)
        .bind(r.stop_reason)
        .bind(&r.error)
        .bind(r.multitask_strategy)
        .bind(to_json(&r.metadata)?)
        .bind(to_json(&r.kwargs)?)
        .bind(&r.instance)
        .bind(r.input_tokens as i64)
        .bind(r.output_tokens as i64)
        .bind(r.model_calls as i64)
        .bind(timestamp(r.created_at))
        .bind(timestamp(r.updated_at))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn get(&self, thread_id: &str, run_id: &str) -> Result<Option<RunRecord>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE thread_id = ? AND run_id = ?"
        ))
        .bind(thread_id)
        .bind(run_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(run).transpose()
    }

    async fn list(
        &self,
        thread_id: &str,
        status: Option<RunStatus>,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<RunRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE thread_id = ? AND (? IS NULL OR status = ?) \
             ORDER BY created_at DESC, run_id DESC LIMIT ? OFFSET ?"
        ))
        .bind(thread_id)
        .bind(status)
        .bind(status)
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run).collect()
    }

    async fn update(&self, run_id: &str, u: &RunUpdate) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE runs SET status = ?, stop_reason = ?, error = ?, input_tokens = ?, \
             output_tokens = ?, model_calls = ?, updated_at = ? WHERE run_id = ?",
        )
        .bind(u.status)
        .bind(u.stop_reason)
        .bind(&u.error)
        .bind(u.input_tokens as i64)
        .bind(u.output_tokens as i64)
        .bind(u.model_calls as i64)
        .bind(timestamp(Utc::now()))
        .bind(run_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn interrupt_active(
        &self,
        instance: Option<&str>,
        stop_reason: StopReason,
    ) -> Result<Vec<RunRecord>, StoreError> {
        // Two statements, the runs answered as they are after the update (as PostgreSQL does).
        let now = timestamp(Utc::now());
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        sqlx::query(
            "UPDATE threads SET status = 'interrupted', updated_at = ? WHERE status = 'busy' \
             AND thread_id IN (SELECT thread_id FROM runs WHERE status IN ('pending', 'running') \
             AND (? IS NULL OR instance = ?))",
        )
        .bind(&now)
        .bind(instance)
        .bind(instance)
        .execute(&mut *tx)
        .await?;
        let rows = sqlx::query(&format!(
            "UPDATE runs SET status = 'interrupted', stop_reason = ?, updated_at = ? \
             WHERE status IN ('pending', 'running') AND (? IS NULL OR instance = ?) \
             RETURNING {RUN_COLUMNS}"
        ))
        .bind(stop_reason)
        .bind(&now)
        .bind(instance)
        .bind(instance)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        rows.iter().map(run).collect()
    }

    async fn append_events(&self, run_id: &str, events: &[StoredEvent]) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        // Multi-row inserts keep a long stream to a few statements.
        for batch in events.chunks(200) {
            let mut q = sqlx::QueryBuilder::new(
                "INSERT OR IGNORE INTO run_events (run_id, seq, event, data) ",
            );
            q.push_values(batch, |mut b, e| {
                b.push_bind(run_id)
                    .push_bind(e.seq as i64)
                    .push_bind(&e.event)
                    .push_bind(&e.data);
            });
            q.build().execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn events_after(&self, run_id: &str, after: u64) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, event, data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq",
        )
        .bind(run_id)
        .bind(after as i64)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(StoredEvent {
                    seq: r.try_get::<i64, _>("seq")?.max(0) as u64,
                    event: r.try_get("event")?,
                    data: r.try_get("data")?,
                })
            })
            .collect()
    }

    async fn last_event_seq(&self, run_id: &str) -> Result<u64, StoreError> {
        let last: i64 =
            sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) FROM run_events WHERE run_id = ?")
                .bind(run_id)
                .fetch_one(&self.pool)
                .await?;
        Ok(u64::try_from(last).unwrap_or(0))
    }

    async fn delete_for_thread(&self, thread_id: &str) -> Result<(), StoreError> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        sqlx::query(
            "DELETE FROM run_events WHERE run_id IN (SELECT run_id FROM runs WHERE thread_id = ?)",
        )
        .bind(thread_id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM runs WHERE thread_id = ?")
            .bind(thread_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM thread_checkpoints WHERE thread_id = ?")
            .bind(thread_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}

fn checkpoint(row: &SqliteRow) -> Result<CheckpointRecord, StoreError> {
    Ok(CheckpointRecord {
        checkpoint_id: row.try_get("checkpoint_id")?,
        thread_id: row.try_get("thread_id")?,
        run_id: row.try_get("run_id")?,
        parent_id: row.try_get("parent_id")?,
        step: row.try_get("step")?,
        state: json_col(row, "state")?,
        created_at: time(row, "created_at")?,
    })
}

const CHECKPOINT_COLUMNS: &str =
    "checkpoint_id, thread_id, run_id, parent_id, step, state, created_at";

#[async_trait]
impl StateRepo for SqliteRuns {
    async fn save(
        &self,
        thread_id: &str,
        values: &Value,
        status: ThreadStatus,
        run_id: Option<&str>,
    ) -> Result<SavedCheckpoint, StoreError> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        // Only the parent's id and step: its state may be large.
        let parent: Option<(String, i64)> = sqlx::query_as(
            "SELECT checkpoint_id, step FROM thread_checkpoints WHERE thread_id = ? \
             ORDER BY step DESC LIMIT 1",
        )
        .bind(thread_id)
        .fetch_optional(&mut *tx)
        .await?;
        let now = Utc::now();
        let record = SavedCheckpoint {
            checkpoint_id: uuid_v4(),
            step: parent.as_ref().map_or(0, |(_, step)| step + 1),
            parent_id: parent.map(|(id, _)| id),
        };
        let state = to_json(values)?;
        sqlx::query(&format!(
            "INSERT INTO thread_checkpoints ({CHECKPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
        ))
        .bind(&record.checkpoint_id)
        .bind(thread_id)
        .bind(run_id)
        .bind(&record.parent_id)
        .bind(record.step)
        .bind(&state)
        .bind(timestamp(now))
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE threads SET state = ?, status = ?, updated_at = ? WHERE thread_id = ?")
            .bind(&state)
            .bind(status)
            .bind(timestamp(now))
            .bind(thread_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(record)
    }

    async fn set_status(&self, thread_id: &str, status: ThreadStatus) -> Result<(), StoreError> {
        sqlx::query("UPDATE threads SET status = ?, updated_at = ? WHERE thread_id = ?")
            .bind(status)
            .bind(timestamp(Utc::now()))
            .bind(thread_id)
            .execute(&self.pool)
            .await?;
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
        let rows = sqlx::query(&format!(
            "SELECT {CHECKPOINT_COLUMNS} FROM thread_checkpoints WHERE thread_id = ? AND \
             (? IS NULL OR step < (SELECT step FROM thread_checkpoints WHERE checkpoint_id = ?)) \
             ORDER BY step DESC LIMIT ?"
        ))
        .bind(thread_id)
        .bind(before)
        .bind(before)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(checkpoint).collect()
    }
}

fn uuid_v4() -> String {
    uuid::Uuid::new_v4().to_string()
}
