//! The MCP servers' use-cases: their status, restarting one, and their configuration —
//! stored in the database so every replica uses the same set (the YAML seeds it once),
//! changed by admins, never showing a variable's or header's value.

use std::collections::BTreeMap;
use std::sync::Arc;

use antler_mcp::config::check;
use antler_mcp::view::config_view;
use antler_mcp::{McpError, McpHub};
use antler_protocol::mcp::{McpConfigView, ServerConfig, ServerStatus};
use antler_store::{Store, StoreError, Topic};
use serde_json::{Map, Value};
use tokio::sync::broadcast::error::RecvError;

/// What can go wrong with the MCP configuration.
#[derive(Debug, thiserror::Error)]
pub enum McpConfigError {
    /// The configuration is not valid; nothing was changed.
    #[error("{0}")]
    Invalid(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The MCP use-cases.
#[derive(Debug, Clone)]
pub struct McpService {
    hub: Arc<McpHub>,
    store: Store,
    instance: String,
}

type Servers = BTreeMap<String, ServerConfig>;

/// The stored servers, each checked; a bad one is left out with a warning (it was valid
/// when saved, but this version may check more).
fn parse(stored: &Value) -> Servers {
    let Some(map) = stored.as_object() else {
        return Servers::new();
    };
    map.iter()
        .filter_map(|(name, v)| {
            let parsed = serde_json::from_value::<ServerConfig>(v.clone())
                .map_err(|e| e.to_string())
                .and_then(|c| check(name, &c).map(|()| c));
            match parsed {
                Ok(c) => Some((name.clone(), c)),
                Err(why) => {
                    tracing::warn!(mcp.server = %name, %why, "stored MCP server left out");
                    None
                }
            }
        })
        .collect()
}

impl McpService {
    /// The servers of the database (seeded from `seed`, the YAML's, when it has none).
    pub(crate) async fn start(
        hub: Arc<McpHub>,
        store: Store,
        instance: String,
        seed: &Servers,
    ) -> Result<Self, StoreError> {
        let seed = serde_json::to_value(seed).unwrap_or_default();
        let stored = store.mcp.seed(&seed).await?;
        hub.replace(&parse(&stored));
        Ok(McpService {
            hub,
            store,
            instance,
        })
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

    /// The configuration, variables and headers hidden.
    pub async fn config(&self) -> Result<McpConfigView, McpConfigError> {
        let stored = self.store.mcp.load().await?.unwrap_or_default();
        Ok(config_view(&parse(&stored)))
    }

    /// Replaces the configuration. A variable or header given as `null` keeps its current
    /// value (clients never see values, so they cannot send them back).
    pub async fn replace(
        &self,
        servers: Map<String, Value>,
    ) -> Result<McpConfigView, McpConfigError> {
        let current = self.store.mcp.load().await?.unwrap_or_default();
        let mut next = Servers::new();
        for (name, mut server) in servers {
            for field in ["env", "headers"] {
                keep_hidden(&name, field, &mut server, &current)?;
            }
            let config: ServerConfig = serde_json::from_value(server)
                .map_err(|e| McpConfigError::Invalid(format!("mcp server '{name}': {e}")))?;
            check(&name, &config).map_err(McpConfigError::Invalid)?;
            next.insert(name, config);
        }
        let value = serde_json::to_value(&next).unwrap_or_default();
        self.store.mcp.save(&value).await?;
        self.hub.replace(&next);
        if let Err(e) = self.store.bus.publish(Topic::Mcp, &self.instance).await {
            tracing::warn!(error = %e, "other replicas were not told of the MCP change");
        }
        tracing::info!(servers = next.len(), "MCP configuration replaced");
        Ok(config_view(&next))
    }

    /// Follows changes made on other replicas.
    pub(crate) fn follow_other_replicas(&self) -> tokio::task::JoinHandle<()> {
        let mut notices = self.store.bus.subscribe();
        let this = self.clone();
        tokio::spawn(async move {
            loop {
                match notices.recv().await {
                    Ok(n) if n.topic == Topic::Mcp && n.payload != this.instance => {}
                    Err(RecvError::Lagged(_)) => {}
                    Ok(_) => continue,
                    Err(RecvError::Closed) => return,
                }
                match this.store.mcp.load().await {
                    Ok(stored) => this.hub.replace(&parse(&stored.unwrap_or_default())),
                    Err(e) => tracing::warn!(error = %e, "MCP configuration could not be read"),
                }
            }
        })
    }
}

/// Puts the current value back where `field.key` is `null`.
fn keep_hidden(
    name: &str,
    field: &str,
    server: &mut Value,
    current: &Value,
) -> Result<(), McpConfigError> {
    let target = |v: Option<&Value>| {
        let get = |k: &str, default: Value| v.and_then(|v| v.get(k)).cloned().unwrap_or(default);
        (
            get("transport", Value::from("stdio")),
            get("command", Value::Null),
            get("args", Value::Array(Vec::new())),
            get("url", Value::Null),
            // Into a sandbox, a secret is readable by the agent's commands there.
            get("sandboxed", Value::Bool(false)),
        )
    };
    // A kept secret goes only where it went before: not to a new program or host.
    let same_target = target(Some(&*server)) == target(current.get(name));
    let Some(Value::Object(entries)) = server.get_mut(field) else {
        return Ok(());
    };
    for (key, value) in entries.iter_mut() {
        if value.is_null() && !same_target {
            return Err(McpConfigError::Invalid(format!(
                "mcp server '{name}': {field}.{key} can be kept (null) only while the transport, command, arguments and URL stay the same; send its value again"
            )));
        }
        if value.is_null() {
            *value = current
                .pointer(&format!("/{}/{field}/{}", escape(name), escape(key)))
                .cloned()
                .ok_or_else(|| {
                    McpConfigError::Invalid(format!(
                        "mcp server '{name}': {field}.{key} is null but has no current value to keep"
                    ))
                })?;
        }
    }
    Ok(())
}

/// A JSON pointer segment.
fn escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}
