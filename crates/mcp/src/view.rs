//! The configuration as the API shows it: variables and headers are never shown, only which
//! variables they name and whether they hold text of their own.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::env::{has_literal, variables};
use crate::{ServerConfig, Transport};

/// A value that may hold a secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HiddenValue {
    /// The variables it names (`$VAR`, `${VAR}`), expanded when the server starts.
    pub variables: Vec<String>,
    /// Whether it holds text besides them (shown to nobody).
    pub literal: bool,
}

impl HiddenValue {
    fn of(value: &str) -> Self {
        HiddenValue {
            variables: variables(value),
            literal: has_literal(value),
        }
    }
}

/// One server's configuration, secrets hidden.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ServerConfigView {
    /// `stdio`, `streamable_http` or `sse`.
    pub transport: Transport,
    /// stdio: the program.
    pub command: Option<String>,
    /// stdio: its arguments.
    pub args: Vec<String>,
    /// stdio: its environment, hidden.
    pub env: BTreeMap<String, HiddenValue>,
    /// HTTP: the endpoint.
    pub url: Option<String>,
    /// HTTP: headers, hidden.
    pub headers: BTreeMap<String, HiddenValue>,
    /// Whether it is used.
    pub enabled: bool,
    /// What it is for.
    pub description: Option<String>,
    /// Started at startup.
    pub eager: bool,
    /// Started in the thread's sandbox.
    pub sandboxed: bool,
    /// Seconds to start.
    pub init_timeout_secs: u64,
    /// Seconds per call.
    pub call_timeout_secs: u64,
    /// Only these tools.
    pub allow_tools: Vec<String>,
    /// Never these tools.
    pub deny_tools: Vec<String>,
}

impl From<&ServerConfig> for ServerConfigView {
    fn from(c: &ServerConfig) -> Self {
        let hide = |m: &BTreeMap<String, String>| {
            m.iter()
                .map(|(k, v)| (k.clone(), HiddenValue::of(v)))
                .collect()
        };
        ServerConfigView {
            transport: c.transport,
            command: c.command.clone(),
            args: c.args.clone(),
            env: hide(&c.env),
            url: c.url.clone(),
            headers: hide(&c.headers),
            enabled: c.enabled,
            description: c.description.clone(),
            eager: c.eager,
            sandboxed: c.sandboxed,
            init_timeout_secs: c.init_timeout_secs,
            call_timeout_secs: c.call_timeout_secs,
            allow_tools: c.allow_tools.clone(),
            deny_tools: c.deny_tools.clone(),
        }
    }
}

/// `GET /api/mcp/config`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct McpConfigView {
    /// The servers by name.
    pub servers: BTreeMap<String, ServerConfigView>,
}
