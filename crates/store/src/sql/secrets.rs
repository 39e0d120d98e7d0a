//! Named secrets.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::types::Json;

use super::{Db, Engine, on};
use crate::StoreError;
use crate::secrets::{SecretRecord, SecretRepo};

pub(crate) struct SqlSecrets(pub(crate) Db);

const COLUMNS: &str =
    "name, description, agents, skills, sealed, created_by, created_at, updated_at";

#[derive(sqlx::FromRow)]
struct Row {
    name: String,
    description: String,
    agents: Json<Vec<String>>,
    skills: Json<Vec<String>>,
    sealed: Vec<u8>,
    created_by: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl From<Row> for SecretRecord {
    fn from(r: Row) -> Self {
        SecretRecord {
            name: r.name,
            description: r.description,
            agents: r.agents.0,
            skills: r.skills.0,
            sealed: r.sealed,
            created_by: r.created_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

#[async_trait]
impl SecretRepo for SqlSecrets {
    async fn list(&self) -> Result<Vec<SecretRecord>, StoreError> {
        let rows: Vec<Row> = on!(&self.0, p => sqlx::query_as(
            &format!("SELECT {COLUMNS} FROM secrets ORDER BY name"),
        )
        .fetch_all(p)
        .await?);
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn put(&self, s: &SecretRecord) -> Result<SecretRecord, StoreError> {
        let row: Row = on!(&self.0, p => sqlx::query_as(&format!(
            "INSERT INTO secrets ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) \
             ON CONFLICT (name) DO UPDATE SET description = excluded.description, \
             agents = excluded.agents, skills = excluded.skills, sealed = excluded.sealed, \
             updated_at = excluded.updated_at RETURNING {COLUMNS}"
        ))
        .bind(&s.name)
        .bind(&s.description)
        .bind(Json(&s.agents))
        .bind(Json(&s.skills))
        .bind(&s.sealed)
        .bind(&s.created_by)
        .bind(p.time(s.updated_at))
        .fetch_one(p)
        .await?);
        Ok(row.into())
    }

    async fn delete(&self, name: &str) -> Result<bool, StoreError> {
        let done = on!(&self.0, p => sqlx::query("DELETE FROM secrets WHERE name = $1")
            .bind(name)
            .execute(p)
            .await?
            .rows_affected());
        Ok(done > 0)
    }
}
