//! Thread state and its checkpoints.

use std::collections::HashSet;

use antler_protocol::threads::ThreadStatus;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use sqlx::types::Json;

use super::blobs;
use super::rows::{CHECKPOINT_COLUMNS, CheckpointRow};
use super::wire::Wire;
use super::{Db, Engine, on};
use crate::StoreError;
use crate::runs::{CheckpointRecord, NewCheckpoint, SavedCheckpoint, StateRepo};

pub(crate) struct SqlState(pub(crate) Db);

#[async_trait]
impl StateRepo for SqlState {
    async fn save_chain(
        &self,
        chain: &[NewCheckpoint<'_>],
    ) -> Result<Vec<SavedCheckpoint>, StoreError> {
        let (Some(first), Some(last)) = (chain.first(), chain.last()) else {
            return Ok(Vec::new());
        };
        let thread_id = first.thread_id;
        if chain.iter().any(|cp| cp.thread_id != thread_id) {
            return Err(StoreError::Unstorable(
                "a chain of checkpoints belongs to one thread".into(),
            ));
        }
        let splits = chain
            .iter()
            .map(|cp| blobs::split(cp.values))
            .collect::<Result<Vec<_>, _>>()?;
        on!(&self.0, p => {
            let now = Utc::now();
            let mut tx = p.begin_write().await?;
            // Checkpoints of one thread are saved one at a time (the thread's row is the
            // lock; SQLite's write transaction holds the whole database already), so the next
            // position, counted in the insert, is the last one plus one; the unique (thread,
            // step) catches anything that slips past.
            if !p.for_update().is_empty() {
                sqlx::query(&format!(
                    "SELECT thread_id FROM threads WHERE thread_id = $1{}",
                    p.for_update()
                ))
                .bind(thread_id)
                .fetch_optional(&mut *tx)
                .await?;
            }
            let mut added = 0usize;
            let mut saved: Vec<SavedCheckpoint> = Vec::with_capacity(chain.len());
            for (cp, split) in chain.iter().zip(&splits) {
                // Only messages the thread does not hold yet are written (and counted). When
                // they are large, it is asked which first, so that a long thread's messages
                // are not sent again with every save; small ones are offered and the insert
                // answers which were new (one statement instead of two).
                let mut known = HashSet::new();
                if split.blobs.values().map(String::len).sum::<usize>() > blobs::ASK_FIRST_BYTES {
                    let hashes: Vec<&String> = split.blobs.keys().collect();
                    for chunk in hashes.chunks(blobs::IN_CHUNK) {
                        let mut q = sqlx::QueryBuilder::new(
                            "SELECT hash FROM checkpoint_blobs WHERE thread_id = ",
                        );
                        q.push_bind(thread_id).push(" AND hash IN (");
                        let mut list = q.separated(", ");
                        for h in chunk {
                            list.push_bind(h.as_str());
                        }
                        q.push(")");
                        let found: Vec<String> =
                            q.build_query_scalar().fetch_all(&mut *tx).await?;
                        known.extend(found);
                    }
                }
                let fresh: Vec<(&String, &String)> = split
                    .blobs
                    .iter()
                    .filter(|(h, _)| !known.contains(*h))
                    .collect();
                for chunk in fresh.chunks(blobs::IN_CHUNK / 3) {
                    let mut q = sqlx::QueryBuilder::new(
                        "INSERT INTO checkpoint_blobs (thread_id, hash, data) ",
                    );
                    q.push_values(chunk, |mut b, (h, text)| {
                        b.push_bind(thread_id).push_bind(h.as_str()).push_bind(text.as_str());
                    });
                    q.push(" ON CONFLICT DO NOTHING RETURNING hash");
                    let inserted: Vec<String> =
                        q.build_query_scalar().fetch_all(&mut *tx).await?;
                    added += inserted
                        .iter()
                        .filter_map(|h| split.blobs.get(h))
                        .map(String::len)
                        .sum::<usize>();
                }
                let state = split.rest.as_ref().unwrap_or(cp.values);
                let refs = split.rest.as_ref().map(|_| Json(&split.refs));
                // Each after the one before it; the first after the branch head given.
                let parent_id = match saved.last() {
                    Some(before) => Some(before.checkpoint_id.as_str()),
                    None => cp.parent_id,
                };
                // Time-ordered like LangGraph's (clients order branches by id), and made
                // under the lock so that id order is position order.
                let checkpoint_id = uuid::Uuid::now_v7().to_string();
                let state_text = serde_json::to_string(state).map_err(|e| {
                    StoreError::Unstorable(format!("a state cannot be stored: {e}"))
                })?;
                let meta_text = serde_json::to_string(cp.metadata).map_err(|e| {
                    StoreError::Unstorable(format!("metadata cannot be stored: {e}"))
                })?;
                added += state_text.len() + meta_text.len() + split.refs.len() * 35;
                let step: i64 = sqlx::query_scalar(&format!(
                    "INSERT INTO thread_checkpoints ({CHECKPOINT_COLUMNS}) \
                     SELECT $1, $2, $3, $4, COALESCE(MAX(step) + 1, 0), $5, $6, $7, $8 \
                     FROM thread_checkpoints WHERE thread_id = $2 RETURNING step"
                ))
                .bind(&checkpoint_id)
                .bind(thread_id)
                .bind(cp.run_id)
                .bind(parent_id)
                .bind(Json(state))
                .bind(p.time(now))
                .bind(Json(cp.metadata))
                .bind(refs)
                .fetch_one(&mut *tx)
                .await?;
                let parent_id = parent_id.map(str::to_string);
                saved.push(SavedCheckpoint { checkpoint_id, step, parent_id });
            }
            // The thread holds the last one's values: the ones before it were passed over.
            sqlx::query(
                "UPDATE threads SET state = $1, status = $2, updated_at = $3, \
                 stored_bytes = stored_bytes + $4 WHERE thread_id = $5",
            )
            .bind(Json(last.values))
            .bind(Wire(last.status))
            .bind(p.time(now))
            .bind(i64::try_from(added).unwrap_or(i64::MAX))
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
                .bind(Wire(status))
                .bind(p.time(Utc::now()))
                .bind(thread_id)
                .execute(p)
                .await?;
        });
        Ok(())
    }

    async fn latest(&self, thread_id: &str) -> Result<Option<CheckpointRecord>, StoreError> {
        Ok(self
            .history(thread_id, 1, None, usize::MAX)
            .await?
            .into_iter()
            .next())
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
        let Some(row) = row else {
            return Ok(None);
        };
        let mut loaded = blobs::Loaded::default();
        Ok(Some(self.whole(thread_id, row, &mut loaded).await?.record))
    }

    async fn history(
        &self,
        thread_id: &str,
        limit: u32,
        before: Option<&str>,
        max_bytes: usize,
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
        // Messages shared by many checkpoints are read and parsed once; the answer stops
        // at `max_bytes` of states (at least one), so one request cannot take the server's
        // memory however long the history.
        let mut loaded = blobs::Loaded::default();
        let mut out = Vec::new();
        let mut bytes = 0usize;
        for row in rows {
            let record = self.whole(thread_id, row, &mut loaded).await?;
            bytes += record.size;
            if bytes > max_bytes && !out.is_empty() {
                break;
            }
            out.push(record.record);
        }
        Ok(out)
    }

    async fn roll_back(&self, thread_id: &str, run_ids: &[String]) -> Result<(), StoreError> {
        self.roll_back_runs(thread_id, run_ids).await
    }

    async fn keep_latest(&self, thread_id: &str) -> Result<(), StoreError> {
        self.keep_only_latest(thread_id).await
    }

    async fn patch_metadata(
        &self,
        thread_id: &str,
        checkpoint_id: Option<&str>,
        patch: Map<String, Value>,
    ) -> Result<Option<String>, StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let row: Option<(String, Option<Json<Map<String, Value>>>)> = sqlx::query_as(
                "SELECT checkpoint_id, metadata FROM thread_checkpoints WHERE thread_id = $1 \
                 AND (CAST($2 AS TEXT) IS NULL OR checkpoint_id = $2) \
                 ORDER BY step DESC LIMIT 1",
            )
            .bind(thread_id)
            .bind(checkpoint_id)
            .fetch_optional(&mut *tx)
            .await?;
            let Some((id, metadata)) = row else {
                return Ok(None);
            };
            let mut metadata = metadata.map(|m| m.0).unwrap_or_default();
            crate::threads::merge(&mut metadata, patch);
            sqlx::query("UPDATE thread_checkpoints SET metadata = $1 WHERE checkpoint_id = $2")
                .bind(Json(&metadata))
                .bind(&id)
                .execute(&mut *tx)
                .await?;
            sqlx::query(super::thread_copy::RECOUNT_STORED_BYTES)
                .bind(thread_id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(Some(id))
        })
    }
}

/// A checkpoint with its state whole, and about how many bytes the state takes.
struct Whole {
    record: CheckpointRecord,
    size: usize,
}

impl SqlState {
    /// `row` with its messages read back (into `loaded`, which keeps them for the next).
    async fn whole(
        &self,
        thread_id: &str,
        mut row: CheckpointRow,
        loaded: &mut blobs::Loaded,
    ) -> Result<Whole, StoreError> {
        let refs = row.message_refs.take().map(|r| r.0);
        let mut record = CheckpointRecord::from(row);
        let Some(refs) = refs else {
            let size = serde_json::to_string(&record.state).map_or(0, |s| s.len());
            return Ok(Whole { record, size });
        };
        for chunk in loaded.missing(&refs).chunks(blobs::IN_CHUNK) {
            let found: Vec<(String, String)> = on!(&self.0, p => {
                let mut q = sqlx::QueryBuilder::new(
                    "SELECT hash, data FROM checkpoint_blobs WHERE thread_id = ",
                );
                q.push_bind(thread_id).push(" AND hash IN (");
                let mut list = q.separated(", ");
                for h in chunk {
                    list.push_bind(*h);
                }
                q.push(")");
                q.build_query_as().fetch_all(p).await?
            });
            for (hash, data) in found {
                loaded.add(hash, &data)?;
            }
        }
        let rest = std::mem::take(&mut record.state);
        let size = serde_json::to_string(&rest).map_or(0, |s| s.len()) + loaded.size_of(&refs);
        record.state = loaded.join(rest, &refs)?;
        Ok(Whole { record, size })
    }
}
