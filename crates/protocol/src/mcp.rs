//! MCP servers as `/api/mcp/…` sends and receives them: a server's configuration (the
//! body's `servers` of `PUT /api/mcp/config` and what the database stores), the same with
//! its secrets hidden (`GET /api/mcp/config`), and a server's status.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// How a server is reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    /// A child process speaking MCP on its standard input and output.
    #[default]
    Stdio,
    /// MCP's streamable HTTP.
    StreamableHttp,
    /// The older HTTP with server-sent events.
    Sse,
}

/// One MCP server's configuration. `S` is what an environment variable or header holds:
/// its value (`String`: [`ServerConfig`], what the YAML, the database and `PUT
/// /api/mcp/config` hold) or, as the API shows it, which variables it names
/// ([`ServerConfigView`]). One type for both, so that the API shows every field there is.
///
/// The schema is the API's view: it sends every field, so all are required. Defaults are
/// given field by field (not `serde(default)` on the struct) because utoipa would put the
/// container's defaults into that schema, which it cannot for an `S` it does not know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ServerConfigView, description = "One server's configuration, secrets hidden.")]
pub struct ServerConfig<S = String> {
    /// `stdio` (default), `streamable_http` or `sse`.
    #[serde(default)]
    #[schema(required)]
    pub transport: Transport,
    /// stdio: the program (found on the server's `PATH`).
    #[serde(default)]
    pub command: Option<String>,
    /// stdio: its arguments.
    #[serde(default)]
    #[schema(required)]
    pub args: Vec<String>,
    /// stdio: its whole environment besides `PATH` and `HOME`; values may name the server's
    /// variables as `$VAR` or `${VAR}`, expanded when connecting and never shown.
    #[serde(default = "BTreeMap::new")]
    #[schema(required)]
    pub env: BTreeMap<String, S>,
    /// HTTP: the endpoint.
    #[serde(default)]
    pub url: Option<String>,
    /// HTTP: headers sent with every request (values expanded like `env`, never shown).
    #[serde(default = "BTreeMap::new")]
    #[schema(required)]
    pub headers: BTreeMap<String, S>,
    /// Off: its tools are not offered and it is not started.
    #[serde(default = "enabled")]
    #[schema(required)]
    pub enabled: bool,
    /// What it is for (shown in the UI).
    #[serde(default)]
    pub description: Option<String>,
    /// Connected at startup instead of on first use.
    #[serde(default)]
    #[schema(required)]
    pub eager: bool,
    /// stdio: started inside each thread's Docker sandbox instead of on the host.
    #[serde(default)]
    #[schema(required)]
    pub sandboxed: bool,
    /// Longest wait for the server to start and answer `initialize`.
    #[serde(default = "init_timeout_secs", deserialize_with = "crate::de::u64")]
    #[schema(required)]
    pub init_timeout_secs: u64,
    /// Longest wait for one tool call.
    #[serde(default = "call_timeout_secs", deserialize_with = "crate::de::u64")]
    #[schema(required)]
    pub call_timeout_secs: u64,
    /// Only these of its tools (MCP names); all when empty.
    #[serde(default)]
    #[schema(required)]
    pub allow_tools: Vec<String>,
    /// Never these of its tools.
    #[serde(default)]
    #[schema(required)]
    pub deny_tools: Vec<String>,
}

fn enabled() -> bool {
    true
}

fn init_timeout_secs() -> u64 {
    30
}

fn call_timeout_secs() -> u64 {
    120
}

impl<S> Default for ServerConfig<S> {
    fn default() -> Self {
        ServerConfig {
            transport: Transport::Stdio,
            command: None,
            args: Vec::new(),
            env: BTreeMap::new(),
            url: None,
            headers: BTreeMap::new(),
            enabled: enabled(),
            description: None,
            eager: false,
            sandboxed: false,
            init_timeout_secs: init_timeout_secs(),
            call_timeout_secs: call_timeout_secs(),
            allow_tools: Vec::new(),
            deny_tools: Vec::new(),
        }
    }
}

impl<S> ServerConfig<S> {
    /// Whether the server offers its tool `name` (MCP name).
    pub fn offers(&self, name: &str) -> bool {
        (self.allow_tools.is_empty() || self.allow_tools.iter().any(|t| t == name))
            && !self.deny_tools.iter().any(|t| t == name)
    }

    /// The same configuration with each variable's and header's value replaced by
    /// `hide` of it.
    pub fn map_values<T>(&self, hide: impl Fn(&S) -> T) -> ServerConfig<T> {
        let map = |m: &BTreeMap<String, S>| m.iter().map(|(k, v)| (k.clone(), hide(v))).collect();
        ServerConfig {
            transport: self.transport,
            command: self.command.clone(),
            args: self.args.clone(),
            env: map(&self.env),
            url: self.url.clone(),
            headers: map(&self.headers),
            enabled: self.enabled,
            description: self.description.clone(),
            eager: self.eager,
            sandboxed: self.sandboxed,
            init_timeout_secs: self.init_timeout_secs,
            call_timeout_secs: self.call_timeout_secs,
            allow_tools: self.allow_tools.clone(),
            deny_tools: self.deny_tools.clone(),
        }
    }
}

/// A value that may hold a secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HiddenValue {
    /// The variables it names (`$VAR`, `${VAR}`), expanded when the server starts.
    pub variables: Vec<String>,
    /// Whether it holds text besides them (shown to nobody).
    pub literal: bool,
}

/// One server's configuration, secrets hidden.
pub type ServerConfigView = ServerConfig<HiddenValue>;

/// `GET /api/mcp/config`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct McpConfigView {
    /// The servers by name.
    pub servers: BTreeMap<String, ServerConfigView>,
}

/// A server's state, as the API shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServerState {
    /// Switched off.
    Disabled,
    /// Not started yet (it starts on first use).
    Idle,
    /// Connected; its tools are offered.
    Connected,
    /// The last start or the connection failed (`last_error`); retried after a pause.
    Failed,
}

/// A tool of a server, as the API shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ToolView {
    /// Its MCP name.
    pub name: String,
    /// The name the model calls it by.
    pub model_name: String,
    /// What it does.
    pub description: String,
    /// The JSON Schema of its arguments.
    #[schema(value_type = Object)]
    pub input_schema: Value,
}

/// A server's status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ServerStatus {
    /// Its name.
    pub name: String,
    /// `stdio`, `streamable_http` or `sse`.
    pub transport: Transport,
    /// What it is for.
    pub description: Option<String>,
    /// Its state.
    pub state: ServerState,
    /// Why it last failed.
    pub last_error: Option<String>,
    /// Started inside each thread's sandbox rather than on the host.
    pub sandboxed: bool,
    /// A sandboxed server: the threads it runs in now.
    pub running_in_threads: usize,
    /// Its tools (those offered: after the allow and deny lists).
    pub tools: Vec<ToolView>,
    /// What is wrong with its tool list (a tool name listed twice: only the first is
    /// offered).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Calls made since the server started.
    pub calls: u64,
    /// Calls that failed.
    pub failed_calls: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_has_every_field_of_the_configuration_with_values_hidden() {
        let config: ServerConfig = serde_json::from_value(serde_json::json!({
            "command": "npx",
            "env": {"TOKEN": "${GH_TOKEN}"},
            "allow_tools": ["search"],
        }))
        .unwrap();
        let view = config.map_values(|v| HiddenValue {
            variables: vec![v.clone()],
            literal: false,
        });
        let json = serde_json::to_value(&view).unwrap();
        assert_eq!(
            json["env"]["TOKEN"],
            serde_json::json!({"variables": ["${GH_TOKEN}"], "literal": false})
        );
        assert_eq!(json["call_timeout_secs"], 120);
        let fields = |v: &Value| {
            let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            keys.sort();
            keys
        };
        assert_eq!(
            fields(&json),
            fields(&serde_json::to_value(&config).unwrap())
        );
        assert!(view.offers("search") && !view.offers("delete"));
    }

    #[test]
    fn missing_fields_take_the_defaults() {
        let empty: ServerConfig = serde_json::from_value(serde_json::json!({})).unwrap();
        assert_eq!(empty, ServerConfig::default());
        assert!(empty.enabled);
        assert_eq!(
            (empty.init_timeout_secs, empty.call_timeout_secs),
            (30, 120)
        );
    }

    #[test]
    fn unknown_fields_are_refused() {
        let bad = serde_json::from_value::<ServerConfig>(serde_json::json!({"comand": "x"}));
        assert!(bad.unwrap_err().to_string().contains("comand"));
    }
}
