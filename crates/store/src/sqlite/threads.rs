use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqlitePool};

use crate::StoreError;
use crate::threads::{Created, ThreadQuery, ThreadRecord, ThreadRepo, merge, timestamp};

pub(crate) struct SqliteThreads {
    pub(crate) pool: SqlitePool,
}

const COLUMNS: &str = "thread_id, owner, created_at, updated_at, metadata, status, state";

fn record(row: &SqliteRow) -> Result<ThreadRecord, StoreError> {
    let parse_time = |col: &str| -> Result<DateTime<Utc>, StoreError> {
        let text: String = row.try_get(col)?;
        DateTime::parse_from_rfc3339(&text)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| StoreError::Corrupt(format!("{col} '{text}': {e}")))
    };
    let metadata: String = row.try_get("metadata")?;
    let state: String = row.try_get("state")?;
    Ok(ThreadRecord {
        thread_id: row.try_get("thread_id")?,
        owner: row.try_get("owner")?,
        created_at: parse_time("created_at")?,
        updated_at: parse_time("updated_at")?,
        metadata: serde_json::from_str(&metadata)
            .map_err(|e| StoreError::Corrupt(format!("metadata: {e}")))?,
        status: row.try_get("status")?,
        values: serde_json::from_str(&state)
            .map_err(|e| StoreError::Corrupt(format!("state: {e}")))?,
    })
}

fn json(v: &impl serde::Serialize) -> Result<String, StoreError> {
    serde_json::to_string(v).map_err(|e| StoreError::Corrupt(e.to_string()))
}

#[async_trait]
impl ThreadRepo for SqliteThreads {
    async fn create(
        &self,
        owner: &str,
        thread_id: &str,
        metadata: Map<String, Value>,
    ) -> Result<Created, StoreError> {
        let now = timestamp(Utc::now());
        let inserted = sqlx::query(
            "INSERT INTO threads (thread_id, owner, created_at, updated_at, metadata) \
             VALUES (?, ?, ?, ?, ?) ON CONFLICT (thread_id) DO NOTHING",
        )
        .bind(thread_id)
        .bind(owner)
        .bind(&now)
        .bind(&now)
        .bind(json(&metadata)?)
        .execute(&self.pool)
        .await?
        .rows_affected()
            == 1;
        let thread = self.get(owner, thread_id).await?.ok_or_else(|| {
            StoreError::Conflict(format!("thread '{thread_id}' belongs to another owner"))
        })?;
        Ok(Created {
            thread,
            created: inserted,
        })
    }

    async fn get(&self, owner: &str, thread_id: &str) -> Result<Option<ThreadRecord>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM threads WHERE owner = ? AND thread_id = ?"
        ))
        .bind(owner)
        .bind(thread_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(record).transpose()
    }

    async fn merge_metadata(
        &self,
        owner: &str,
        thread_id: &str,
        patch: Map<String, Value>,
    ) -> Result<Option<ThreadRecord>, StoreError> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM threads WHERE owner = ? AND thread_id = ?"
        ))
        .bind(owner)
        .bind(thread_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let mut thread = record(&row)?;
        merge(&mut thread.metadata, patch);
        thread.updated_at = Utc::now();
        sqlx::query("UPDATE threads SET metadata = ?, updated_at = ? WHERE thread_id = ?")
            .bind(json(&thread.metadata)?)
            .bind(timestamp(thread.updated_at))
            .bind(thread_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Some(thread))
    }

    async fn delete(&self, owner: &str, thread_id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM threads WHERE owner = ? AND thread_id = ?")
            .bind(owner)
            .bind(thread_id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    async fn search(
        &self,
        owner: &str,
        query: &ThreadQuery,
    ) -> Result<Vec<ThreadRecord>, StoreError> {
        let mut sql = format!("SELECT {COLUMNS} FROM threads WHERE owner = ?");
        for _ in &query.metadata {
            // json_extract yields SQL scalars for scalars and JSON text for objects and arrays,
            // the same for both sides, so equality is value equality.
            sql.push_str(" AND json_extract(metadata, ?) IS json_extract(?, '$')");
        }
        if query.status.is_some() {
            sql.push_str(" AND status = ?");
        }
        // The wire names are the column names.
        let column = query.sort.as_str();
        let direction = if query.ascending { "ASC" } else { "DESC" };
        sql.push_str(&format!(
            " ORDER BY {column} {direction}, thread_id {direction} LIMIT ? OFFSET ?"
        ));
        let mut q = sqlx::query(&sql).bind(owner);
        for (key, value) in &query.metadata {
            let path = format!("$.\"{}\"", key.replace('\\', "\\\\").replace('"', "\\\""));
            q = q.bind(path).bind(json(value)?);
        }
        if let Some(status) = query.status {
            q = q.bind(status);
        }
        let rows = q
            .bind(i64::from(query.limit))
            .bind(i64::from(query.offset))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(record).collect()
    }
}
