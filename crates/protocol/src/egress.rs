//! Network egress of sandboxes: the policy and what a command connected to.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How a sandbox reaches the network (`sandbox.network`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum NetworkMode {
    /// No network at all (the default).
    #[default]
    None,
    /// Only the hosts of the allow-list, through the server's egress proxy; every
    /// connection is logged.
    Allowlist,
    /// Docker's network, unfiltered and unlogged.
    Open,
}

impl NetworkMode {
    /// The setting's value.
    pub fn as_str(self) -> &'static str {
        match self {
            NetworkMode::None => "none",
            NetworkMode::Allowlist => "allowlist",
            NetworkMode::Open => "open",
        }
    }
}

/// A custom agent's network policy, set by an admin; what it leaves out comes from the
/// server's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentNetwork {
    /// The mode for this agent's threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<NetworkMode>,
    /// Its allow-list, instead of `sandbox.egress.allowed_domains`: `example.com`,
    /// `*.example.com`, `host:8443`, an IP or CIDR (needed for private addresses), or a
    /// preset (`@packages`: PyPI and npm; `@github`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_domains: Option<Vec<String>>,
}

/// One connection a sandbox opened through the egress proxy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct NetworkConnection {
    /// The host asked for (a name or an IP literal).
    pub host: String,
    /// The port asked for.
    pub port: u16,
    /// `connect` (a tunnel, e.g. HTTPS) or the method of a plain HTTP request.
    pub method: String,
    /// Whether the policy let it through (a failed connect after that still counts as
    /// allowed, with `error`).
    pub allowed: bool,
    /// Why it was refused, or why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The address it was made to, once checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Bytes from the sandbox to the host.
    pub bytes_sent: u64,
    /// Bytes from the host to the sandbox.
    pub bytes_received: u64,
    /// How long it was open, in milliseconds.
    pub duration_ms: u64,
}
