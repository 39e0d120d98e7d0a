//! Whole-thread operations on checkpoints: copying a thread with its history, rolling runs
//! back, and pruning a thread to its newest checkpoint.

use std::collections::{HashMap, HashSet};

use antler_protocol::threads::ThreadStatus;
use chrono::Utc;
use serde_json::{Map, Value};
use sqlx::types::Json;

use super::blobs;
use super::rows::{CHECKPOINT_COLUMNS, CheckpointRow, THREAD_COLUMNS, ThreadRow};
use super::state::SqlState;
use super::threads::SqlThreads;
use super::wire::Wire;
use super::{Engine, on};
use crate::StoreError;
use crate::runs::CheckpointRecord;
use crate::threads::ThreadRecord;

/// Sets a thread's `stored_bytes` from what it keeps now (its checkpoints' states,
/// metadata and message lists, its messages, its runs' events), measured as the migration
/// that introduced the counter measured them. Run after an operation that drops or copies
/// many rows at once (rollback, pruning, copying, a metadata patch), where an exact
/// difference would have to measure each row anyway; it also corrects any drift.
pub(super) const RECOUNT_STORED_BYTES: &str = "UPDATE threads SET stored_bytes = \
    COALESCE((SELECT SUM(OCTET_LENGTH(CAST(c.state AS TEXT)) \
        + COALESCE(OCTET_LENGTH(CAST(c.metadata AS TEXT)), 0) \
        + COALESCE(OCTET_LENGTH(CAST(c.message_refs AS TEXT)), 0)) \
        FROM thread_checkpoints c WHERE c.thread_id = $1), 0) \
  + COALESCE((SELECT SUM(OCTET_LENGTH(b.data)) FROM checkpoint_blobs b \
        WHERE b.thread_id = $1), 0) \
  + COALESCE((SELECT SUM(OCTET_LENGTH(e.data)) FROM run_events e \
        JOIN runs r ON r.run_id = e.run_id WHERE r.thread_id = $1), 0) \
  WHERE thread_id = $1";

/// A thread's status for values nobody is working on: waiting for an answer or idle.
fn resting_status(values: &Value) -> ThreadStatus {
    let waiting = values
        .get("__interrupt__")
        .and_then(Value::as_array)
        .is_some_and(|list| !list.is_empty());
    if waiting {
        ThreadStatus::Interrupted
    } else {
        ThreadStatus::Idle
    }
}

/// The checkpoint `id` continues in the copy: its parent, or the nearest ancestor that was
/// copied when the parent was skipped.
fn copied_parent(
    mut parent: Option<String>,
    parents: &HashMap<String, Option<String>>,
    new_ids: &HashMap<String, String>,
) -> Option<String> {
    // Bounded by the number of checkpoints: a corrupt cycle cannot loop forever.
    for _ in 0..=parents.len() {
        let p = parent?;
        if let Some(new) = new_ids.get(&p) {
            return Some(new.clone());
        }
        parent = parents.get(&p).cloned().flatten();
    }
    None
}

/// The whole state of a stored checkpoint: `$rest` (its state as stored) with the messages
/// `$refs` names read from the thread's blobs, inside a transaction.
macro_rules! whole_state {
    ($tx:expr, $thread_id:expr, $rest:expr, $refs:expr) => {{
        let rest: Value = $rest;
        match $refs {
            None => Ok::<Value, StoreError>(rest),
            Some(refs) => {
                let mut loaded = blobs::Loaded::default();
                for chunk in loaded.missing(&refs).chunks(blobs::IN_CHUNK) {
                    let mut q = sqlx::QueryBuilder::new(
                        "SELECT hash, data FROM checkpoint_blobs WHERE thread_id = ",
                    );
                    q.push_bind($thread_id).push(" AND hash IN (");
                    let mut list = q.separated(", ");
                    for h in chunk {
                        list.push_bind(*h);
                    }
                    q.push(")");
                    let found: Vec<(String, String)> =
                        q.build_query_as().fetch_all(&mut *$tx).await?;
                    for (hash, data) in found {
                        loaded.add(hash, &data)?;
                    }
                }
                loaded.join(rest, &refs)
            }
        }
    }};
}

impl SqlThreads {
    pub(super) async fn copy_thread(
        &self,
        owner: &str,
        source: &str,
        target: &str,
        skip_runs: &[String],
    ) -> Result<Option<ThreadRecord>, StoreError> {
        let skip: HashSet<&str> = skip_runs.iter().map(String::as_str).collect();
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let sql = format!(
                "SELECT {THREAD_COLUMNS} FROM threads WHERE owner = $1 AND thread_id = $2{}",
                p.for_update()
            );
            let row: Option<ThreadRow> = sqlx::query_as(&sql)
                .bind(owner)
                .bind(source)
                .fetch_optional(&mut *tx)
                .await?;
            let Some(row) = row else {
                return Ok(None);
            };
            let original = ThreadRecord::from(row);
            let now = Utc::now();
            // Its bytes are counted once everything is copied (runs and their events are
            // not: the copy keeps fewer bytes than the source).
            sqlx::query(
                "INSERT INTO threads (thread_id, owner, created_at, updated_at, metadata, status, \
                 state) VALUES ($1, $2, $3, $3, $4, $5, $6)",
            )
            .bind(target)
            .bind(owner)
            .bind(p.time(now))
            .bind(Json(&original.metadata))
            .bind(Wire(ThreadStatus::Idle))
            .bind(Json(&original.values))
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "INSERT INTO checkpoint_blobs (thread_id, hash, data) \
                 SELECT $1, hash, data FROM checkpoint_blobs WHERE thread_id = $2",
            )
            .bind(target)
            .bind(source)
            .execute(&mut *tx)
            .await?;
            let sql = format!(
                "SELECT {CHECKPOINT_COLUMNS} FROM thread_checkpoints WHERE thread_id = $1 \
                 ORDER BY step"
            );
            let rows: Vec<CheckpointRow> = sqlx::query_as(&sql)
                .bind(source)
                .fetch_all(&mut *tx)
                .await?;
            let mut parents: HashMap<String, Option<String>> = HashMap::new();
            let mut new_ids: HashMap<String, String> = HashMap::new();
            let mut newest: Option<(Value, Option<Vec<String>>)> = None;
            for mut row in rows {
                let refs = row.message_refs.take();
                let record = CheckpointRecord::from(row);
                parents.insert(record.checkpoint_id.clone(), record.parent_id.clone());
                if record.run_id.as_deref().is_some_and(|r| skip.contains(r)) {
                    continue;
                }
                // In step order, so the copy's ids are time-ordered like the source's.
                let id = uuid::Uuid::now_v7().to_string();
                let parent = copied_parent(record.parent_id.clone(), &parents, &new_ids);
                new_ids.insert(record.checkpoint_id.clone(), id.clone());
                let mut metadata: Map<String, Value> = record.metadata.clone();
                if metadata.contains_key("thread_id") {
                    metadata.insert("thread_id".into(), Value::from(target));
                }
                sqlx::query(&format!(
                    "INSERT INTO thread_checkpoints ({CHECKPOINT_COLUMNS}) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
                ))
                .bind(&id)
                .bind(target)
                .bind(&record.run_id)
                .bind(&parent)
                .bind(record.step)
                .bind(Json(&record.state))
                .bind(p.time(record.created_at))
                .bind(Json(&metadata))
                .bind(refs.as_ref().map(|r| Json(&r.0)))
                .execute(&mut *tx)
                .await?;
                newest = Some((record.state, refs.map(|r| r.0)));
            }
            // The copy continues its newest checkpoint; skipped runs' work is not in it.
            let values = match newest {
                Some((rest, refs)) if !skip.is_empty() => whole_state!(tx, target, rest, refs)?,
                _ => original.values.clone(),
            };
            let status = match original.status {
                ThreadStatus::Busy => resting_status(&values),
                _ if !skip.is_empty() => resting_status(&values),
                other => other,
            };
            sqlx::query("UPDATE threads SET state = $1, status = $2 WHERE thread_id = $3")
                .bind(Json(&values))
                .bind(Wire(status))
                .bind(target)
                .execute(&mut *tx)
                .await?;
            sqlx::query(RECOUNT_STORED_BYTES)
                .bind(target)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(Some(ThreadRecord {
                thread_id: target.to_string(),
                owner: owner.to_string(),
                created_at: now,
                updated_at: now,
                metadata: original.metadata,
                status,
                values,
            }))
        })
    }
}

/// Deletes the thread's messages (`checkpoint_blobs`) that none of its checkpoints refers to
/// any more, inside a transaction.
macro_rules! drop_unused_blobs {
    ($tx:expr, $thread_id:expr) => {{
        let lists: Vec<Option<Json<Vec<String>>>> =
            sqlx::query_scalar("SELECT message_refs FROM thread_checkpoints WHERE thread_id = $1")
                .bind($thread_id)
                .fetch_all(&mut *$tx)
                .await?;
        let keep: HashSet<String> = lists.into_iter().flatten().flat_map(|r| r.0).collect();
        let stored: Vec<String> =
            sqlx::query_scalar("SELECT hash FROM checkpoint_blobs WHERE thread_id = $1")
                .bind($thread_id)
                .fetch_all(&mut *$tx)
                .await?;
        let unused: Vec<&String> = stored.iter().filter(|h| !keep.contains(*h)).collect();
        for chunk in unused.chunks(blobs::IN_CHUNK) {
            let mut q = sqlx::QueryBuilder::new("DELETE FROM checkpoint_blobs WHERE thread_id = ");
            q.push_bind($thread_id).push(" AND hash IN (");
            let mut list = q.separated(", ");
            for h in chunk {
                list.push_bind(h.as_str());
            }
            q.push(")");
            q.build().execute(&mut *$tx).await?;
        }
    }};
}

impl SqlState {
    pub(super) async fn roll_back_runs(
        &self,
        thread_id: &str,
        run_ids: &[String],
    ) -> Result<(), StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            for run_id in run_ids {
                sqlx::query("DELETE FROM thread_checkpoints WHERE thread_id = $1 AND run_id = $2")
                    .bind(thread_id)
                    .bind(run_id)
                    .execute(&mut *tx)
                    .await?;
                // Its events go with it (foreign key).
                sqlx::query("DELETE FROM runs WHERE thread_id = $1 AND run_id = $2")
                    .bind(thread_id)
                    .bind(run_id)
                    .execute(&mut *tx)
                    .await?;
            }
            // Messages only the deleted checkpoints held (the runs' input) go too.
            drop_unused_blobs!(tx, thread_id);
            let sql = format!(
                "SELECT {CHECKPOINT_COLUMNS} FROM thread_checkpoints WHERE thread_id = $1 \
                 ORDER BY step DESC LIMIT 1"
            );
            let newest: Option<CheckpointRow> = sqlx::query_as(&sql)
                .bind(thread_id)
                .fetch_optional(&mut *tx)
                .await?;
            let values = match newest {
                Some(mut row) => {
                    let refs = row.message_refs.take().map(|r| r.0);
                    whole_state!(tx, thread_id, CheckpointRecord::from(row).state, refs)?
                }
                None => Value::Object(Map::new()),
            };
            sqlx::query(
                "UPDATE threads SET state = $1, status = $2, updated_at = $3 WHERE thread_id = $4",
            )
            .bind(Json(&values))
            .bind(Wire(resting_status(&values)))
            .bind(p.time(Utc::now()))
            .bind(thread_id)
            .execute(&mut *tx)
            .await?;
            sqlx::query(RECOUNT_STORED_BYTES)
                .bind(thread_id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        })
    }

    pub(super) async fn keep_only_latest(&self, thread_id: &str) -> Result<(), StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let newest: Option<(String, Option<Json<Vec<String>>>)> = sqlx::query_as(
                "SELECT checkpoint_id, message_refs FROM thread_checkpoints WHERE thread_id = $1 \
                 ORDER BY step DESC LIMIT 1",
            )
            .bind(thread_id)
            .fetch_optional(&mut *tx)
            .await?;
            let Some((newest, refs)) = newest else {
                return Ok(());
            };
            sqlx::query("DELETE FROM thread_checkpoints WHERE thread_id = $1 AND checkpoint_id <> $2")
                .bind(thread_id)
                .bind(&newest)
                .execute(&mut *tx)
                .await?;
            sqlx::query("UPDATE thread_checkpoints SET parent_id = NULL WHERE checkpoint_id = $1")
                .bind(&newest)
                .execute(&mut *tx)
                .await?;
            // Messages only the deleted checkpoints held go too.
            let keep: HashSet<String> = refs.map(|r| r.0).unwrap_or_default().into_iter().collect();
            let stored: Vec<String> =
                sqlx::query_scalar("SELECT hash FROM checkpoint_blobs WHERE thread_id = $1")
                    .bind(thread_id)
                    .fetch_all(&mut *tx)
                    .await?;
            let unused: Vec<&String> = stored.iter().filter(|h| !keep.contains(*h)).collect();
            for chunk in unused.chunks(blobs::IN_CHUNK) {
                let mut q = sqlx::QueryBuilder::new(
                    "DELETE FROM checkpoint_blobs WHERE thread_id = ",
                );
                q.push_bind(thread_id).push(" AND hash IN (");
                let mut list = q.separated(", ");
                for h in chunk {
                    list.push_bind(h.as_str());
                }
                q.push(")");
                q.build().execute(&mut *tx).await?;
            }
            sqlx::query(RECOUNT_STORED_BYTES)
                .bind(thread_id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skipped_parent_is_replaced_by_the_nearest_copied_ancestor() {
        let parents: HashMap<String, Option<String>> = [
            ("a".to_string(), None),
            ("b".to_string(), Some("a".to_string())),
            ("c".to_string(), Some("b".to_string())),
        ]
        .into_iter()
        .collect();
        let new_ids: HashMap<String, String> =
            [("a".to_string(), "A".to_string())].into_iter().collect();
        assert_eq!(
            copied_parent(Some("c".into()), &parents, &new_ids),
            Some("A".into())
        );
        assert_eq!(copied_parent(None, &parents, &new_ids), None);
    }
}
