//! The MCP servers' use-cases: their status and restarting one.

use std::sync::Arc;

use antler_mcp::{McpError, McpHub, ServerStatus};

/// The MCP use-cases.
#[derive(Debug, Clone)]
pub struct McpService {
    hub: Arc<McpHub>,
}

impl McpService {
    pub(crate) fn new(hub: Arc<McpHub>) -> Self {
        McpService { hub }
    }

    /// The hub (for the run manager and shutdown).
    pub fn hub(&self) -> &Arc<McpHub> {
        &self.hub
    }

    /// Every server's state, tools and call counts; starts none.
    pub fn servers(&self) -> Vec<ServerStatus> {
        self.hub.status()
    }

    /// Stops a server and starts it again; answers its status (a start that failed shows
    /// as `failed` with the reason).
    pub async fn restart(&self, name: &str) -> Result<ServerStatus, McpError> {
        if let Err(e) = self.hub.restart(name).await
            && matches!(e, McpError::Unknown(_))
        {
            return Err(e);
        }
        self.hub
            .status()
            .into_iter()
            .find(|s| s.name == name)
            .ok_or_else(|| McpError::Unknown(format!("no MCP server '{name}'")))
    }
}
