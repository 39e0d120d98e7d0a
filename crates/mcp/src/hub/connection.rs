//! What the hub needs of a server connection, so tests can stand in a scripted one.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::ServerConfig;
use crate::launch::Launcher;
use crate::types::{CallResult, McpError, Progress, ToolInfo};

/// Receives a running call's progress.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// Told when a server's tool list changed.
pub type ChangeSink = Arc<dyn Fn() + Send + Sync>;

/// A live connection to one server.
#[async_trait]
pub trait Connection: Send + Sync {
    /// Its tools, every page.
    async fn list_tools(&self) -> Result<Vec<ToolInfo>, McpError>;
    /// Calls a tool; progress goes to `progress`; stops (telling the server) when `cancel`
    /// fires.
    async fn call(
        &self,
        tool: &str,
        args: Map<String, Value>,
        progress: ProgressSink,
        cancel: CancellationToken,
    ) -> Result<CallResult, McpError>;
    /// Whether the connection has ended (the process exited, the stream closed).
    fn is_closed(&self) -> bool;
    /// Ends it (and the server process, for stdio).
    async fn close(&self);
}

/// Opens connections.
#[async_trait]
pub trait Connector: Send + Sync {
    /// Starts or reaches the server `name` and initialises the session; a `sandboxed`
    /// server is started by `launcher`.
    async fn connect(
        &self,
        name: &str,
        config: &ServerConfig,
        on_change: ChangeSink,
        launcher: Option<&dyn Launcher>,
    ) -> Result<Arc<dyn Connection>, McpError>;
}
