use antler_protocol::runs::{RunStatus, StopReason};
use antler_protocol::threads::ThreadStatus;
use async_trait::async_trait;
use serde_json::{Map, Value};
use sqlx::postgres::PgRow;
use sqlx::types::Json;
use sqlx::{PgPool, Row};

use crate::StoreError;
use crate::bus::Topic;
use crate::runs::{
    CheckpointRecord, RunRecord, RunRepo, RunUpdate, SavedCheckpoint, StateRepo, StoredEvent,
};

pub(crate) struct PgRuns {
    pub(crate) pool: PgPool,
}

const RUN_COLUMNS: &str = "run_id, thread_id, owner, assistant_id, status, stop_reason, error, \
    multitask_strategy, metadata, kwargs, instance, input_tokens, output_tokens, model_calls, \
    created_at, updated_at";

fn run(row: &PgRow) -> Result<RunRecord, StoreError> {
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
        metadata: row.try_get::<Json<Map<String, Value>>, _>("metadata")?.0,
        kwargs: row.try_get::<Json<Value>, _>("kwargs")?.0,
        instance: row.try_get("instance")?,
        input_tokens: count("input_tokens")?,
        output_tokens: count("output_tokens")?,
        model_calls: count("model_calls")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

#[async_trait]
impl RunRepo for PgRuns {
    async fn create(&self, r: &RunRecord) -> Result<(), StoreError> {
        sqlx::query(&format!(
            "INSERT INTO runs ({RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
        ))
        .bind(&r.run_id)
        .bind(&r.thread_id)
        .bind(&r.owner)
        .bind(&r.assistant_id)
        .bind(r.status)
        .bind(r.stop_reason)
        .bind(&r.error)
        .bind(r.multitask_strategy)
        .bind(Json(&r.metadata))
        .bind(Json(&r.kwargs))
        .bind(&r.instance)
        .bind(r.input_tokens as i64)
        .bind(r.output_tokens as i64)
        .bind(r.model_calls as i64)
        .bind(r.created_at)
        .bind(r.updated_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn get(&self, thread_id: &str, run_id: &str) -> Result<Option<RunRecord>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE thread_id = $1 AND run_id = $2"
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
            "SELECT {RUN_COLUMNS} FROM runs WHERE thread_id = $1 \
             AND (CAST($2 AS TEXT) IS NULL OR status = $2) \
             ORDER BY created_at DESC, run_id DESC LIMIT $3 OFFSET $4"
        ))
        .bind(thread_id)
        .bind(status)
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run).collect()
    }

    async fn update(&self, run_id: &str, u: &RunUpdate) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE runs SET status = $1, stop_reason = $2, error = $3, input_tokens = $4, \
             output_tokens = $5, model_calls = $6, updated_at = clock_timestamp() WHERE run_id = $7",
        )
        .bind(u.status)
        .bind(u.stop_reason)
        .bind(&u.error)
        .bind(u.input_tokens as i64)
        .bind(u.output_tokens as i64)
        .bind(u.model_calls as i64)
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
        let mut tx = self.pool.begin().await?;
        let rows = sqlx::query(&format!(
            "UPDATE runs SET status = 'interrupted', stop_reason = $2, updated_at = clock_timestamp() \
             WHERE status IN ('pending', 'running') AND ($1::text IS NULL OR instance = $1) \
             RETURNING {RUN_COLUMNS}"
        ))
        .bind(instance)
        .bind(stop_reason)
        .fetch_all(&mut *tx)
        .await?;
        let runs: Vec<RunRecord> = rows.iter().map(run).collect::<Result<_, _>>()?;
        for r in &runs {
            sqlx::query("UPDATE threads SET status = 'interrupted', updated_at = clock_timestamp() WHERE thread_id = $1 AND status = 'busy'")
                .bind(&r.thread_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(runs)
    }

    async fn append_events(&self, run_id: &str, events: &[StoredEvent]) -> Result<(), StoreError> {
        let Some(last) = events.iter().map(|e| e.seq).max() else {
            return Ok(());
        };
        let mut tx = self.pool.begin().await?;
        for batch in events.chunks(500) {
            let mut q =
                sqlx::QueryBuilder::new("INSERT INTO run_events (run_id, seq, event, data) ");
            q.push_values(batch, |mut b, e| {
                b.push_bind(run_id)
                    .push_bind(e.seq as i64)
                    .push_bind(&e.event)
                    .push_bind(&e.data);
            });
            q.push(" ON CONFLICT DO NOTHING");
            q.build().execute(&mut *tx).await?;
        }
        // Delivered on commit: readers on other replicas wake up and read the new rows.
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(Topic::RunEvents.channel())
            .bind(format!("{run_id}:{last}"))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn events_after(&self, run_id: &str, after: u64) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, event, data FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq",
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
            sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) FROM run_events WHERE run_id = $1")
                .bind(run_id)
                .fetch_one(&self.pool)
                .await?;
        Ok(u64::try_from(last).unwrap_or(0))
    }

    async fn delete_for_thread(&self, thread_id: &str) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "DELETE FROM run_events WHERE run_id IN (SELECT run_id FROM runs WHERE thread_id = $1)",
        )
        .bind(thread_id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM runs WHERE thread_id = $1")
            .bind(thread_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM thread_checkpoints WHERE thread_id = $1")
            .bind(thread_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}

const CHECKPOINT_COLUMNS: &str =
    "checkpoint_id, thread_id, run_id, parent_id, step, state, created_at";

fn checkpoint(row: &PgRow) -> Result<CheckpointRecord, StoreError> {
    Ok(CheckpointRecord {
        checkpoint_id: row.try_get("checkpoint_id")?,
        thread_id: row.try_get("thread_id")?,
        run_id: row.try_get("run_id")?,
        parent_id: row.try_get("parent_id")?,
        step: row.try_get("step")?,
        state: row.try_get::<Json<Value>, _>("state")?.0,
        created_at: row.try_get("created_at")?,
    })
}

#[async_trait]
impl StateRepo for PgRuns {
    async fn save(
        &self,
        thread_id: &str,
        values: &Value,
        status: ThreadStatus,
        run_id: Option<&str>,
    ) -> Result<SavedCheckpoint, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Serialises checkpoints of one thread (steps stay unique and ordered).
        sqlx::query("SELECT 1 FROM threads WHERE thread_id = $1 FOR UPDATE")
            .bind(thread_id)
            .execute(&mut *tx)
            .await?;
        // The parent from one lookup; the state is not sent back.
        let (checkpoint_id, parent_id, step): (String, Option<String>, i64) = sqlx::query_as(&format!(
            "INSERT INTO thread_checkpoints ({CHECKPOINT_COLUMNS}) \
             SELECT $1, $2, $3, last.checkpoint_id, COALESCE(last.step, -1) + 1, $4, clock_timestamp() \
             FROM (SELECT 1) AS one LEFT JOIN LATERAL (SELECT checkpoint_id, step FROM thread_checkpoints \
               WHERE thread_id = $2 ORDER BY step DESC LIMIT 1) AS last ON true \
             RETURNING checkpoint_id, parent_id, step"
        ))
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(thread_id)
        .bind(run_id)
        .bind(Json(values))
        .fetch_one(&mut *tx)
        .await?;
        let record = SavedCheckpoint {
            checkpoint_id,
            parent_id,
            step,
        };
        sqlx::query("UPDATE threads SET state = $1, status = $2, updated_at = clock_timestamp() WHERE thread_id = $3")
            .bind(Json(values))
            .bind(status)
            .bind(thread_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(record)
    }

    async fn set_status(&self, thread_id: &str, status: ThreadStatus) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE threads SET status = $1, updated_at = clock_timestamp() WHERE thread_id = $2",
        )
        .bind(status)
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
            "SELECT {CHECKPOINT_COLUMNS} FROM thread_checkpoints WHERE thread_id = $1 AND \
             ($2::text IS NULL OR step < (SELECT step FROM thread_checkpoints WHERE checkpoint_id = $2)) \
             ORDER BY step DESC LIMIT $3"
        ))
        .bind(thread_id)
        .bind(before)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(checkpoint).collect()
    }
}
