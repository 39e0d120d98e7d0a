//! The memory queue: conversations waiting to be learned from, claimed by one replica at a
//! time, and what a reading learned applied with its turn.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::StoreError;
use crate::memory::{Learned, MemoryQueueRepo, QueuedTurn};
use crate::sql::wire::Wire;
use crate::sql::{Db, Engine, on};

pub(crate) struct SqlMemoryQueue(pub(crate) Db);

#[async_trait]
impl MemoryQueueRepo for SqlMemoryQueue {
    async fn enqueue(
        &self,
        owner: &str,
        thread_id: &str,
        assistant_id: Option<&str>,
        due_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "INSERT INTO memory_queue (owner, thread_id, assistant_id, due_at) SELECT $1, $2, $3, $4 \
                 WHERE NOT EXISTS (SELECT 1 FROM memory_settings WHERE owner = $1 AND NOT enabled) \
                 ON CONFLICT (owner, thread_id) DO UPDATE SET assistant_id = excluded.assistant_id, \
                 due_at = excluded.due_at",
            )
            .bind(owner)
            .bind(thread_id)
            .bind(assistant_id)
            .bind(p.time(due_at))
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn claim(
        &self,
        instance: &str,
        stale_before: DateTime<Utc>,
    ) -> Result<Option<QueuedTurn>, StoreError> {
        let now = Utc::now();
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            // One claimant: the row is locked (PostgreSQL skips rows another replica holds;
            // SQLite's write transaction holds the database).
            let sql = format!(
                "SELECT owner, thread_id, assistant_id, attempts FROM memory_queue \
                 WHERE due_at <= $1 AND (claimed_by IS NULL OR claimed_at < $2) \
                 ORDER BY due_at LIMIT 1{}",
                if p.for_update().is_empty() { "" } else { " FOR UPDATE SKIP LOCKED" }
            );
            let row: Option<(String, String, Option<String>, i64)> = sqlx::query_as(&sql)
                .bind(p.time(now))
                .bind(p.time(stale_before))
                .fetch_optional(&mut *tx)
                .await?;
            let Some((owner, thread_id, assistant_id, attempts)) = row else {
                return Ok(None);
            };
            sqlx::query(
                "UPDATE memory_queue SET claimed_by = $3, claimed_at = $4, attempts = attempts + 1 \
                 WHERE owner = $1 AND thread_id = $2",
            )
            .bind(&owner)
            .bind(&thread_id)
            .bind(instance)
            .bind(p.time(now))
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(Some(QueuedTurn {
                owner,
                thread_id,
                assistant_id,
                claimed_at: now,
                claimed_by: instance.to_string(),
                attempts: attempts + 1,
            }))
        })
    }

    async fn finish(&self, item: &QueuedTurn) -> Result<(), StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            finish_claim!(p, tx, item);
            tx.commit().await?;
        });
        Ok(())
    }

    async fn apply_learned(&self, item: &QueuedTurn, l: &Learned) -> Result<bool, StoreError> {
        let owner = item.owner.as_str();
        on!(&self.0, p => {
            // Everything a reading of the conversation changes, and the end of its turn in
            // the queue, in one transaction: a crash before the commit changes nothing (the
            // turn is read again), after it the turn is done (nothing counts twice).
            let mut tx = p.begin_write().await?;
            let claimant: Option<Option<String>> = sqlx::query_scalar(
                "SELECT claimed_by FROM memory_queue WHERE owner = $1 AND thread_id = $2",
            )
            .bind(owner)
            .bind(&item.thread_id)
            .fetch_optional(&mut *tx)
            .await?;
            if claimant.flatten().as_deref() != Some(item.claimed_by.as_str()) {
                // Another replica took the turn over: it applies its own reading.
                return Ok(false);
            }
            let now = Utc::now();
            for fact in &l.add {
                insert!(p, tx, fact);
            }
            for id in &l.confirm {
                sqlx::query(
                    "UPDATE memory_facts SET confirmations = confirmations + 1, updated_at = $3 \
                     WHERE owner = $1 AND fact_id = $2 AND active",
                )
                .bind(owner)
                .bind(id)
                .bind(p.time(now))
                .execute(&mut *tx)
                .await?;
            }
            for (old, next) in &l.supersede {
                let changed = sqlx::query(
                    "UPDATE memory_facts SET active = FALSE, updated_at = $3 \
                     WHERE owner = $1 AND fact_id = $2 AND active",
                )
                .bind(owner)
                .bind(old)
                .bind(p.time(now))
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if changed > 0 {
                    insert!(p, tx, next);
                }
            }
            for id in l.delete.iter().chain(&l.evict) {
                delete_chain!(tx, owner, id.as_str());
            }
            finish_claim!(p, tx, item);
            tx.commit().await?;
            Ok(true)
        })
    }

    async fn renew(&self, item: &QueuedTurn, instance: &str) -> Result<bool, StoreError> {
        let now = Utc::now();
        let renewed = on!(&self.0, p => sqlx::query(
            "UPDATE memory_queue SET claimed_at = $4 \
             WHERE owner = $1 AND thread_id = $2 AND claimed_by = $3",
        )
        .bind(&item.owner)
        .bind(&item.thread_id)
        .bind(instance)
        .bind(p.time(now))
        .execute(p)
        .await?
        .rows_affected());
        Ok(renewed > 0)
    }

    async fn retry(&self, item: &QueuedTurn, retry_at: DateTime<Utc>) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "UPDATE memory_queue SET claimed_by = NULL, claimed_at = NULL, due_at = $3 \
                 WHERE owner = $1 AND thread_id = $2 AND claimed_by = $4",
            )
            .bind(&item.owner)
            .bind(&item.thread_id)
            .bind(p.time(retry_at))
            .bind(&item.claimed_by)
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn drop_queued(&self, owner: &str, thread_id: Option<&str>) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "DELETE FROM memory_queue WHERE owner = $1 AND (CAST($2 AS TEXT) IS NULL OR thread_id = $2)",
            )
            .bind(owner)
            .bind(thread_id)
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn queued(&self) -> Result<u64, StoreError> {
        let n: i64 = on!(&self.0, p => sqlx::query_scalar("SELECT COUNT(*) FROM memory_queue")
            .fetch_one(p)
            .await?);
        Ok(u64::try_from(n).unwrap_or(0))
    }
}
