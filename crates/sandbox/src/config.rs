//! `sandbox.*` configuration (embedded in the server's configuration file).

use antler_protocol::egress::{AgentNetwork, NetworkMode};
use serde::{Deserialize, Serialize};

use crate::egress::Rules;

/// Which provider runs commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Docker when the daemon answers and the image exists, otherwise local (with a warning).
    Auto,
    /// Always Docker; startup fails when it is not available.
    Docker,
    /// Host directories; commands only with `allow_host_bash`.
    Local,
}

/// The image used when none is configured: the one with what public skills' scripts need.
pub const DEFAULT_IMAGE: &str = "antler-sandbox:full";

/// What a server uses when [`DEFAULT_IMAGE`] was never built (`make test` builds only this).
pub const FALLBACK_IMAGE: &str = "antler-sandbox:slim";

/// `sandbox.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SandboxConfig {
    /// `auto`, `docker` or `local`.
    pub provider: ProviderKind,
    /// Image of the sandbox containers (`sandbox.docker.image` wins when both are set).
    pub image: String,
    /// Local provider only: run commands on the host (unsafe; off by default).
    pub allow_host_bash: bool,
    /// Longest a single command may run, in seconds.
    pub command_timeout_secs: u64,
    /// Output kept per stream (stdout, stderr), in bytes; the middle of longer output is cut.
    pub max_output_bytes: usize,
    /// This server's id in container labels; empty means one generated and kept in the data
    /// dir. Replicas sharing a data dir must set distinct ids.
    pub instance_id: Option<String>,
    /// How sandboxes reach the network: `none` (default), `allowlist` (through the egress
    /// proxy, `egress.allowed_domains` only) or `open`.
    pub network: NetworkMode,
    /// The egress proxy's allow-list.
    pub egress: EgressConfig,
    /// Docker provider settings.
    pub docker: DockerConfig,
}

/// `sandbox.egress.*`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EgressConfig {
    /// Hosts `allowlist` sandboxes may reach: `example.com`, `*.example.com`, `host:port`
    /// (an entry without a port allows 80 and 443), an IP or CIDR (private addresses are
    /// refused unless listed so), or a preset: `@packages` (PyPI, npm), `@github`.
    pub allowed_domains: Vec<String>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            provider: ProviderKind::Auto,
            image: DEFAULT_IMAGE.into(),
            allow_host_bash: false,
            command_timeout_secs: 600,
            max_output_bytes: 32 * 1024,
            instance_id: None,
            network: NetworkMode::None,
            egress: EgressConfig::default(),
            docker: DockerConfig::default(),
        }
    }
}

/// `sandbox.docker.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DockerConfig {
    /// Engine address (`unix:///var/run/docker.sock`, `tcp://…`); empty uses `DOCKER_HOST` or
    /// the local socket.
    pub host: Option<String>,
    /// OCI runtime, e.g. `runsc` for gVisor; empty uses the engine's default.
    pub runtime: Option<String>,
    /// Image of the sandbox containers; overrides `sandbox.image` (the older key).
    pub image: Option<String>,
    /// The Docker network of `open` sandboxes (`none`, the default, means `bridge`). Set to
    /// another name with `sandbox.network` left at `none`, it means `open` (the older form).
    pub network: String,
    /// Memory limit per container, MiB (swap is not allowed on top).
    pub memory_mb: u64,
    /// CPU limit per container, in CPUs.
    pub cpus: f64,
    /// Most processes per container (fork bombs stop here).
    pub pids_limit: i64,
    /// Size of the writable `/tmp`, MiB.
    pub tmp_size_mb: u64,
    /// `uid:gid` commands run as; empty means 1000:1000 when the server runs as root, else
    /// the server's own uid and gid (so both can manage the thread's files).
    pub user: Option<String>,
    /// Started containers kept ready for new threads.
    pub warm_pool: usize,
    /// Most containers at once (warm ones included); further acquirers wait.
    pub max_containers: usize,
    /// How long an acquirer waits for a free slot, seconds.
    pub acquire_timeout_secs: u64,
    /// Containers unused this long are removed (never while a command runs), seconds.
    pub idle_timeout_secs: u64,
    /// How often the idle reaper looks, seconds.
    pub reap_interval_secs: u64,
    /// Bound on removing every container at shutdown, seconds.
    pub shutdown_timeout_secs: u64,
}

impl Default for DockerConfig {
    fn default() -> Self {
        DockerConfig {
            host: None,
            runtime: None,
            image: None,
            network: "none".into(),
            memory_mb: 1024,
            cpus: 1.0,
            pids_limit: 256,
            tmp_size_mb: 256,
            user: None,
            warm_pool: 1,
            max_containers: 16,
            acquire_timeout_secs: 30,
            idle_timeout_secs: 900,
            reap_interval_secs: 30,
            shutdown_timeout_secs: 20,
        }
    }
}

impl SandboxConfig {
    /// Folds `sandbox.docker.image` into [`SandboxConfig::image`], the one field the
    /// providers read.
    pub fn resolve_image(&mut self) {
        if let Some(image) = self.docker.image.take().filter(|i| !i.trim().is_empty()) {
            self.image = image;
        }
    }

    /// Whether the image is the built-in default (a missing one may fall back to slim).
    pub fn image_is_default(&self) -> bool {
        self.image == DEFAULT_IMAGE
    }

    /// The server's network mode (a `docker.network` name without `network` is `open`).
    pub fn network_mode(&self) -> NetworkMode {
        if self.network == NetworkMode::None && self.docker.network != "none" {
            NetworkMode::Open
        } else {
            self.network
        }
    }

    /// The Docker network `open` sandboxes join.
    pub fn open_network(&self) -> &str {
        match self.docker.network.as_str() {
            "none" | "" => "bridge",
            name => name,
        }
    }

    /// The mode and rules of a sandbox whose agent may override the server's.
    pub fn rules_for(&self, agent: Option<&AgentNetwork>) -> Result<Rules, String> {
        let mode = agent
            .and_then(|a| a.mode)
            .unwrap_or_else(|| self.network_mode());
        let entries = agent
            .and_then(|a| a.allowed_domains.as_deref())
            .unwrap_or(&self.egress.allowed_domains);
        Rules::parse(mode, entries).map_err(|(i, m)| format!("allowed_domains[{i}]: {m}"))
    }

    /// Checks values that parse but make no sense; returns (key, message).
    pub fn validate(&self) -> Result<(), (String, String)> {
        let bad = |k: &str, m: &str| Err((format!("sandbox.{k}"), m.to_string()));
        if self.image.trim().is_empty() {
            return bad("image", "must not be empty");
        }
        if self.command_timeout_secs == 0 {
            return bad("command_timeout_secs", "must be at least 1");
        }
        if self.max_output_bytes < 256 {
            return bad("max_output_bytes", "must be at least 256");
        }
        if let Some(id) = self.instance_id.as_deref().map(str::trim)
            && !id.is_empty()
            && !crate::instance::is_plain_id(id)
        {
            return bad("instance_id", crate::instance::PLAIN_ID);
        }
        if let Err((i, m)) = Rules::parse(self.network, &self.egress.allowed_domains) {
            return bad(&format!("egress.allowed_domains[{i}]"), &m);
        }
        let d = &self.docker;
        if d.memory_mb < 16 {
            return bad("docker.memory_mb", "must be at least 16");
        }
        if d.cpus.is_nan() || d.cpus <= 0.0 {
            return bad("docker.cpus", "must be greater than 0");
        }
        if d.pids_limit < 8 {
            return bad("docker.pids_limit", "must be at least 8");
        }
        if d.max_containers == 0 {
            return bad("docker.max_containers", "must be at least 1");
        }
        if d.warm_pool > d.max_containers {
            return bad("docker.warm_pool", "must not exceed docker.max_containers");
        }
        if let Some(user) = &d.user
            && parse_user(user).is_none()
        {
            return bad("docker.user", "must be uid:gid, e.g. 1000:1000");
        }
        Ok(())
    }
}

/// Parses `uid:gid`.
pub fn parse_user(s: &str) -> Option<(u32, u32)> {
    let (u, g) = s.split_once(':')?;
    Some((u.trim().parse().ok()?, g.trim().parse().ok()?))
}
