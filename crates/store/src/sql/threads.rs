//! Threads.

use antler_protocol::runs::RunStatus;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use sqlx::types::Json;

use super::rows::{THREAD_COLUMNS, ThreadRow};
use super::wire::Wire;
use super::{Db, Engine, on};
use crate::StoreError;
use crate::threads::{Created, ThreadQuery, ThreadRecord, ThreadRepo, merge};

pub(crate) struct SqlThreads(pub(crate) Db);

#[async_trait]
impl ThreadRepo for SqlThreads {
    async fn create(
        &self,
        owner: &str,
        thread_id: &str,
        metadata: Map<String, Value>,
    ) -> Result<Option<Created>, StoreError> {
        let now = Utc::now();
        // The new row comes back from the insert itself (one statement for a new thread).
        let sql = format!(
            "INSERT INTO threads (thread_id, owner, created_at, updated_at, metadata) \
             VALUES ($1, $2, $3, $3, $4) ON CONFLICT (thread_id) DO NOTHING \
             RETURNING {THREAD_COLUMNS}"
        );
        let inserted: Option<ThreadRow> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(thread_id)
            .bind(owner)
            .bind(p.time(now))
            .bind(Json(&metadata))
            .fetch_optional(p)
            .await?);
        if let Some(row) = inserted {
            return Ok(Some(Created {
                thread: row.into(),
                created: true,
            }));
        }
        // Another owner's thread is not this owner's to see: callers answer as for any
        // taken id, without saying whose.
        Ok(self.get(owner, thread_id).await?.map(|thread| Created {
            thread,
            created: false,
        }))
    }

    async fn get(&self, owner: &str, thread_id: &str) -> Result<Option<ThreadRecord>, StoreError> {
        let sql =
            format!("SELECT {THREAD_COLUMNS} FROM threads WHERE owner = $1 AND thread_id = $2");
        let row: Option<ThreadRow> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(owner)
            .bind(thread_id)
            .fetch_optional(p)
            .await?);
        Ok(row.map(Into::into))
    }

    async fn merge_metadata(
        &self,
        owner: &str,
        thread_id: &str,
        patch: Map<String, Value>,
    ) -> Result<Option<ThreadRecord>, StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let sql = format!(
                "SELECT {THREAD_COLUMNS} FROM threads WHERE owner = $1 AND thread_id = $2{}",
                p.for_update()
            );
            let row: Option<ThreadRow> = sqlx::query_as(&sql)
                .bind(owner)
                .bind(thread_id)
                .fetch_optional(&mut *tx)
                .await?;
            let Some(row) = row else {
                return Ok(None);
            };
            let mut thread = ThreadRecord::from(row);
            merge(&mut thread.metadata, patch);
            thread.updated_at = Utc::now();
            sqlx::query("UPDATE threads SET metadata = $1, updated_at = $2 WHERE thread_id = $3")
                .bind(Json(&thread.metadata))
                .bind(p.time(thread.updated_at))
                .bind(thread_id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(Some(thread))
        })
    }

    async fn record_assistant(
        &self,
        owner: &str,
        thread_id: &str,
        graph_id: &str,
        assistant_id: &str,
    ) -> Result<(), StoreError> {
        on!(&self.0, p => {
            let sql = format!(
                "UPDATE threads SET metadata = {}, updated_at = $3 WHERE owner = $4 AND thread_id = $5",
                p.with_text_keys("metadata", &[("graph_id", "$1"), ("assistant_id", "$2")])
            );
            sqlx::query(&sql)
                .bind(graph_id)
                .bind(assistant_id)
                .bind(p.time(Utc::now()))
                .bind(owner)
                .bind(thread_id)
                .execute(p)
                .await?;
        });
        Ok(())
    }

    async fn delete(&self, owner: &str, thread_id: &str) -> Result<bool, StoreError> {
        // Its runs, their events and its checkpoints go with it (foreign keys cascade).
        let deleted = on!(&self.0, p => sqlx::query("DELETE FROM threads WHERE owner = $1 AND thread_id = $2")
            .bind(owner)
            .bind(thread_id)
            .execute(p)
            .await?
            .rows_affected());
        Ok(deleted > 0)
    }

    async fn stored_bytes(&self, owner: &str) -> Result<u64, StoreError> {
        let bytes: Option<i64> = on!(&self.0, p => sqlx::query_scalar(
            "SELECT CAST(SUM(stored_bytes) AS BIGINT) FROM threads WHERE owner = $1",
        )
        .bind(owner)
        .fetch_one(p)
        .await?);
        Ok(super::rows::count(bytes.unwrap_or(0)))
    }

    async fn set_temporary(&self, thread_id: &str, temporary: bool) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query("UPDATE threads SET temporary = $1 WHERE thread_id = $2")
                .bind(temporary)
                .bind(thread_id)
                .execute(p)
                .await?;
        });
        Ok(())
    }

    async fn finished_temporary(
        &self,
        older_than: DateTime<Utc>,
    ) -> Result<Vec<(String, String)>, StoreError> {
        let rows: Vec<(String, String)> = on!(&self.0, p => sqlx::query_as(
            "SELECT owner, thread_id FROM threads t WHERE temporary = $1 AND created_at < $2 \
             AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = t.thread_id \
                             AND r.status IN ($3, $4)) \
             ORDER BY created_at LIMIT 1000",
        )
        .bind(true)
        .bind(p.time(older_than))
        .bind(Wire(RunStatus::Pending))
        .bind(Wire(RunStatus::Running))
        .fetch_all(p)
        .await?);
        Ok(rows)
    }

    async fn search(
        &self,
        owner: &str,
        query: &ThreadQuery,
    ) -> Result<Vec<ThreadRecord>, StoreError> {
        // The wire names are the column names.
        let column = query.sort.as_str();
        let direction = if query.ascending { "ASC" } else { "DESC" };
        let order = format!(" ORDER BY {column} {direction}, thread_id {direction}");
        let rows: Vec<ThreadRow> = match &self.0 {
            Db::Sqlite(p) => {
                let (filters, n) = sqlite_filters(query);
                let sql = format!(
                    "SELECT {THREAD_COLUMNS} FROM threads WHERE owner = $1{filters}{order} \
                     LIMIT ${} OFFSET ${}",
                    n + 1,
                    n + 2
                );
                let mut q = sqlx::query_as(&sql).bind(owner);
                for (key, value) in query.metadata.iter().chain(&query.values) {
                    q = q.bind(key).bind(Json(value));
                }
                q.bind(query.status.map(Wire))
                    .bind(ids_param(query))
                    .bind(i64::from(query.limit))
                    .bind(i64::from(query.offset))
                    .fetch_all(p)
                    .await?
            }
            Db::Postgres(p) => {
                let sql = format!(
                    "SELECT {THREAD_COLUMNS} FROM threads WHERE owner = $1{PG_FILTERS}{order} \
                     LIMIT $6 OFFSET $7"
                );
                sqlx::query_as(&sql)
                    .bind(owner)
                    .bind(Json(&query.metadata))
                    .bind(Json(&query.values))
                    .bind(query.status.map(Wire))
                    .bind(ids_param(query))
                    .bind(i64::from(query.limit))
                    .bind(i64::from(query.offset))
                    .fetch_all(p)
                    .await?
            }
        };
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn count(&self, owner: &str, query: &ThreadQuery) -> Result<u64, StoreError> {
        let n: i64 = match &self.0 {
            Db::Sqlite(p) => {
                let (filters, _) = sqlite_filters(query);
                let sql = format!("SELECT COUNT(*) FROM threads WHERE owner = $1{filters}");
                let mut q = sqlx::query_scalar(&sql).bind(owner);
                for (key, value) in query.metadata.iter().chain(&query.values) {
                    q = q.bind(key).bind(Json(value));
                }
                q.bind(query.status.map(Wire))
                    .bind(ids_param(query))
                    .fetch_one(p)
                    .await?
            }
            Db::Postgres(p) => {
                let sql = format!("SELECT COUNT(*) FROM threads WHERE owner = $1{PG_FILTERS}");
                sqlx::query_scalar(&sql)
                    .bind(owner)
                    .bind(Json(&query.metadata))
                    .bind(Json(&query.values))
                    .bind(query.status.map(Wire))
                    .bind(ids_param(query))
                    .fetch_one(p)
                    .await?
            }
        };
        Ok(super::rows::count(n))
    }

    async fn copy(
        &self,
        owner: &str,
        source: &str,
        target: &str,
        skip_runs: &[String],
    ) -> Result<Option<ThreadRecord>, StoreError> {
        self.copy_thread(owner, source, target, skip_runs).await
    }
}

/// PostgreSQL's filters of a thread query: metadata ($2) and values ($3) containment, the
/// status ($4).
pub(crate) const PG_FILTERS: &str = " AND metadata @> $2 AND state @> $3 \
    AND (CAST($4 AS TEXT) IS NULL OR status = $4) \
    AND (CAST($5 AS TEXT) IS NULL OR thread_id IN (SELECT jsonb_array_elements_text(CAST($5 AS JSONB))))";

/// The query's `ids` as a JSON array text, `None` for no filter (one parameter, however
/// many ids: the engines read it with `json_each` / `jsonb_array_elements_text`).
pub(crate) fn ids_param(query: &ThreadQuery) -> Option<String> {
    (!query.ids.is_empty()).then(|| Value::from(query.ids.clone()).to_string())
}

/// SQLite's filters of a thread query after the owner (`$1`): a key and a value parameter
/// for each metadata pair, then each values pair, then the status, then the ids; answers
/// the SQL and the last parameter number used.
pub(crate) fn sqlite_filters(query: &ThreadQuery) -> (String, usize) {
    // Keys are compared as values, never spliced into a JSON path (a path cannot hold every
    // key: quotes, NUL). json_each and json_extract both yield SQL scalars for scalars and
    // JSON text for objects and arrays, so `IS` is value equality.
    let mut sql = String::new();
    let mut n = 1;
    let pairs = [
        ("metadata", query.metadata.len()),
        ("state", query.values.len()),
    ];
    for (column, count) in pairs {
        for _ in 0..count {
            sql.push_str(&format!(
                " AND EXISTS (SELECT 1 FROM json_each(threads.{column}) AS m \
                 WHERE m.key = ${} AND m.value IS json_extract(${}, '$'))",
                n + 1,
                n + 2
            ));
            n += 2;
        }
    }
    sql.push_str(&format!(
        " AND (CAST(${} AS TEXT) IS NULL OR status = ${})",
        n + 1,
        n + 1
    ));
    sql.push_str(&format!(
        " AND (CAST(${} AS TEXT) IS NULL OR thread_id IN (SELECT value FROM json_each(${})))",
        n + 2,
        n + 2
    ));
    (sql, n + 2)
}
