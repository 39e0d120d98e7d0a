//! How MCP servers are configured (`mcp.servers` in the YAML, then in the database), and
//! what the API shows of it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `mcp` in the configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct McpConfig {
    /// The servers by name (letters, digits, `-` and `_`). The YAML seeds the database the
    /// first time; afterwards admins change them through the API.
    pub servers: BTreeMap<String, ServerConfig>,
    /// When MCP tools are too many for every model call.
    pub tool_search: ToolSearchConfig,
}

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

/// One MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    /// `stdio` (default), `streamable_http` or `sse`.
    pub transport: Transport,
    /// stdio: the program (found on the server's `PATH`).
    pub command: Option<String>,
    /// stdio: its arguments.
    pub args: Vec<String>,
    /// stdio: its whole environment besides `PATH` and `HOME`; values may name the server's
    /// variables as `$VAR` or `${VAR}`, expanded when connecting and never shown.
    pub env: BTreeMap<String, String>,
    /// HTTP: the endpoint.
    pub url: Option<String>,
    /// HTTP: headers sent with every request (values expanded like `env`).
    pub headers: BTreeMap<String, String>,
    /// Off: its tools are not offered and it is not started.
    pub enabled: bool,
    /// What it is for (shown in the UI).
    pub description: Option<String>,
    /// Connected at startup instead of on first use.
    pub eager: bool,
    /// stdio: started inside each thread's Docker sandbox instead of on the host.
    pub sandboxed: bool,
    /// Longest wait for the server to start and answer `initialize`.
    pub init_timeout_secs: u64,
    /// Longest wait for one tool call.
    pub call_timeout_secs: u64,
    /// Only these of its tools (MCP names); all when empty.
    pub allow_tools: Vec<String>,
    /// Never these of its tools.
    pub deny_tools: Vec<String>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            transport: Transport::Stdio,
            command: None,
            args: Vec::new(),
            env: BTreeMap::new(),
            url: None,
            headers: BTreeMap::new(),
            enabled: true,
            description: None,
            eager: false,
            sandboxed: false,
            init_timeout_secs: 30,
            call_timeout_secs: 120,
            allow_tools: Vec::new(),
            deny_tools: Vec::new(),
        }
    }
}

impl ServerConfig {
    /// Whether the server offers its tool `name` (MCP name).
    pub fn offers(&self, name: &str) -> bool {
        (self.allow_tools.is_empty() || self.allow_tools.iter().any(|t| t == name))
            && !self.deny_tools.iter().any(|t| t == name)
    }
}

/// `mcp.tool_search`: over these budgets, the model gets `tool_search` and the most
/// relevant MCP tools instead of all of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ToolSearchConfig {
    /// Defer tools at all.
    pub enabled: bool,
    /// Most MCP tools offered directly.
    pub max_tools: usize,
    /// Most characters of MCP tool definitions offered directly.
    pub max_chars: usize,
    /// Tools a search promotes into the next model calls.
    pub auto_promote_top_k: usize,
}

impl Default for ToolSearchConfig {
    fn default() -> Self {
        ToolSearchConfig {
            enabled: true,
            max_tools: 40,
            max_chars: 40_000,
            auto_promote_top_k: 5,
        }
    }
}

/// Checks a server's configuration; the error names the field.
pub fn check(name: &str, server: &ServerConfig) -> Result<(), String> {
    // `__` separates the server from the tool in model-facing names.
    let valid_name = !name.is_empty()
        && name.len() <= 32
        && !name.contains("__")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid_name {
        return Err(format!(
            "server name '{}' must be 1-32 letters, digits, '-' or '_' (not '__')",
            name.chars().take(40).collect::<String>()
        ));
    }
    match server.transport {
        Transport::Stdio => {
            if server
                .command
                .as_deref()
                .is_none_or(|c| c.trim().is_empty())
            {
                return Err(format!("mcp.servers.{name}.command is required for stdio"));
            }
        }
        Transport::StreamableHttp | Transport::Sse => {
            let url = server.url.as_deref().unwrap_or("");
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "mcp.servers.{name}.url must be an http:// or https:// URL"
                ));
            }
            if server.sandboxed {
                return Err(format!(
                    "mcp.servers.{name}.sandboxed applies to stdio servers only"
                ));
            }
        }
    }
    if server.init_timeout_secs == 0 || server.call_timeout_secs == 0 {
        return Err(format!(
            "mcp.servers.{name}: timeouts must be at least 1 second"
        ));
    }
    Ok(())
}
