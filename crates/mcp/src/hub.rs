//! The MCP servers of this process: started on first use (or at startup when `eager`),
//! shared by every run, started again after a failure once a pause has passed (longer each
//! time), their tools listed again when they say the list changed, stopped at shutdown.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::ServerConfig;
use crate::names::model_names;
use crate::types::{CallResult, McpError, Progress, ServerState, ServerStatus, ToolInfo, ToolView};

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
    /// Starts or reaches the server `name` and initialises the session.
    async fn connect(
        &self,
        name: &str,
        config: &ServerConfig,
        on_change: ChangeSink,
    ) -> Result<Arc<dyn Connection>, McpError>;
}

/// The first pause before starting a failed server again; it doubles up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_secs(1);
const MAX_PAUSE: Duration = Duration::from_secs(60);

enum State {
    Idle,
    Connected {
        conn: Arc<dyn Connection>,
        tools: Vec<ToolInfo>,
    },
    Failed {
        error: String,
        retry_at: Instant,
        attempts: u32,
    },
}

struct Server {
    name: String,
    config: ServerConfig,
    state: Mutex<State>,
    /// One start at a time.
    starting: tokio::sync::Mutex<()>,
    calls: AtomicU64,
    failed_calls: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedTool {
    /// The name the model calls it by.
    pub model_name: String,
    /// Its server.
    pub server: String,
    /// The tool as listed.
    pub tool: ToolInfo,
}

/// The MCP servers.
pub struct McpHub {
    servers: Mutex<BTreeMap<String, Arc<Server>>>,
    connector: Arc<dyn Connector>,
}

impl std::fmt::Debug for McpHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHub")
            .field("servers", &lock(&self.servers).keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl McpHub {
    /// A hub without servers yet ([`McpHub::replace`] gives it some).
    pub fn new(connector: Arc<dyn Connector>) -> Arc<Self> {
        Arc::new(McpHub {
            servers: Mutex::new(BTreeMap::new()),
            connector,
        })
    }

    /// Takes a new set of servers: changed or removed ones are stopped, the others kept.
    pub fn replace(&self, servers: &BTreeMap<String, ServerConfig>) {
        let mut stopped = Vec::new();
        {
            let mut current = lock(&self.servers);
            current.retain(|name, server| {
                let keep = servers.get(name) == Some(&server.config);
                if !keep {
                    stopped.push(server.clone());
                }
                keep
            });
            for (name, config) in servers {
                current.entry(name.clone()).or_insert_with(|| {
                    Arc::new(Server {
                        name: name.clone(),
                        config: config.clone(),
                        state: Mutex::new(State::Idle),
                        starting: tokio::sync::Mutex::new(()),
                        calls: AtomicU64::new(0),
                        failed_calls: AtomicU64::new(0),
                    })
                });
            }
        }
        for server in stopped {
            tokio::spawn(async move { stop(&server).await });
        }
    }

    fn server(&self, name: &str) -> Option<Arc<Server>> {
        lock(&self.servers).get(name).cloned()
    }

    fn enabled(&self) -> Vec<Arc<Server>> {
        lock(&self.servers)
            .values()
            .filter(|s| s.config.enabled)
            .cloned()
            .collect()
    }

    /// Starts the servers marked `eager` (in the background).
    pub fn start_eager(self: &Arc<Self>) {
        for server in self.enabled().into_iter().filter(|s| s.config.eager) {
            let hub = self.clone();
            tokio::spawn(async move {
                if let Err(e) = hub.connected(&server).await {
                    tracing::warn!(mcp.server = %server.name, error = %e, "MCP server did not start");
                }
            });
        }
    }

    /// The connection to `server`, started now if need be (one start at a time; a failed
    /// server is not started again before its pause is over).
    async fn connected(
        self: &Arc<Self>,
        server: &Arc<Server>,
    ) -> Result<Arc<dyn Connection>, McpError> {
        if let Some(conn) = live(server) {
            return Ok(conn);
        }
        let _one = server.starting.lock().await;
        if let Some(conn) = live(server) {
            return Ok(conn);
        }
        let attempts = match &*lock(&server.state) {
            State::Failed {
                error,
                retry_at,
                attempts,
            } => {
                if Instant::now() < *retry_at {
                    return Err(McpError::Unavailable(format!(
                        "the MCP server '{}' is unavailable: {error}",
                        server.name
                    )));
                }
                *attempts
            }
            _ => 0,
        };
        let on_change: ChangeSink = {
            let (hub, name) = (Arc::downgrade(self), server.name.clone());
            Arc::new(move || {
                if let Some(hub) = hub.upgrade() {
                    let name = name.clone();
                    tokio::spawn(async move { hub.relist(&name).await });
                }
            })
        };
        let timeout = Duration::from_secs(server.config.init_timeout_secs);
        let started = tokio::time::timeout(timeout, async {
            let conn = self
                .connector
                .connect(&server.name, &server.config, on_change)
                .await?;
            match conn.list_tools().await {
                Ok(tools) => Ok((conn, tools)),
                Err(e) => {
                    conn.close().await;
                    Err(e)
                }
            }
        })
        .await
        .unwrap_or_else(|_| {
            Err(McpError::Unavailable(format!(
                "it did not start within {}s",
                timeout.as_secs()
            )))
        });
        match started {
            Ok((conn, tools)) => {
                tracing::info!(mcp.server = %server.name, tools = tools.len(), "MCP server connected");
                *lock(&server.state) = State::Connected {
                    conn: conn.clone(),
                    tools,
                };
                Ok(conn)
            }
            Err(e) => {
                let pause = FIRST_PAUSE
                    .saturating_mul(2u32.saturating_pow(attempts.min(6)))
                    .min(MAX_PAUSE);
                tracing::warn!(mcp.server = %server.name, error = %e, retry_in_secs = pause.as_secs(), "MCP server failed to start");
                *lock(&server.state) = State::Failed {
                    error: e.to_string(),
                    retry_at: Instant::now() + pause,
                    attempts: attempts + 1,
                };
                Err(McpError::Unavailable(format!(
                    "the MCP server '{}' could not be started: {e}",
                    server.name
                )))
            }
        }
    }

    /// Lists a server's tools again (it said they changed).
    async fn relist(self: &Arc<Self>, name: &str) {
        let Some(server) = self.server(name) else {
            return;
        };
        let Some(conn) = live(&server) else {
            return;
        };
        match conn.list_tools().await {
            Ok(tools) => {
                tracing::info!(mcp.server = %name, tools = tools.len(), "MCP server's tools changed");
                if let State::Connected { tools: t, .. } = &mut *lock(&server.state) {
                    *t = tools;
                }
            }
            Err(e) => {
                tracing::warn!(mcp.server = %name, error = %e, "MCP tools could not be listed again")
            }
        }
    }

    /// The tools every enabled server offers now, starting servers that have not started
    /// (concurrently). Servers that cannot start are left out (their status says why).
    pub async fn tools(self: &Arc<Self>) -> Vec<OfferedTool> {
        let servers = self.enabled();
        futures::future::join_all(servers.iter().map(|s| self.connected(s))).await;
        let mut taken = HashSet::new();
        let mut offered = Vec::new();
        for server in servers {
            let tools: Vec<ToolInfo> = match &*lock(&server.state) {
                State::Connected { tools, .. } => tools
                    .iter()
                    .filter(|t| server.config.offers(&t.name))
                    .cloned()
                    .collect(),
                _ => continue,
            };
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            for (model_name, tool) in model_names(&server.name, &names, &taken)
                .into_iter()
                .zip(tools)
            {
                taken.insert(model_name.clone());
                offered.push(OfferedTool {
                    model_name,
                    server: server.name.clone(),
                    tool,
                });
            }
        }
        offered
    }

    /// Calls `tool` of `server` with a timeout; a connection that broke is started again on
    /// the next use.
    pub async fn call(
        self: &Arc<Self>,
        server: &str,
        tool: &str,
        args: Map<String, Value>,
        progress: ProgressSink,
        cancel: CancellationToken,
    ) -> Result<CallResult, McpError> {
        let Some(s) = self.server(server).filter(|s| s.config.enabled) else {
            return Err(McpError::Unknown(format!(
                "no enabled MCP server '{server}'"
            )));
        };
        if !s.config.offers(tool) {
            return Err(McpError::Unknown(format!(
                "the MCP server '{server}' does not offer '{tool}'"
            )));
        }
        let conn = self.connected(&s).await?;
        s.calls.fetch_add(1, Ordering::Relaxed);
        let limit = Duration::from_secs(s.config.call_timeout_secs);
        let call_cancel = cancel.child_token();
        let result = tokio::select! {
            r = conn.call(tool, args, progress, call_cancel.clone()) => r,
            () = tokio::time::sleep(limit) => {
                // Tell the server to stop working on it.
                call_cancel.cancel();
                Err(McpError::Timeout(format!(
                    "'{tool}' did not finish within {}s (mcp.servers.{server}.call_timeout_secs)",
                    limit.as_secs()
                )))
            }
        };
        if result.is_err() || result.as_ref().is_ok_and(|r| r.is_error) {
            s.failed_calls.fetch_add(1, Ordering::Relaxed);
        }
        if conn.is_closed() {
            self.broke(&s, "the server stopped");
            if let Err(McpError::Failed(m)) = &result {
                return Err(McpError::Unavailable(format!(
                    "the MCP server '{server}' stopped during the call ({m}); it is started again on the next call"
                )));
            }
        }
        result
    }

    /// Records that a connection ended: the next use starts the server again at once.
    fn broke(&self, server: &Server, why: &str) {
        let mut state = lock(&server.state);
        if matches!(&*state, State::Connected { .. }) {
            tracing::warn!(mcp.server = %server.name, why, "MCP server connection ended");
            *state = State::Failed {
                error: why.to_string(),
                retry_at: Instant::now(),
                attempts: 0,
            };
        }
    }

    /// Stops a server and starts it again.
    pub async fn restart(self: &Arc<Self>, name: &str) -> Result<(), McpError> {
        let server = self
            .server(name)
            .ok_or_else(|| McpError::Unknown(format!("no MCP server '{name}'")))?;
        stop(&server).await;
        if server.config.enabled {
            self.connected(&server).await?;
        }
        Ok(())
    }

    /// Every server's status (it starts none).
    pub fn status(&self) -> Vec<ServerStatus> {
        let servers: Vec<Arc<Server>> = lock(&self.servers).values().cloned().collect();
        let mut taken = HashSet::new();
        servers
            .iter()
            .map(|s| {
                let (state, last_error, tools) = match &*lock(&s.state) {
                    _ if !s.config.enabled => (ServerState::Disabled, None, Vec::new()),
                    State::Idle => (ServerState::Idle, None, Vec::new()),
                    State::Connected { conn, tools } if !conn.is_closed() => (
                        ServerState::Connected,
                        None,
                        tools
                            .iter()
                            .filter(|t| s.config.offers(&t.name))
                            .cloned()
                            .collect(),
                    ),
                    State::Connected { .. } => (
                        ServerState::Failed,
                        Some("the server stopped".to_string()),
                        Vec::new(),
                    ),
                    State::Failed { error, .. } => {
                        (ServerState::Failed, Some(error.clone()), Vec::new())
                    }
                };
                let names: Vec<&str> = tools.iter().map(|t: &ToolInfo| t.name.as_str()).collect();
                let model = model_names(&s.name, &names, &taken);
                taken.extend(model.iter().cloned());
                ServerStatus {
                    name: s.name.clone(),
                    transport: s.config.transport,
                    description: s.config.description.clone(),
                    state,
                    last_error,
                    tools: tools
                        .iter()
                        .zip(model)
                        .map(|(t, model_name)| ToolView {
                            name: t.name.clone(),
                            model_name,
                            description: t.description.clone(),
                            input_schema: t.input_schema.clone(),
                        })
                        .collect(),
                    calls: s.calls.load(Ordering::Relaxed),
                    failed_calls: s.failed_calls.load(Ordering::Relaxed),
                }
            })
            .collect()
    }

    /// Stops every server (at shutdown).
    pub async fn shutdown(&self) {
        let servers: Vec<Arc<Server>> = lock(&self.servers).values().cloned().collect();
        futures::future::join_all(servers.iter().map(|s| stop(s))).await;
    }
}

/// The server's connection if it is up.
fn live(server: &Server) -> Option<Arc<dyn Connection>> {
    match &*lock(&server.state) {
        State::Connected { conn, .. } if !conn.is_closed() => Some(conn.clone()),
        _ => None,
    }
}

async fn stop(server: &Server) {
    let previous = std::mem::replace(&mut *lock(&server.state), State::Idle);
    if let State::Connected { conn, .. } = previous {
        conn.close().await;
        tracing::info!(mcp.server = %server.name, "MCP server stopped");
    }
}
