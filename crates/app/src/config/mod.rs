//! Configuration: one YAML file, every key overridable by an `ANTLER_…` environment variable.
//!
//! Loading order: built-in defaults, then the file, then the environment. The variable for a
//! key is `ANTLER_` plus its path in upper case joined by `_` (`database.url` →
//! `ANTLER_DATABASE_URL`). Names are derived from the known keys, so keys containing `_`
//! (`data_dir` → `ANTLER_DATA_DIR`) are unambiguous.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

mod load;
mod telemetry;

pub use load::{DEFAULT_CONFIG_FILE, ENV_PREFIX};
pub use telemetry::{MetricsConfig, OtlpConfig, TelemetryConfig};

/// The whole configuration. `config/antler.example.yaml` documents every key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Address the HTTP server listens on (`host:port`; port 0 picks a free one).
    pub bind: String,
    /// Where the database, thread files and other state live.
    pub data_dir: PathBuf,
    /// Holds `public/` (built-in skills) and `custom/` (installed skills).
    pub skills_dir: PathBuf,
    /// Database connection.
    pub database: DatabaseConfig,
    /// HTTP limits.
    pub http: HttpConfig,
    /// Accounts and sign-in.
    pub auth: AuthConfig,
    /// Skills catalog behaviour.
    pub skills: SkillsConfig,
    /// Limits on files uploaded into threads.
    pub uploads: UploadsConfig,
    /// Limits on what conversations store.
    pub threads: ThreadsConfig,
    /// Where the agent's commands run.
    pub sandbox: antler_sandbox::config::SandboxConfig,
    /// OpenAI-compatible model endpoints (the first is the default).
    pub models: Vec<antler_agent_runtime::config::ModelConfig>,
    /// Agent loop and run limits.
    pub agent: antler_agent_runtime::config::AgentConfig,
    /// Model Context Protocol servers whose tools the agent may call.
    pub mcp: antler_mcp::McpConfig,
    /// What the agent remembers about each person.
    pub memory: crate::memory::MemoryConfig,
    /// The cron scheduler.
    pub crons: crate::crons::CronsConfig,
    /// Daily limits on model usage.
    pub usage: crate::usage::UsageConfig,
    /// The web UI.
    pub web: WebConfig,
    /// Logging.
    pub log: LogConfig,
    /// Traces and metrics.
    pub telemetry: TelemetryConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bind: "127.0.0.1:8000".into(),
            data_dir: "./data".into(),
            skills_dir: "./skills".into(),
            database: DatabaseConfig::default(),
            http: HttpConfig::default(),
            auth: AuthConfig::default(),
            skills: SkillsConfig::default(),
            uploads: UploadsConfig::default(),
            threads: ThreadsConfig::default(),
            sandbox: antler_sandbox::config::SandboxConfig::default(),
            models: Vec::new(),
            agent: antler_agent_runtime::config::AgentConfig::default(),
            mcp: antler_mcp::McpConfig::default(),
            memory: crate::memory::MemoryConfig::default(),
            crons: crate::crons::CronsConfig::default(),
            usage: crate::usage::UsageConfig::default(),
            web: WebConfig::default(),
            log: LogConfig::default(),
            telemetry: TelemetryConfig::default(),
        }
    }
}

/// `database.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DatabaseConfig {
    /// `sqlite:/path/file.db`; empty means `<data_dir>/antler.db`.
    pub url: Option<String>,
    /// Connections in the pool.
    pub max_connections: u32,
}

impl Default for DatabaseConfig {
    fn default() -> Self {
        DatabaseConfig {
            url: None,
            max_connections: 4,
        }
    }
}

/// `http.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    /// Largest JSON request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Host names served besides IP addresses and `localhost` (DNS-rebinding defence: a
    /// request naming another host is refused). `*` serves any host.
    pub allowed_hosts: Vec<String>,
    /// Cross-origin access.
    pub cors: CorsConfig,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            max_body_bytes: 1024 * 1024,
            allowed_hosts: Vec::new(),
            cors: CorsConfig::default(),
        }
    }
}

/// `auth.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuthConfig {
    /// `password` (accounts, sessions, tokens; the default) or `none` (every request is the
    /// single local user's; only on a loopback address unless `allow_none_on_public_bind`).
    pub mode: antler_protocol::auth::AuthMode,
    /// Lets `mode: none` serve a non-loopback address: anyone who reaches the port can do
    /// everything.
    pub allow_none_on_public_bind: bool,
    /// Days a browser session lasts.
    pub session_days: u32,
    /// Failed sign-ins allowed per account, and (four times as many) per client address,
    /// in `throttle_window_secs` before further attempts get 429.
    pub max_failed_logins: u32,
    /// The window of `max_failed_logins`, in seconds.
    pub throttle_window_secs: u64,
    /// Addresses of reverse proxies whose `X-Forwarded-For` / `X-Forwarded-Proto` are
    /// believed (for throttling by client address and for `Secure` cookies).
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Always mark cookies `Secure` (otherwise only when the request came over HTTPS).
    pub secure_cookies: bool,
}

impl Default for AuthConfig {
    fn default() -> Self {
        AuthConfig {
            mode: antler_protocol::auth::AuthMode::Password,
            allow_none_on_public_bind: false,
            session_days: 30,
            max_failed_logins: 5,
            throttle_window_secs: 900,
            trusted_proxies: Vec::new(),
            secure_cookies: false,
        }
    }
}

/// `http.cors.*`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CorsConfig {
    /// Origins (`https://app.example.com`) other than the server's own that may call the API
    /// from a browser: they get CORS headers and may send unsafe requests. Empty by default.
    pub allowed_origins: Vec<String>,
}

/// `skills.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SkillsConfig {
    /// Rescan automatically when files under the skills dir change.
    pub watch: bool,
    /// Quiet time before a change triggers a rescan, in milliseconds.
    pub watch_debounce_ms: u64,
    /// Character budget of the skills section in the system prompt.
    pub prompt_budget_chars: usize,
    /// Deepest nesting level of a skill below its category directory.
    pub max_depth: usize,
    /// Directories scanned per category before stopping with a warning.
    pub max_dirs: usize,
    /// Limits applied to `.skill` archives.
    pub install: InstallConfig,
    /// Limits applied to imports from Git.
    pub import: ImportConfig,
}

impl Default for SkillsConfig {
    fn default() -> Self {
        let limits = antler_skills::ScanLimits::default();
        SkillsConfig {
            watch: true,
            watch_debounce_ms: 300,
            prompt_budget_chars: antler_skills::prompt::DEFAULT_BUDGET,
            max_depth: limits.max_depth,
            max_dirs: limits.max_dirs,
            install: InstallConfig::default(),
            import: ImportConfig::default(),
        }
    }
}

/// `skills.import.*`: bounds on fetching a repository to import skills from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImportConfig {
    /// Most bytes a fetched repository may take on disk (history and files).
    pub max_repo_bytes: u64,
    /// Longest a fetch may take, in seconds.
    pub timeout_secs: u64,
    /// Folders of this server admins may import `file://` repositories from through the
    /// API; empty (the default): the API refuses `file://`. The command line reads any path.
    pub allowed_file_roots: Vec<PathBuf>,
}

impl Default for ImportConfig {
    fn default() -> Self {
        let limits = antler_skills::import::ImportLimits::default();
        ImportConfig {
            max_repo_bytes: limits.max_repo_bytes,
            timeout_secs: limits.timeout.as_secs(),
            allowed_file_roots: Vec::new(),
        }
    }
}

impl ImportConfig {
    /// The fetch limits these settings describe.
    pub fn limits(&self) -> antler_skills::import::ImportLimits {
        antler_skills::import::ImportLimits {
            max_repo_bytes: self.max_repo_bytes,
            timeout: std::time::Duration::from_secs(self.timeout_secs),
        }
    }
}

/// `skills.install.*`: what a `.skill` archive may contain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InstallConfig {
    /// Most entries in an archive.
    pub max_entries: usize,
    /// Most bytes after decompression (declared or actual).
    pub max_total_bytes: u64,
    /// Most bytes of one member.
    pub max_file_bytes: u64,
    /// Largest compression ratio for members over 1 MiB.
    pub max_ratio: u64,
    /// Largest archive accepted by `POST /api/skills/upload`.
    pub max_upload_bytes: u64,
}

impl Default for InstallConfig {
    fn default() -> Self {
        let limits = antler_skills::archive::ArchiveLimits::default();
        InstallConfig {
            max_entries: limits.max_entries,
            max_total_bytes: limits.max_total_bytes,
            max_file_bytes: limits.max_file_bytes,
            max_ratio: limits.max_ratio,
            max_upload_bytes: 100 * 1024 * 1024,
        }
    }
}

impl InstallConfig {
    /// The archive limits these settings describe.
    pub fn limits(&self) -> antler_skills::archive::ArchiveLimits {
        antler_skills::archive::ArchiveLimits {
            max_entries: self.max_entries,
            max_total_bytes: self.max_total_bytes,
            max_file_bytes: self.max_file_bytes,
            max_ratio: self.max_ratio,
            ..Default::default()
        }
    }
}

/// `web.*`: the web UI, and the agent's web tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WebConfig {
    /// The built web UI (`index.html` and assets), served at `/`; unknown paths outside
    /// `/api` get `index.html` so client-side routes work. Missing: no UI is served.
    pub dir: PathBuf,
    /// `web_search`'s provider.
    pub search: antler_agent_runtime::tools::web::SearchConfig,
    /// `web_fetch`'s limits.
    pub fetch: antler_agent_runtime::tools::web::FetchConfig,
    /// The web tools may reach loopback, private, link-local and other internal addresses
    /// (on-prem use); off, they are refused.
    pub allow_private_networks: bool,
    /// When not empty, the only hosts the web tools may reach.
    pub allowed_domains: Vec<String>,
    /// Hosts the web tools may never reach.
    pub blocked_domains: Vec<String>,
    /// Ports a URL may name.
    pub allowed_ports: Vec<u16>,
}

impl Default for WebConfig {
    fn default() -> Self {
        WebConfig {
            dir: "frontend/dist".into(),
            search: Default::default(),
            fetch: Default::default(),
            allow_private_networks: false,
            allowed_domains: Vec::new(),
            blocked_domains: Vec::new(),
            allowed_ports: antler_sandbox::egress::policy::WEB_PORTS.to_vec(),
        }
    }
}

impl WebConfig {
    /// The web tools' part.
    pub fn tools(&self) -> antler_agent_runtime::tools::web::WebToolsConfig {
        antler_agent_runtime::tools::web::WebToolsConfig {
            search: self.search.clone(),
            fetch: self.fetch.clone(),
            allow_private_networks: self.allow_private_networks,
            allowed_domains: self.allowed_domains.clone(),
            blocked_domains: self.blocked_domains.clone(),
            allowed_ports: self.allowed_ports.clone(),
        }
    }
}

/// `uploads.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UploadsConfig {
    /// Most files in one request.
    pub max_files: usize,
    /// Largest single file, in bytes.
    pub max_file_bytes: u64,
    /// Largest request, in bytes.
    pub max_request_bytes: u64,
}

impl Default for UploadsConfig {
    fn default() -> Self {
        UploadsConfig {
            max_files: 10,
            max_file_bytes: 50 * 1024 * 1024,
            max_request_bytes: 100 * 1024 * 1024,
        }
    }
}

/// `threads.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ThreadsConfig {
    /// Bytes one person's conversations may keep in the database (states, checkpoints and
    /// their messages, run events); a run or state update past it is refused. 0: no limit.
    pub max_stored_bytes_per_user: u64,
    /// Most bytes of states one history request answers (at least one state is always
    /// answered; clients page on with `before`).
    pub history_max_bytes: u64,
    /// A stateless run's thread left behind (a crash, a failed cleanup) is deleted once it
    /// is this old and its runs are over; the sweep runs this often too.
    pub sweep_temporary_after_secs: u64,
}

impl Default for ThreadsConfig {
    fn default() -> Self {
        ThreadsConfig {
            max_stored_bytes_per_user: 1024 * 1024 * 1024,
            history_max_bytes: 8 * 1024 * 1024,
            sweep_temporary_after_secs: 60,
        }
    }
}

impl SkillsConfig {
    /// The scan limits these settings describe.
    pub fn limits(&self) -> antler_skills::ScanLimits {
        antler_skills::ScanLimits {
            max_depth: self.max_depth,
            max_dirs: self.max_dirs,
            ..Default::default()
        }
    }
}

/// `log.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogConfig {
    /// A `tracing` filter such as `info` or `antler_gateway=debug,info`.
    pub level: String,
    /// `text` for people, `json` for log collectors.
    pub format: LogFormat,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            level: "info".into(),
            format: LogFormat::Text,
        }
    }
}

/// Log line format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// A configuration problem, naming the key (and the variable or file it came from).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid configuration: {key}: {message}")]
pub struct ConfigError {
    /// Dotted key path, or the file when the file itself is unreadable.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl ConfigError {
    pub(crate) fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// The origin (`scheme://host[:port]`, lower case, default port left out) of a URL, or
/// `None` when it has none (`null`, `file:`, not a URL).
pub fn origin_of(url: &str) -> Option<String> {
    let origin = url::Url::parse(url).ok()?.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}
