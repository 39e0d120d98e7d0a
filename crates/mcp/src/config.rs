//! How MCP servers are configured (`mcp.servers` in the YAML, then in the database): the
//! `mcp` section and the checks of a server. A server's fields are a wire type
//! ([`antler_protocol::mcp::ServerConfig`]): the API receives them too.

use std::collections::BTreeMap;

pub use antler_protocol::mcp::{ServerConfig, Transport};
use serde::{Deserialize, Serialize};

/// `mcp` in the configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct McpConfig {
    /// The servers by name (letters, digits, `-` and `_`). The YAML seeds the database the
    /// first time; afterwards admins change them through the API.
    pub servers: BTreeMap<String, ServerConfig>,
    /// When MCP tools are too many for every model call.
    pub tool_search: ToolSearchConfig,
}

/// `mcp.tool_search`: over these budgets, the model gets `tool_search` and the most
/// relevant MCP tools instead of all of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
