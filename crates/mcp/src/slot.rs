//! One running instance of a server: the shared one of a host or remote server, or one per
//! thread of a `sandboxed` server. It is connected, idle, or failed with a pause before the
//! next start.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use crate::hub::Connection;
use crate::types::{ServerState, ToolInfo};

pub(crate) enum State {
    Idle,
    Connected {
        conn: Arc<dyn Connection>,
        tools: Vec<ToolInfo>,
        /// What is wrong with the tool list (shown with the server's status).
        warnings: Vec<String>,
    },
    Failed {
        error: String,
        retry_at: Instant,
        attempts: u32,
    },
}

/// An instance and the lock that makes its starts one at a time.
pub(crate) struct Slot {
    pub(crate) state: Mutex<State>,
    pub(crate) starting: tokio::sync::Mutex<()>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Slot {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Slot {
            state: Mutex::new(State::Idle),
            starting: tokio::sync::Mutex::new(()),
        })
    }

    /// The connection if it is up.
    pub(crate) fn live(&self) -> Option<Arc<dyn Connection>> {
        match &*lock(&self.state) {
            State::Connected { conn, .. } if !conn.is_closed() => Some(conn.clone()),
            _ => None,
        }
    }

    /// Its tools while connected.
    pub(crate) fn tools(&self) -> Option<Vec<ToolInfo>> {
        match &*lock(&self.state) {
            State::Connected { conn, tools, .. } if !conn.is_closed() => Some(tools.clone()),
            _ => None,
        }
    }

    /// Worth keeping: connected, starting, or failed and still pausing (so a thread's
    /// failing server is not started again at once).
    pub(crate) fn in_use(&self) -> bool {
        self.starting.try_lock().is_err()
            || match &*lock(&self.state) {
                State::Idle => false,
                State::Connected { conn, .. } => !conn.is_closed(),
                // Kept a while after its pause, so the next pause can be longer.
                State::Failed { retry_at, .. } => {
                    Instant::now() < *retry_at + std::time::Duration::from_secs(120)
                }
            }
    }

    /// The state the API shows, with the last error.
    pub(crate) fn view(&self) -> (ServerState, Option<String>) {
        match &*lock(&self.state) {
            State::Idle => (ServerState::Idle, None),
            State::Connected { conn, .. } if !conn.is_closed() => (ServerState::Connected, None),
            State::Connected { .. } => {
                (ServerState::Failed, Some("the server stopped".to_string()))
            }
            State::Failed { error, .. } => (ServerState::Failed, Some(error.clone())),
        }
    }

    /// What is wrong with its tool list while connected.
    pub(crate) fn warnings(&self) -> Vec<String> {
        match &*lock(&self.state) {
            State::Connected { warnings, .. } => warnings.clone(),
            _ => Vec::new(),
        }
    }

    /// Records that the connection ended: the next use starts the server again at once.
    pub(crate) fn broke(&self, server: &str, why: &str) {
        let mut state = lock(&self.state);
        if matches!(&*state, State::Connected { .. }) {
            tracing::warn!(mcp.server = %server, why, "MCP server connection ended");
            *state = State::Failed {
                error: why.to_string(),
                retry_at: Instant::now(),
                attempts: 0,
            };
        }
    }

    /// Stops the instance.
    pub(crate) async fn stop(&self, server: &str) {
        let previous = std::mem::replace(&mut *lock(&self.state), State::Idle);
        if let State::Connected { conn, .. } = previous {
            conn.close().await;
            tracing::info!(mcp.server = %server, "MCP server stopped");
        }
    }

    /// Lists the tools again (the server said they changed).
    pub(crate) async fn relist(&self, server: &str) {
        let Some(conn) = self.live() else {
            return;
        };
        match conn.list_tools().await {
            Ok(tools) => {
                let (tools, found) = crate::names::unique_tools(tools);
                tracing::info!(mcp.server = %server, tools = tools.len(), "MCP server's tools changed");
                warn_of(server, &found);
                if let State::Connected {
                    tools: t, warnings, ..
                } = &mut *lock(&self.state)
                {
                    *t = tools;
                    *warnings = found;
                }
            }
            Err(e) => {
                tracing::warn!(mcp.server = %server, error = %e, "MCP tools could not be listed again")
            }
        }
    }
}

/// Logs what is wrong with a server's tool list.
pub(crate) fn warn_of(server: &str, warnings: &[String]) {
    for w in warnings {
        tracing::warn!(mcp.server = %server, "{w}");
    }
}
