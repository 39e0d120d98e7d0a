//! `web.*`: the search provider, fetch limits and which hosts the web tools may reach.

use serde::{Deserialize, Serialize};

/// Which search service `web_search` asks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchProvider {
    /// No search: `web_search` is not offered (the default).
    #[default]
    None,
    /// A SearXNG instance's JSON API (`web.search.base_url`, no key).
    Searxng,
    /// Tavily (`TAVILY_API_KEY`).
    Tavily,
    /// Brave Search (`BRAVE_SEARCH_API_KEY`).
    Brave,
    /// DuckDuckGo's HTML endpoint (no key).
    Duckduckgo,
}

impl SearchProvider {
    /// The setting's value.
    pub fn as_str(self) -> &'static str {
        match self {
            SearchProvider::None => "none",
            SearchProvider::Searxng => "searxng",
            SearchProvider::Tavily => "tavily",
            SearchProvider::Brave => "brave",
            SearchProvider::Duckduckgo => "duckduckgo",
        }
    }

    /// The environment variable holding its key, when it needs one.
    pub fn key_variable(self) -> Option<&'static str> {
        match self {
            SearchProvider::Tavily => Some("TAVILY_API_KEY"),
            SearchProvider::Brave => Some("BRAVE_SEARCH_API_KEY"),
            _ => None,
        }
    }
}

/// `web.search.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// none, searxng, tavily, brave or duckduckgo.
    pub provider: SearchProvider,
    /// The provider's endpoint: required for SearXNG (`https://searx.example.org`), optional
    /// for the others (their public API when empty).
    pub base_url: Option<String>,
    /// Results per search when the model asks for no number (it may ask for up to 20).
    pub max_results: usize,
    /// Longest a search may take.
    pub timeout_secs: u64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            provider: SearchProvider::None,
            base_url: None,
            max_results: 8,
            timeout_secs: 20,
        }
    }
}

/// `web.fetch.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FetchConfig {
    /// Whether `web_fetch` is offered.
    pub enabled: bool,
    /// Largest response body read; a longer one is cut there (and says so).
    pub max_bytes: u64,
    /// Longest a fetch may take, redirects included.
    pub timeout_secs: u64,
    /// Longest the connection to one address may take.
    pub connect_timeout_secs: u64,
    /// Redirects followed (each one checked like the first URL).
    pub max_redirects: u8,
    /// Characters of a page one call returns; the model asks for the rest by `offset`.
    pub page_chars: usize,
}

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            enabled: true,
            max_bytes: 5 * 1024 * 1024,
            timeout_secs: 30,
            connect_timeout_secs: 10,
            max_redirects: 5,
            page_chars: 20_000,
        }
    }
}

/// Everything the web tools are configured with.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WebToolsConfig {
    /// `web.search`.
    pub search: SearchConfig,
    /// `web.fetch`.
    pub fetch: FetchConfig,
    /// Loopback, private, link-local and other internal addresses are reachable (on-prem).
    pub allow_private_networks: bool,
    /// When not empty, the only hosts the web tools may reach.
    pub allowed_domains: Vec<String>,
    /// Hosts the web tools may never reach.
    pub blocked_domains: Vec<String>,
    /// Ports a URL may name (80 and 443 when empty).
    pub allowed_ports: Vec<u16>,
}
