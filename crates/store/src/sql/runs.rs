//! Runs and their event logs.

use antler_protocol::runs::{RunStatus, StopReason};
use async_trait::async_trait;
use chrono::Utc;
use sqlx::types::Json;

use super::rows::{EventRow, RUN_COLUMNS, RunRow, stored};
use super::wire::Wire;
use super::{Db, Engine, on};
use crate::StoreError;
use crate::bus::Topic;
use crate::runs::{RunRecord, RunRepo, RunUpdate, StoredEvent};

pub(crate) struct SqlRuns(pub(crate) Db);

/// Rows per multi-row insert of events (both engines' parameter limits allow it).
const EVENT_BATCH: usize = 200;

#[async_trait]
impl RunRepo for SqlRuns {
    async fn create(&self, r: &RunRecord) -> Result<(), StoreError> {
        let sql = format!(
            "INSERT INTO runs ({RUN_COLUMNS}) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, \
             $19)"
        );
        on!(&self.0, p => {
            sqlx::query(&sql)
                .bind(&r.run_id)
                .bind(&r.thread_id)
                .bind(&r.owner)
                .bind(&r.assistant_id)
                .bind(Wire(r.status))
                .bind(r.stop_reason.map(Wire))
                .bind(&r.error)
                .bind(Wire(r.multitask_strategy))
                .bind(Json(&r.metadata))
                .bind(Json(&r.kwargs))
                .bind(&r.instance)
                .bind(stored(r.usage.input_tokens))
                .bind(stored(r.usage.output_tokens))
                .bind(stored(r.usage.model_calls))
                .bind(p.time(r.created_at))
                .bind(p.time(r.updated_at))
                .bind(stored(r.usage.cached_input_tokens))
                .bind(stored(r.usage.reasoning_tokens))
                .bind(r.usage.cost_usd)
                .execute(p)
                .await?;
        });
        Ok(())
    }

    async fn get(&self, thread_id: &str, run_id: &str) -> Result<Option<RunRecord>, StoreError> {
        let sql = format!("SELECT {RUN_COLUMNS} FROM runs WHERE thread_id = $1 AND run_id = $2");
        let row: Option<RunRow> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(thread_id)
            .bind(run_id)
            .fetch_optional(p)
            .await?);
        Ok(row.map(Into::into))
    }

    async fn list(
        &self,
        thread_id: &str,
        status: Option<RunStatus>,
        limit: u32,
        offset: u32,
    ) -> Result<Vec<RunRecord>, StoreError> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE thread_id = $1 \
             AND (CAST($2 AS TEXT) IS NULL OR status = $2) \
             ORDER BY created_at DESC, run_id DESC LIMIT $3 OFFSET $4"
        );
        let rows: Vec<RunRow> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(thread_id)
            .bind(status.map(Wire))
            .bind(i64::from(limit))
            .bind(i64::from(offset))
            .fetch_all(p)
            .await?);
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn active(&self, thread_id: &str) -> Result<Vec<RunRecord>, StoreError> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE thread_id = $1 \
             AND status IN ('pending', 'running') ORDER BY created_at, run_id"
        );
        let rows: Vec<RunRow> =
            on!(&self.0, p => sqlx::query_as(&sql).bind(thread_id).fetch_all(p).await?);
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn active_of_owner(
        &self,
        owner: &str,
        thread_id: Option<&str>,
        limit: u32,
    ) -> Result<Vec<RunRecord>, StoreError> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE owner = $1 \
             AND status IN ('pending', 'running') \
             AND (CAST($2 AS TEXT) IS NULL OR thread_id = $2) \
             ORDER BY created_at, run_id LIMIT $3"
        );
        let rows: Vec<RunRow> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(owner)
            .bind(thread_id)
            .bind(i64::from(limit))
            .fetch_all(p)
            .await?);
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn delete(&self, thread_id: &str, run_id: &str) -> Result<bool, StoreError> {
        let deleted = on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            // The events go with the run: the thread keeps that many bytes fewer.
            let bytes: Option<i64> = sqlx::query_scalar(
                "SELECT CAST(SUM(OCTET_LENGTH(data)) AS BIGINT) FROM run_events WHERE run_id = $1",
            )
            .bind(run_id)
            .fetch_one(&mut *tx)
            .await?;
            let deleted = sqlx::query(
                "DELETE FROM runs WHERE thread_id = $1 AND run_id = $2 AND status <> $3 AND status <> $4",
            )
            .bind(thread_id)
            .bind(run_id)
            .bind(Wire(RunStatus::Pending))
            .bind(Wire(RunStatus::Running))
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if deleted > 0 {
                sqlx::query(
                    "UPDATE threads SET stored_bytes = CASE WHEN stored_bytes > $1 THEN stored_bytes - $1 ELSE 0 END WHERE thread_id = $2",
                )
                .bind(bytes.unwrap_or(0))
                .bind(thread_id)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
            deleted
        });
        Ok(deleted > 0)
    }

    async fn update(&self, run_id: &str, u: &RunUpdate) -> Result<(), StoreError> {
        // JSON text in both engines (the console reads it whole, never inside it).
        let timeline = u
            .timeline
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| StoreError::Unstorable(format!("a run's timeline: {e}")))?;
        on!(&self.0, p => {
            sqlx::query(
                "UPDATE runs SET status = $1, stop_reason = $2, error = $3, input_tokens = $4, \
                 output_tokens = $5, model_calls = $6, updated_at = $7, \
                 metadata = COALESCE($9, metadata), cached_input_tokens = $10, \
                 reasoning_tokens = $11, cost_usd = $12, timeline = COALESCE($13, timeline) \
                 WHERE run_id = $8",
            )
            .bind(Wire(u.status))
            .bind(u.stop_reason.map(Wire))
            .bind(&u.error)
            .bind(stored(u.usage.input_tokens))
            .bind(stored(u.usage.output_tokens))
            .bind(stored(u.usage.model_calls))
            .bind(p.time(Utc::now()))
            .bind(run_id)
            .bind(u.metadata.as_ref().map(Json))
            .bind(stored(u.usage.cached_input_tokens))
            .bind(stored(u.usage.reasoning_tokens))
            .bind(u.usage.cost_usd)
            .bind(&timeline)
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn interrupt_active(
        &self,
        instance: Option<&str>,
        stop_reason: StopReason,
    ) -> Result<Vec<RunRecord>, StoreError> {
        let active =
            "status IN ('pending', 'running') AND (CAST($1 AS TEXT) IS NULL OR instance = $1)";
        let rows: Vec<RunRow> = on!(&self.0, p => {
            let now = Utc::now();
            let mut tx = p.begin_write().await?;
            // Threads first: the runs are still active while their threads are found.
            sqlx::query(&format!(
                "UPDATE threads SET status = 'interrupted', updated_at = $2 WHERE status = 'busy' \
                 AND thread_id IN (SELECT thread_id FROM runs WHERE {active})"
            ))
            .bind(instance)
            .bind(p.time(now))
            .execute(&mut *tx)
            .await?;
            // Answered as they are after the update.
            let rows = sqlx::query_as(&format!(
                "UPDATE runs SET status = 'interrupted', stop_reason = $2, updated_at = $3 \
                 WHERE {active} RETURNING {RUN_COLUMNS}"
            ))
            .bind(instance)
            .bind(Wire(stop_reason))
            .bind(p.time(now))
            .fetch_all(&mut *tx)
            .await?;
            tx.commit().await?;
            rows
        });
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn append_events(&self, run_id: &str, events: &[StoredEvent]) -> Result<(), StoreError> {
        match self.append_events_of_runs(&[(run_id, events)]).await {
            // The run was deleted (with its thread) while these were on their way: there is
            // nothing left to append them to.
            Err(StoreError::Database(sqlx::Error::Database(e))) if e.is_foreign_key_violation() => {
                Ok(())
            }
            result => result,
        }
    }

    async fn append_events_of_runs(
        &self,
        batch: &[(&str, &[StoredEvent])],
    ) -> Result<(), StoreError> {
        let rows: Vec<(&str, &StoredEvent)> = batch
            .iter()
            .flat_map(|(run_id, events)| events.iter().map(move |e| (*run_id, e)))
            .collect();
        let sized: Vec<(&str, i64)> = batch
            .iter()
            .filter(|(_, events)| !events.is_empty())
            .map(|(run_id, events)| {
                let bytes: usize = events.iter().map(|e| e.data.len()).sum();
                (*run_id, i64::try_from(bytes).unwrap_or(i64::MAX))
            })
            .collect();
        if rows.is_empty() {
            return Ok(());
        }
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            // Multi-row inserts keep a long stream to a few statements; a sequence number
            // already stored (a second writer's `end`) is kept, not replaced.
            for chunk in rows.chunks(EVENT_BATCH) {
                let mut q =
                    sqlx::QueryBuilder::new("INSERT INTO run_events (run_id, seq, event, data) ");
                q.push_values(chunk, |mut b, (run_id, e)| {
                    b.push_bind(*run_id)
                        .push_bind(stored(e.seq))
                        .push_bind(&e.event)
                        .push_bind(&e.data);
                });
                q.push(" ON CONFLICT DO NOTHING");
                q.build().execute(&mut *tx).await?;
            }
            // Counted against the owners' storage quotas, every thread in one statement.
            for chunk in sized.chunks(EVENT_BATCH) {
                let mut q = sqlx::QueryBuilder::new("WITH added (run_id, bytes) AS (");
                q.push_values(chunk, |mut b, (run_id, bytes)| {
                    b.push_bind(*run_id).push_bind(*bytes);
                });
                q.push(
                    ") UPDATE threads SET stored_bytes = threads.stored_bytes + d.bytes \
                     FROM (SELECT r.thread_id, SUM(added.bytes) AS bytes FROM added \
                     JOIN runs r ON r.run_id = added.run_id GROUP BY r.thread_id) AS d \
                     WHERE threads.thread_id = d.thread_id",
                );
                q.build().execute(&mut *tx).await?;
            }
            if let Db::Postgres(_) = &self.0 {
                for (run_id, events) in batch {
                    if let Some(last) = events.iter().map(|e| e.seq).max() {
                        // Delivered on commit: readers on other replicas wake up and read
                        // the rows.
                        sqlx::query("SELECT pg_notify($1, $2)")
                            .bind(Topic::RunEvents.channel())
                            .bind(format!("{run_id}:{last}"))
                            .execute(&mut *tx)
                            .await?;
                    }
                }
            }
            tx.commit().await?;
        });
        Ok(())
    }

    async fn events_after(&self, run_id: &str, after: u64) -> Result<Vec<StoredEvent>, StoreError> {
        let rows: Vec<EventRow> = on!(&self.0, p => sqlx::query_as(
            "SELECT seq, event, data FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq",
        )
        .bind(run_id)
        .bind(stored(after))
        .fetch_all(p)
        .await?);
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn events_with_prefix(
        &self,
        run_id: &str,
        after: u64,
        event: &str,
        prefix: &str,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        // `substr` counts characters in both engines (and needs no escaping, unlike LIKE).
        let chars = i32::try_from(prefix.chars().count())
            .map_err(|_| StoreError::Unstorable("the prefix is too long".into()))?;
        let rows: Vec<EventRow> = on!(&self.0, p => sqlx::query_as(
            "SELECT seq, event, data FROM run_events \
             WHERE run_id = $1 AND seq > $2 AND event = $3 AND substr(data, 1, $4) = $5 ORDER BY seq",
        )
        .bind(run_id)
        .bind(stored(after))
        .bind(event)
        .bind(chars)
        .bind(prefix)
        .fetch_all(p)
        .await?);
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn last_event_seq(&self, run_id: &str) -> Result<u64, StoreError> {
        let last: i64 = on!(&self.0, p => sqlx::query_scalar(
            "SELECT COALESCE(MAX(seq), 0) FROM run_events WHERE run_id = $1",
        )
        .bind(run_id)
        .fetch_one(p)
        .await?);
        Ok(super::rows::count(last))
    }
}
