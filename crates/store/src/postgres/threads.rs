use async_trait::async_trait;
use serde_json::{Map, Value};
use sqlx::postgres::PgRow;
use sqlx::types::Json;
use sqlx::{PgPool, Row};

use crate::StoreError;
use crate::threads::{Created, ThreadQuery, ThreadRecord, ThreadRepo, merge};

pub(crate) struct PgThreads {
    pub(crate) pool: PgPool,
}

const COLUMNS: &str = "thread_id, owner, created_at, updated_at, metadata, status, state";

fn record(row: &PgRow) -> Result<ThreadRecord, StoreError> {
    Ok(ThreadRecord {
        thread_id: row.try_get("thread_id")?,
        owner: row.try_get("owner")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        metadata: row.try_get::<Json<Map<String, Value>>, _>("metadata")?.0,
        status: row.try_get("status")?,
        values: row.try_get::<Json<Value>, _>("state")?.0,
    })
}

#[async_trait]
impl ThreadRepo for PgThreads {
    async fn create(
        &self,
        owner: &str,
        thread_id: &str,
        metadata: Map<String, Value>,
    ) -> Result<Created, StoreError> {
        let inserted = sqlx::query(
            "INSERT INTO threads (thread_id, owner, created_at, updated_at, metadata) \
             VALUES ($1, $2, clock_timestamp(), clock_timestamp(), $3) ON CONFLICT (thread_id) DO NOTHING",
        )
        .bind(thread_id)
        .bind(owner)
        .bind(Json(&metadata))
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
            "SELECT {COLUMNS} FROM threads WHERE owner = $1 AND thread_id = $2"
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
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM threads WHERE owner = $1 AND thread_id = $2 FOR UPDATE"
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
        let row = sqlx::query(&format!(
            "UPDATE threads SET metadata = $1, updated_at = clock_timestamp() WHERE thread_id = $2 RETURNING {COLUMNS}"
        ))
        .bind(Json(&thread.metadata))
        .bind(thread_id)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(record(&row)?))
    }

    async fn delete(&self, owner: &str, thread_id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM threads WHERE owner = $1 AND thread_id = $2")
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
        // The wire names are the column names.
        let column = query.sort.as_str();
        let direction = if query.ascending { "ASC" } else { "DESC" };
        let sql = format!(
            "SELECT {COLUMNS} FROM threads WHERE owner = $1 AND metadata @> $2 \
             AND ($3::text IS NULL OR status = $3) \
             ORDER BY {column} {direction}, thread_id {direction} LIMIT $4 OFFSET $5"
        );
        let rows = sqlx::query(&sql)
            .bind(owner)
            .bind(Json(&query.metadata))
            .bind(query.status)
            .bind(i64::from(query.limit))
            .bind(i64::from(query.offset))
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(record).collect()
    }
}
