//! Crons and their ticks. A due cron is claimed in a write transaction that inserts its tick
//! (unique per cron and due time) and moves its next due time: PostgreSQL skips crons
//! another replica holds (`FOR UPDATE SKIP LOCKED`), SQLite's write transaction holds the
//! database. Either way a tick is taken once.

use antler_protocol::runs::RunStatus;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::types::Json;

use super::cron_rows::{COLUMNS, FROM, Row, column};
use super::wire::Wire;
use super::{Db, Engine, on};
use crate::StoreError;
use crate::crons::{CronFilter, CronPlan, CronRecord, CronRepo, CronSort, CronTick, Planner};

pub(crate) struct SqlCrons(pub(crate) Db);

/// Appends the conditions of `filter` (`WHERE` already written); `$pg` picks the engine's
/// JSON containment.
macro_rules! push_filter {
    ($q:ident, $filter:expr, $pg:expr) => {{
        let f: &CronFilter = $filter;
        if let Some(assistant) = &f.assistant_id {
            $q.push(" AND c.assistant_id = ")
                .push_bind(assistant.clone());
        }
        if let Some(thread) = &f.thread_id {
            $q.push(" AND c.thread_id = ").push_bind(thread.clone());
        }
        if let Some(enabled) = f.enabled {
            $q.push(" AND c.enabled = ").push_bind(enabled);
        }
        if $pg {
            if !f.metadata.is_empty() {
                $q.push(" AND c.metadata @> ")
                    .push_bind(Json(f.metadata.clone()));
            }
        } else {
            // Keys are compared as values, never spliced into a JSON path.
            for (key, value) in &f.metadata {
                $q.push(" AND EXISTS (SELECT 1 FROM json_each(c.metadata) AS m WHERE m.key = ")
                    .push_bind(key.clone())
                    .push(" AND m.value IS json_extract(")
                    .push_bind(Json(value.clone()))
                    .push(", '$'))");
            }
        }
    }};
}

/// Makes a run the cron's last one, unless a later one is recorded already.
macro_rules! set_last_run {
    ($p:ident, $tx:ident, $cron_id:expr, $thread_id:expr, $run_id:expr, $at:expr) => {
        sqlx::query(
            "UPDATE crons SET last_run_id = $2, last_thread_id = $3, last_run_status = 'pending', \
             last_run_at = $4 WHERE cron_id = $1 AND (last_run_at IS NULL OR last_run_at <= $4)",
        )
        .bind($cron_id)
        .bind($run_id)
        .bind($thread_id)
        .bind($p.time($at))
        .execute(&mut *$tx)
        .await?
    };
}

#[async_trait]
impl CronRepo for SqlCrons {
    async fn create(&self, c: &CronRecord) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "INSERT INTO crons (cron_id, owner, assistant_id, thread_id, schedule, timezone, \
                 end_time, on_run_completed, payload, metadata, enabled, next_run_date, \
                 created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
            )
            .bind(&c.cron_id)
            .bind(&c.owner)
            .bind(&c.assistant_id)
            .bind(&c.thread_id)
            .bind(&c.schedule)
            .bind(&c.timezone)
            .bind(c.end_time.map(|t| p.time(t)))
            .bind(c.on_run_completed.map(Wire))
            .bind(Json(&c.payload))
            .bind(Json(&c.metadata))
            .bind(c.enabled)
            .bind(c.next_run_date.map(|t| p.time(t)))
            .bind(p.time(c.created_at))
            .bind(p.time(c.updated_at))
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn get(&self, owner: &str, cron_id: &str) -> Result<Option<CronRecord>, StoreError> {
        let sql = format!("SELECT {COLUMNS} {FROM} WHERE c.owner = $1 AND c.cron_id = $2");
        let row: Option<Row> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(owner)
            .bind(cron_id)
            .fetch_optional(p)
            .await?);
        Ok(row.map(Into::into))
    }

    async fn search(
        &self,
        owner: &str,
        filter: &CronFilter,
        sort: CronSort,
        ascending: bool,
        limit: u32,
        offset: u64,
    ) -> Result<Vec<CronRecord>, StoreError> {
        let dir = if ascending { "ASC" } else { "DESC" };
        let col = column(sort);
        let pg = matches!(self.0, Db::Postgres(_));
        let rows: Vec<Row> = on!(&self.0, p => {
            let mut q = sqlx::QueryBuilder::new(format!("SELECT {COLUMNS} {FROM} WHERE c.owner = "));
            q.push_bind(owner.to_string());
            push_filter!(q, filter, pg);
            q.push(format!(" ORDER BY {col} {dir}, c.cron_id {dir} LIMIT "))
                .push_bind(i64::from(limit))
                .push(" OFFSET ")
                .push_bind(i64::try_from(offset).unwrap_or(i64::MAX));
            q.build_query_as().fetch_all(p).await?
        });
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn count(&self, owner: &str, filter: &CronFilter) -> Result<u64, StoreError> {
        let pg = matches!(self.0, Db::Postgres(_));
        let n: i64 = on!(&self.0, p => {
            let mut q = sqlx::QueryBuilder::new("SELECT COUNT(*) FROM crons c WHERE c.owner = ");
            q.push_bind(owner.to_string());
            push_filter!(q, filter, pg);
            q.build_query_scalar().fetch_one(p).await?
        });
        Ok(super::rows::count(n))
    }

    async fn update(
        &self,
        c: &CronRecord,
        reschedule: bool,
    ) -> Result<Option<CronRecord>, StoreError> {
        // The next due time is written only when it was recomputed: a claim may have moved
        // it since this cron was read.
        let next = if reschedule {
            ", next_run_date = $12"
        } else {
            ", next_run_date = next_run_date"
        };
        let sql = format!(
            "UPDATE crons SET schedule = $3, timezone = $4, end_time = $5, on_run_completed = $6, \
             payload = $7, metadata = $8, enabled = $9, updated_at = $10, assistant_id = $11{next} \
             WHERE owner = $1 AND cron_id = $2"
        );
        let changed = on!(&self.0, p => {
            let mut q = sqlx::query(&sql)
                .bind(&c.owner)
                .bind(&c.cron_id)
                .bind(&c.schedule)
                .bind(&c.timezone)
                .bind(c.end_time.map(|t| p.time(t)))
                .bind(c.on_run_completed.map(Wire))
                .bind(Json(&c.payload))
                .bind(Json(&c.metadata))
                .bind(c.enabled)
                .bind(p.time(c.updated_at))
                .bind(&c.assistant_id);
            if reschedule {
                q = q.bind(c.next_run_date.map(|t| p.time(t)));
            }
            q.execute(p).await?.rows_affected()
        });
        if changed == 0 {
            return Ok(None);
        }
        self.get(&c.owner, &c.cron_id).await
    }

    async fn delete(&self, owner: &str, cron_id: &str) -> Result<bool, StoreError> {
        // Its ticks go with it (the foreign key cascades).
        let deleted = on!(&self.0, p => sqlx::query(
            "DELETE FROM crons WHERE owner = $1 AND cron_id = $2",
        )
        .bind(owner)
        .bind(cron_id)
        .execute(p)
        .await?
        .rows_affected());
        Ok(deleted > 0)
    }

    async fn claim_due(
        &self,
        instance: &str,
        now: DateTime<Utc>,
        limit: u32,
        plan: &Planner,
    ) -> Result<Vec<CronTick>, StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let lock = if p.for_update().is_empty() { "" } else { " FOR UPDATE OF c SKIP LOCKED" };
            let sql = format!(
                "SELECT {COLUMNS} {FROM} WHERE c.next_run_date <= $1 \
                 ORDER BY c.next_run_date LIMIT $2{lock}"
            );
            let rows: Vec<Row> = sqlx::query_as(&sql)
                .bind(p.time(now))
                .bind(i64::from(limit))
                .fetch_all(&mut *tx)
                .await?;
            let mut ticks = Vec::new();
            for row in rows {
                let cron = CronRecord::from(row);
                let Some(due) = cron.next_run_date else { continue };
                let CronPlan { run, next } = plan(&cron, now);
                if run {
                    let thread_id = cron
                        .thread_id
                        .clone()
                        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
                    // The key makes a second claim of this tick a no-op.
                    let inserted = sqlx::query(
                        "INSERT INTO cron_ticks (cron_id, scheduled_for, claimed_by, claimed_at, \
                         thread_id, state) VALUES ($1, $2, $3, $4, $5, 'claimed') \
                         ON CONFLICT (cron_id, scheduled_for) DO NOTHING",
                    )
                    .bind(&cron.cron_id)
                    .bind(p.time(due))
                    .bind(instance)
                    .bind(p.time(now))
                    .bind(&thread_id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                    if inserted > 0 {
                        ticks.push(CronTick {
                            cron: cron.clone(),
                            scheduled_for: due,
                            thread_id,
                            claimed_by: instance.to_string(),
                        });
                    }
                }
                sqlx::query("UPDATE crons SET next_run_date = $2 WHERE cron_id = $1")
                    .bind(&cron.cron_id)
                    .bind(next.map(|t| p.time(t)))
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(ticks)
        })
    }

    async fn take_over(
        &self,
        instance: &str,
        alive_after: DateTime<Utc>,
        restarted_at: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<CronTick>, StoreError> {
        let now = Utc::now();
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let lock = if p.for_update().is_empty() { "" } else { " FOR UPDATE SKIP LOCKED" };
            let sql = format!(
                "SELECT t.cron_id, t.scheduled_for, t.thread_id FROM cron_ticks t \
                 WHERE t.state = 'claimed' AND ((t.claimed_by = $1 AND t.claimed_at < $3) \
                 OR (t.claimed_by <> $1 AND NOT EXISTS (SELECT 1 FROM instances i \
                 WHERE i.instance_id = t.claimed_by AND i.heartbeat_at >= $2))) \
                 ORDER BY t.claimed_at LIMIT $4{lock}"
            );
            let orphans: Vec<(String, DateTime<Utc>, Option<String>)> = sqlx::query_as(&sql)
                .bind(instance)
                .bind(p.time(alive_after))
                .bind(p.time(restarted_at))
                .bind(i64::from(limit))
                .fetch_all(&mut *tx)
                .await?;
            let mut ticks = Vec::new();
            let one = format!("SELECT {COLUMNS} {FROM} WHERE c.cron_id = $1");
            for (cron_id, scheduled_for, thread_id) in orphans {
                sqlx::query(
                    "UPDATE cron_ticks SET claimed_by = $3, claimed_at = $4 \
                     WHERE cron_id = $1 AND scheduled_for = $2",
                )
                .bind(&cron_id)
                .bind(p.time(scheduled_for))
                .bind(instance)
                .bind(p.time(now))
                .execute(&mut *tx)
                .await?;
                let row: Option<Row> = sqlx::query_as(&one)
                    .bind(&cron_id)
                    .fetch_optional(&mut *tx)
                    .await?;
                let Some(cron) = row.map(CronRecord::from) else { continue };
                let thread_id = thread_id
                    .or_else(|| cron.thread_id.clone())
                    .unwrap_or_default();
                ticks.push(CronTick {
                    cron,
                    scheduled_for,
                    thread_id,
                    claimed_by: instance.to_string(),
                });
            }
            tx.commit().await?;
            Ok(ticks)
        })
    }

    async fn tick_started(
        &self,
        tick: &CronTick,
        run_id: &str,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let mine = sqlx::query(
                "UPDATE cron_ticks SET state = 'started', run_id = $3 \
                 WHERE cron_id = $1 AND scheduled_for = $2 AND claimed_by = $4",
            )
            .bind(&tick.cron.cron_id)
            .bind(p.time(tick.scheduled_for))
            .bind(run_id)
            .bind(&tick.claimed_by)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if mine == 0 {
                return Ok(false);
            }
            set_last_run!(p, tx, &tick.cron.cron_id, &tick.thread_id, run_id, at);
            tx.commit().await?;
            Ok(true)
        })
    }

    async fn tick_failed(&self, tick: &CronTick, error: &str) -> Result<(), StoreError> {
        let error: String = error.chars().take(2000).collect();
        on!(&self.0, p => {
            sqlx::query(
                "UPDATE cron_ticks SET state = 'failed', error = $3 \
                 WHERE cron_id = $1 AND scheduled_for = $2 AND claimed_by = $4",
            )
            .bind(&tick.cron.cron_id)
            .bind(p.time(tick.scheduled_for))
            .bind(&error)
            .bind(&tick.claimed_by)
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn record_run(
        &self,
        cron_id: &str,
        thread_id: &str,
        run_id: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            set_last_run!(p, tx, cron_id, thread_id, run_id, at);
            tx.commit().await?;
        });
        Ok(())
    }

    async fn record_status(
        &self,
        cron_id: &str,
        run_id: &str,
        status: RunStatus,
    ) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "UPDATE crons SET last_run_status = $3 WHERE cron_id = $1 AND last_run_id = $2",
            )
            .bind(cron_id)
            .bind(run_id)
            .bind(Wire(status))
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn disable(&self, cron_id: &str, reason: &str) -> Result<(), StoreError> {
        on!(&self.0, p => {
            let sql = format!(
                "UPDATE crons SET enabled = FALSE, next_run_date = NULL, updated_at = $3, \
                 metadata = {} WHERE cron_id = $1",
                p.with_text_keys("metadata", &[("disabled_reason", "$2")])
            );
            sqlx::query(&sql)
                .bind(cron_id)
                .bind(reason)
                .bind(p.time(Utc::now()))
                .execute(p)
                .await?;
        });
        Ok(())
    }

    async fn prune_ticks(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        let n = on!(&self.0, p => sqlx::query(
            "DELETE FROM cron_ticks WHERE state <> 'claimed' AND scheduled_for < $1",
        )
        .bind(p.time(before))
        .execute(p)
        .await?
        .rows_affected());
        Ok(n)
    }
}
