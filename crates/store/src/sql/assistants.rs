//! Assistants and their versions.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use sqlx::types::Json;

use super::{Db, Engine, on};
use crate::StoreError;
use crate::assistants::{
    AssistantFilter, AssistantOrder, AssistantRecord, AssistantRepo, MAX_VERSIONS, SortKey,
};

pub(crate) struct SqlAssistants(pub(crate) Db);

/// The columns of [`Row`] in `assistants`.
pub(super) const COLUMNS: &str = "assistant_id, owner, graph_id, name, description, config, context, \
    metadata, version, created_at, updated_at";

/// The same from `assistant_versions` (its `created_at` is when the version was made).
pub(super) const VERSION_COLUMNS: &str = "v.assistant_id, a.owner, v.graph_id, v.name, v.description, \
    v.config, v.context, v.metadata, v.version, a.created_at, v.created_at AS updated_at";

#[derive(sqlx::FromRow)]
pub(super) struct Row {
    assistant_id: String,
    owner: String,
    graph_id: String,
    name: String,
    description: Option<String>,
    config: Json<Value>,
    context: Json<Value>,
    metadata: Json<Map<String, Value>>,
    version: i64,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl From<Row> for AssistantRecord {
    fn from(r: Row) -> Self {
        AssistantRecord {
            assistant_id: r.assistant_id,
            owner: r.owner,
            graph_id: r.graph_id,
            name: r.name,
            description: r.description,
            config: r.config.0,
            context: r.context.0,
            metadata: r.metadata.0,
            version: r.version,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// Inserts `a` as a row of `assistant_versions`.
macro_rules! insert_version {
    ($p:ident, $tx:expr, $a:expr) => {
        sqlx::query(
            "INSERT INTO assistant_versions (assistant_id, version, graph_id, name, description, \
             config, context, metadata, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(&$a.assistant_id)
        .bind($a.version)
        .bind(&$a.graph_id)
        .bind(&$a.name)
        .bind(&$a.description)
        .bind(Json(&$a.config))
        .bind(Json(&$a.context))
        .bind(Json(&$a.metadata))
        .bind($p.time($a.updated_at))
        .execute(&mut *$tx)
        .await?
    };
}

/// Makes `a` the current row of `assistants`.
macro_rules! write_current {
    ($p:ident, $tx:expr, $a:expr) => {
        sqlx::query(
            "UPDATE assistants SET graph_id = $1, name = $2, description = $3, config = $4, \
             context = $5, metadata = $6, version = $7, updated_at = $8 WHERE assistant_id = $9",
        )
        .bind(&$a.graph_id)
        .bind(&$a.name)
        .bind(&$a.description)
        .bind(Json(&$a.config))
        .bind(Json(&$a.context))
        .bind(Json(&$a.metadata))
        .bind($a.version)
        .bind($p.time($a.updated_at))
        .bind(&$a.assistant_id)
        .execute(&mut *$tx)
        .await?
    };
}

#[async_trait]
impl AssistantRepo for SqlAssistants {
    async fn create(&self, a: &AssistantRecord) -> Result<bool, StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let inserted = sqlx::query(&format!(
                "INSERT INTO assistants ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, \
                 $10, $11) ON CONFLICT (assistant_id) DO NOTHING"
            ))
            .bind(&a.assistant_id)
            .bind(&a.owner)
            .bind(&a.graph_id)
            .bind(&a.name)
            .bind(&a.description)
            .bind(Json(&a.config))
            .bind(Json(&a.context))
            .bind(Json(&a.metadata))
            .bind(a.version)
            .bind(p.time(a.created_at))
            .bind(p.time(a.updated_at))
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if inserted == 0 {
                return Ok(false);
            }
            insert_version!(p, tx, a);
            tx.commit().await?;
            Ok(true)
        })
    }

    async fn get(
        &self,
        owner: &str,
        assistant_id: &str,
    ) -> Result<Option<AssistantRecord>, StoreError> {
        let sql =
            format!("SELECT {COLUMNS} FROM assistants WHERE owner = $1 AND assistant_id = $2");
        let row: Option<Row> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(owner)
            .bind(assistant_id)
            .fetch_optional(p)
            .await?);
        Ok(row.map(Into::into))
    }

    async fn search(
        &self,
        owner: &str,
        filter: &AssistantFilter,
        order: AssistantOrder,
        limit: u32,
        offset: u64,
    ) -> Result<Vec<AssistantRecord>, StoreError> {
        super::assistant_search::search(&self.0, owner, filter, order, limit, offset).await
    }

    async fn count(&self, owner: &str, filter: &AssistantFilter) -> Result<u64, StoreError> {
        super::assistant_search::count(&self.0, owner, filter, None).await
    }

    async fn count_before(
        &self,
        owner: &str,
        filter: &AssistantFilter,
        order: AssistantOrder,
        key: &SortKey,
    ) -> Result<u64, StoreError> {
        super::assistant_search::count(&self.0, owner, filter, Some((order, key))).await
    }

    async fn update(&self, next: &AssistantRecord) -> Result<Option<AssistantRecord>, StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let sql = format!(
                "SELECT {COLUMNS} FROM assistants WHERE owner = $1 AND assistant_id = $2{}",
                p.for_update()
            );
            let current: Option<Row> = sqlx::query_as(&sql)
                .bind(&next.owner)
                .bind(&next.assistant_id)
                .fetch_optional(&mut *tx)
                .await?;
            let Some(current) = current else {
                return Ok(None);
            };
            let newest: Option<i64> = sqlx::query_scalar(
                "SELECT MAX(version) FROM assistant_versions WHERE assistant_id = $1",
            )
            .bind(&next.assistant_id)
            .fetch_one(&mut *tx)
            .await?;
            let stored = AssistantRecord {
                version: newest.unwrap_or(current.version) + 1,
                created_at: current.created_at,
                ..next.clone()
            };
            insert_version!(p, tx, stored);
            write_current!(p, tx, stored);
            // Only the newest versions are kept: edits cannot grow the database forever.
            sqlx::query("DELETE FROM assistant_versions WHERE assistant_id = $1 AND version <= $2")
                .bind(&stored.assistant_id)
                .bind(stored.version - MAX_VERSIONS)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(Some(stored))
        })
    }

    async fn set_version(
        &self,
        owner: &str,
        assistant_id: &str,
        version: i64,
    ) -> Result<Option<AssistantRecord>, StoreError> {
        let sql = format!(
            "SELECT {VERSION_COLUMNS} FROM assistant_versions v \
             JOIN assistants a ON a.assistant_id = v.assistant_id \
             WHERE a.owner = $1 AND v.assistant_id = $2 AND v.version = $3"
        );
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let row: Option<Row> = sqlx::query_as(&sql)
                .bind(owner)
                .bind(assistant_id)
                .bind(version)
                .fetch_optional(&mut *tx)
                .await?;
            let Some(row) = row else {
                return Ok(None);
            };
            let chosen = AssistantRecord::from(row);
            write_current!(p, tx, chosen);
            tx.commit().await?;
            Ok(Some(chosen))
        })
    }

    async fn delete(&self, owner: &str, assistant_id: &str) -> Result<bool, StoreError> {
        // Its versions go with it (the foreign key cascades).
        let deleted = on!(&self.0, p => sqlx::query(
            "DELETE FROM assistants WHERE owner = $1 AND assistant_id = $2",
        )
        .bind(owner)
        .bind(assistant_id)
        .execute(p)
        .await?
        .rows_affected());
        Ok(deleted > 0)
    }

    async fn versions(
        &self,
        owner: &str,
        assistant_id: &str,
        metadata: &Map<String, Value>,
        limit: u32,
        offset: u64,
    ) -> Result<Vec<AssistantRecord>, StoreError> {
        super::assistant_search::versions(&self.0, owner, assistant_id, metadata, limit, offset)
            .await
    }
}
