//! The web tools (`web_search`, `web_fetch`): a custom agent's web settings and the sources
//! a run read.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A custom agent's web settings, set by an admin: they narrow the server's `web.*`, never
/// widen them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentWeb {
    /// `false` takes `web_search` and `web_fetch` away from the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// When given, the only hosts its web tools may reach: `example.com`, `*.example.com`,
    /// an IP or CIDR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_domains: Option<Vec<String>>,
    /// Hosts its web tools may not reach, besides the server's `web.blocked_domains`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_domains: Option<Vec<String>>,
}

/// How a run came upon a source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// A search result.
    Search,
    /// A page the agent read.
    Fetch,
}

/// A web page a run searched up or read; the model cites it as `[index]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WebSource {
    /// Its number in the run (from 1), as the answer cites it.
    pub index: u32,
    /// The page.
    pub url: String,
    /// Its title (the host when it has none).
    pub title: String,
    /// The host, for display.
    pub domain: String,
    /// `fetch` once the agent read it, `search` while it was only a result.
    pub kind: SourceKind,
}
