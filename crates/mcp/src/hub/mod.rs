//! The MCP servers of this process: started on first use (or at startup when `eager`),
//! shared by every run, started again after a failure once a pause has passed (longer each
//! time), their tools listed again when they say the list changed, stopped at shutdown.
//! A `sandboxed` server is started once per thread, inside that thread's sandbox.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

mod connection;
mod status;

pub use connection::{ChangeSink, Connection, Connector, ProgressSink};

use crate::ServerConfig;
use crate::launch::Launcher;
use crate::names::model_names;
use crate::slot::{Slot, State, lock};
use crate::types::{CallResult, McpError, ToolInfo};

/// The first pause before starting a failed server again; it doubles up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_secs(1);
const MAX_PAUSE: Duration = Duration::from_secs(60);

struct Server {
    name: String,
    config: ServerConfig,
    /// The shared instance (not used by a `sandboxed` server).
    shared: Arc<Slot>,
    /// A `sandboxed` server's instances, by thread.
    threads: Mutex<HashMap<String, Arc<Slot>>>,
    /// A sandboxed server: the tools its instances last listed, per person (offered to that
    /// person's runs before the server runs in their thread).
    last_tools: Mutex<HashMap<String, Vec<ToolInfo>>>,
    calls: AtomicU64,
    failed_calls: AtomicU64,
}

impl Server {
    /// The instance a call uses: the shared one, or the thread's for a `sandboxed` server.
    fn slot(&self, launcher: Option<&dyn Launcher>) -> Result<Arc<Slot>, McpError> {
        if !self.config.sandboxed {
            return Ok(self.shared.clone());
        }
        let Some(launcher) = launcher else {
            return Err(McpError::Unavailable(format!(
                "the MCP server '{}' runs in a thread's sandbox, and there is none here",
                self.name
            )));
        };
        let mut threads = lock(&self.threads);
        // Instances whose sandbox went away (or that never started) are forgotten; one that
        // a caller holds (about to start it) is not.
        threads.retain(|scope, slot| {
            scope == launcher.scope() || Arc::strong_count(slot) > 1 || slot.in_use()
        });
        Ok(threads
            .entry(launcher.scope().to_string())
            .or_insert_with(Slot::new)
            .clone())
    }

    fn all_slots(&self) -> Vec<Arc<Slot>> {
        let mut slots = vec![self.shared.clone()];
        slots.extend(lock(&self.threads).values().cloned());
        slots
    }

    async fn stop(&self) {
        let slots = self.all_slots();
        futures::future::join_all(slots.iter().map(|s| s.stop(&self.name))).await;
    }
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
                        shared: Slot::new(),
                        threads: Mutex::new(HashMap::new()),
                        last_tools: Mutex::new(HashMap::new()),
                        calls: AtomicU64::new(0),
                        failed_calls: AtomicU64::new(0),
                    })
                });
            }
        }
        for server in stopped {
            tokio::spawn(async move { server.stop().await });
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

    /// Starts the servers marked `eager` (in the background; a `sandboxed` one waits for
    /// its thread).
    pub fn start_eager(self: &Arc<Self>) {
        for server in self
            .enabled()
            .into_iter()
            .filter(|s| s.config.eager && !s.config.sandboxed)
        {
            let hub = self.clone();
            tokio::spawn(async move {
                if let Err(e) = hub.connected(&server, &server.shared, None).await {
                    tracing::warn!(mcp.server = %server.name, error = %e, "MCP server did not start");
                }
            });
        }
    }

    /// The instance's connection, started now if need be (one start at a time; a failed
    /// instance is not started again before its pause is over).
    async fn connected(
        &self,
        server: &Arc<Server>,
        slot: &Arc<Slot>,
        launcher: Option<&dyn Launcher>,
    ) -> Result<Arc<dyn Connection>, McpError> {
        if let Some(conn) = slot.live() {
            return Ok(conn);
        }
        let _one = slot.starting.lock().await;
        if let Some(conn) = slot.live() {
            return Ok(conn);
        }
        let attempts = match &*lock(&slot.state) {
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
            let (slot, name) = (Arc::downgrade(slot), server.name.clone());
            Arc::new(move || {
                if let Some(slot) = slot.upgrade() {
                    let name = name.clone();
                    tokio::spawn(async move { slot.relist(&name).await });
                }
            })
        };
        let timeout = Duration::from_secs(server.config.init_timeout_secs);
        let started = tokio::time::timeout(timeout, async {
            let conn = self
                .connector
                .connect(&server.name, &server.config, on_change, launcher)
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
                let (tools, warnings) = crate::names::unique_tools(tools);
                crate::slot::warn_of(&server.name, &warnings);
                tracing::info!(mcp.server = %server.name, tools = tools.len(), "MCP server connected");
                if let Some(l) = launcher.filter(|_| server.config.sandboxed) {
                    lock(&server.last_tools).insert(l.owner().to_string(), tools.clone());
                }
                *lock(&slot.state) = State::Connected {
                    conn: conn.clone(),
                    tools,
                    warnings,
                };
                Ok(conn)
            }
            Err(e) => {
                let pause = FIRST_PAUSE
                    .saturating_mul(2u32.saturating_pow(attempts.min(6)))
                    .min(MAX_PAUSE);
                tracing::warn!(mcp.server = %server.name, error = %e, retry_in_secs = pause.as_secs(), "MCP server failed to start");
                *lock(&slot.state) = State::Failed {
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

    /// The tools every enabled server offers now, starting servers that have not started
    /// (concurrently); `sandboxed` servers start in `launcher`'s thread, and are left out
    /// without one. Servers that cannot start are left out (their status says why).
    pub async fn tools(&self, launcher: Option<&dyn Launcher>) -> Vec<OfferedTool> {
        let servers: Vec<(Arc<Server>, Arc<Slot>)> = self
            .enabled()
            .into_iter()
            .filter_map(|s| s.slot(launcher).ok().map(|slot| (s, slot)))
            .collect();
        // A sandboxed server whose tools are known starts in a thread on its first call
        // there, not with every run (which would start the thread's container).
        let owner = launcher.map(|l| l.owner()).unwrap_or_default();
        let known_tools = |s: &Server| {
            lock(&s.last_tools)
                .get(owner)
                .filter(|t| s.config.sandboxed && !t.is_empty())
                .cloned()
        };
        let known = |s: &Server| known_tools(s).is_some();
        futures::future::join_all(
            servers
                .iter()
                .filter(|(s, slot)| slot.live().is_some() || !known(s))
                .map(|(s, slot)| self.connected(s, slot, launcher)),
        )
        .await;
        let mut taken = HashSet::new();
        let mut offered = Vec::new();
        for (server, slot) in servers {
            let Some(tools) = slot.tools().or_else(|| known_tools(&server)) else {
                continue;
            };
            let tools: Vec<ToolInfo> = tools
                .into_iter()
                .filter(|t| server.config.offers(&t.name))
                .collect();
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
    /// the next use. A `sandboxed` server's call goes to `launcher`'s thread's instance.
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        args: Map<String, Value>,
        progress: ProgressSink,
        cancel: CancellationToken,
        launcher: Option<&dyn Launcher>,
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
        let slot = s.slot(launcher)?;
        if let Some(l) = launcher.filter(|_| s.config.sandboxed) {
            l.hold().await;
        }
        let conn = self.connected(&s, &slot, launcher).await?;
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
            slot.broke(&s.name, "the server stopped");
            if let Err(McpError::Failed(m)) = &result {
                return Err(McpError::Unavailable(format!(
                    "the MCP server '{server}' stopped during the call ({m}); it is started again on the next call"
                )));
            }
        }
        result
    }

    /// Stops a server and starts it again (a `sandboxed` one starts again in each thread
    /// when next used).
    pub async fn restart(&self, name: &str) -> Result<(), McpError> {
        let server = self
            .server(name)
            .ok_or_else(|| McpError::Unknown(format!("no MCP server '{name}'")))?;
        server.stop().await;
        if server.config.enabled && !server.config.sandboxed {
            self.connected(&server, &server.shared, None).await?;
        }
        Ok(())
    }

    /// Stops every server (at shutdown).
    pub async fn shutdown(&self) {
        let servers: Vec<Arc<Server>> = lock(&self.servers).values().cloned().collect();
        futures::future::join_all(servers.iter().map(|s| s.stop())).await;
    }
}
