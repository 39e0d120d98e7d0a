//! The MCP servers' configuration shared by every replica.

use async_trait::async_trait;
use serde_json::Value;

use crate::StoreError;

/// Reads and writes the MCP servers' configuration (a JSON object by server name).
#[async_trait]
pub trait McpConfigRepo: Send + Sync + 'static {
    /// Stores `servers` unless a configuration is stored already; answers the stored one.
    async fn seed(&self, servers: &Value) -> Result<Value, StoreError>;
    /// Replaces the stored configuration.
    async fn save(&self, servers: &Value) -> Result<(), StoreError>;
    /// The stored configuration, if any.
    async fn load(&self) -> Result<Option<Value>, StoreError>;
}
