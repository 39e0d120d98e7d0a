//! The MCP servers' configuration: one row.

use async_trait::async_trait;
use chrono::Utc;
use serde_json::Value;
use sqlx::types::Json;

use super::{Db, Engine, on};
use crate::StoreError;
use crate::mcp_config::McpConfigRepo;

pub(crate) struct SqlMcpConfig(pub(crate) Db);

#[async_trait]
impl McpConfigRepo for SqlMcpConfig {
    async fn seed(&self, servers: &Value) -> Result<Value, StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "INSERT INTO mcp_config (id, servers, updated_at) VALUES (1, $1, $2) \
                 ON CONFLICT (id) DO NOTHING",
            )
            .bind(Json(servers))
            .bind(p.time(Utc::now()))
            .execute(p)
            .await?;
        });
        Ok(self.load().await?.unwrap_or_else(|| servers.clone()))
    }

    async fn save(&self, servers: &Value) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "INSERT INTO mcp_config (id, servers, updated_at) VALUES (1, $1, $2) \
                 ON CONFLICT (id) DO UPDATE SET servers = $1, updated_at = $2",
            )
            .bind(Json(servers))
            .bind(p.time(Utc::now()))
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn load(&self) -> Result<Option<Value>, StoreError> {
        let row: Option<(Json<Value>,)> = on!(&self.0, p => sqlx::query_as(
            "SELECT servers FROM mcp_config WHERE id = 1",
        )
        .fetch_optional(p)
        .await?);
        Ok(row.map(|(v,)| v.0))
    }
}
