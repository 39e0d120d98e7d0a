//! Loading the configuration: defaults, then the file, then `ANTLER_…` variables, then checks.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;

use serde_yaml::Value;

use super::{Config, ConfigError};

/// The default config file, used when present and no `--config` is given.
pub const DEFAULT_CONFIG_FILE: &str = "config/antler.yaml";

/// Prefix of every environment override.
pub const ENV_PREFIX: &str = "ANTLER_";

impl Config {
    /// Loads defaults, then `file` (or [`DEFAULT_CONFIG_FILE`] when present), then the
    /// process environment.
    pub fn load(file: Option<&Path>) -> Result<Self, ConfigError> {
        let env: BTreeMap<String, String> = std::env::vars()
            .filter(|(k, _)| k.starts_with(ENV_PREFIX))
            .collect();
        let default_file = Path::new(DEFAULT_CONFIG_FILE);
        let file = match file {
            Some(f) => Some(f),
            None if default_file.is_file() => Some(default_file),
            None => None,
        };
        let text = match file {
            Some(path) => Some(std::fs::read_to_string(path).map_err(|e| {
                ConfigError::new(path.display().to_string(), format!("cannot read file: {e}"))
            })?),
            None => None,
        };
        let mut config = Self::from_sources(text.as_deref(), &env)?;
        // Absolute from here on: Docker bind mounts and slot symlinks need absolute paths,
        // and the paths must not change meaning if the working directory does.
        for (key, path) in [
            ("data_dir", &mut config.data_dir),
            ("skills_dir", &mut config.skills_dir),
        ] {
            *path = std::path::absolute(&*path)
                .map_err(|e| ConfigError::new(key, format!("cannot make it absolute: {e}")))?;
        }
        Ok(config)
    }

    /// Builds the configuration from YAML text and environment variables.
    pub fn from_sources(
        yaml: Option<&str>,
        env: &BTreeMap<String, String>,
    ) -> Result<Self, ConfigError> {
        let defaults = serde_yaml::to_value(Config::default())
            .map_err(|e| ConfigError::new("<defaults>", e.to_string()))?;
        let mut merged = defaults.clone();
        if let Some(text) = yaml.filter(|t| !t.trim().is_empty()) {
            let file: Value = serde_yaml::from_str(text)
                .map_err(|e| ConfigError::new(yaml_error_key(&e), e.to_string()))?;
            if !matches!(file, Value::Mapping(_) | Value::Null) {
                return Err(ConfigError::new(
                    "<file>",
                    "the configuration file must be a YAML mapping",
                ));
            }
            merge(&mut merged, file);
        }
        let mut sources = BTreeMap::new();
        apply_env(&defaults, &mut merged, &mut Vec::new(), env, &mut sources);
        let mut config: Config = serde_path_to_error::deserialize(merged).map_err(|e| {
            let key = e.path().to_string();
            let var = sources
                .get(&key)
                .map(|v| format!(" (from {v})"))
                .unwrap_or_default();
            ConfigError::new(key, format!("{}{var}", e.into_inner()))
        })?;
        antler_agent_runtime::config::apply_model_env(
            &mut config.models,
            env.get("ANTLER_MODEL_BASE_URL").cloned(),
            env.get("ANTLER_MODEL").cloned(),
        );
        config.sandbox.resolve_image();
        config.validate()?;
        Ok(config)
    }

    /// Checks values that parse but make no sense.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.bind.parse::<SocketAddr>().map_err(|_| {
            ConfigError::new(
                "bind",
                format!("'{}' is not an address like 127.0.0.1:8000", self.bind),
            )
        })?;
        if self.data_dir.as_os_str().is_empty() {
            return Err(ConfigError::new("data_dir", "must not be empty"));
        }
        if self.skills_dir.as_os_str().is_empty() {
            return Err(ConfigError::new("skills_dir", "must not be empty"));
        }
        self.usage
            .validate()
            .map_err(|m| ConfigError::new("usage.daily_cost_limit_usd", m))?;
        if self.memory.claim_timeout_secs == 0 {
            return Err(ConfigError::new(
                "memory.claim_timeout_secs",
                "must be at least 1 (a claim is renewed every third of it while it is worked on)",
            ));
        }
        for host in &self.http.allowed_hosts {
            if host.is_empty()
                || host.contains(['/', ' ', ':']) && host.parse::<std::net::IpAddr>().is_err()
            {
                return Err(ConfigError::new(
                    "http.allowed_hosts",
                    format!("'{host}' is not a host name (no scheme, port or path; `*` for any)"),
                ));
            }
        }
        for origin in &self.http.cors.allowed_origins {
            if super::origin_of(origin).as_deref() != Some(origin.trim_end_matches('/')) {
                return Err(ConfigError::new(
                    "http.cors.allowed_origins",
                    format!(
                        "'{origin}' is not an origin like https://app.example.com (scheme, host and port only, lower case)"
                    ),
                ));
            }
        }
        if self.auth.mode == antler_protocol::auth::AuthMode::None
            && !self.auth.allow_none_on_public_bind
            && !self
                .bind
                .parse::<SocketAddr>()
                .is_ok_and(|a| a.ip().is_loopback())
        {
            return Err(ConfigError::new(
                "auth.mode",
                format!(
                    "'none' lets anyone who reaches {} do everything; use it on a loopback address only, or set auth.allow_none_on_public_bind: true to accept that",
                    self.bind
                ),
            ));
        }
        if self.auth.session_days == 0 || self.auth.session_days > 3650 {
            return Err(ConfigError::new(
                "auth.session_days",
                "must be between 1 and 3650",
            ));
        }
        if self.auth.max_failed_logins == 0 {
            return Err(ConfigError::new(
                "auth.max_failed_logins",
                "must be at least 1",
            ));
        }
        if self.database.max_connections == 0 {
            return Err(ConfigError::new(
                "database.max_connections",
                "must be at least 1",
            ));
        }
        if let Some(url) = self.database.url.as_deref() {
            antler_store::Location::resolve(Some(url), &self.data_dir)
                .map_err(|e| ConfigError::new("database.url", e.to_string()))?;
        }
        if self.http.max_body_bytes < 1024 {
            return Err(ConfigError::new(
                "http.max_body_bytes",
                "must be at least 1024",
            ));
        }
        if !(1..=16).contains(&self.skills.max_depth) {
            return Err(ConfigError::new(
                "skills.max_depth",
                "must be between 1 and 16",
            ));
        }
        if self.skills.max_dirs == 0 {
            return Err(ConfigError::new("skills.max_dirs", "must be at least 1"));
        }
        if self.uploads.max_files == 0 {
            return Err(ConfigError::new("uploads.max_files", "must be at least 1"));
        }
        for (name, server) in &self.mcp.servers {
            antler_mcp::config::check(name, server)
                .map_err(|why| ConfigError::new("mcp.servers", why))?;
        }
        let at_least_one = [
            ("uploads.max_file_bytes", self.uploads.max_file_bytes),
            ("uploads.max_request_bytes", self.uploads.max_request_bytes),
            ("threads.history_max_bytes", self.threads.history_max_bytes),
            (
                "threads.sweep_temporary_after_secs",
                self.threads.sweep_temporary_after_secs,
            ),
            (
                "skills.install.max_entries",
                self.skills.install.max_entries as u64,
            ),
            (
                "skills.install.max_total_bytes",
                self.skills.install.max_total_bytes,
            ),
            (
                "skills.install.max_file_bytes",
                self.skills.install.max_file_bytes,
            ),
            ("skills.install.max_ratio", self.skills.install.max_ratio),
            (
                "skills.import.max_repo_bytes",
                self.skills.import.max_repo_bytes,
            ),
            (
                "skills.import.timeout_secs",
                self.skills.import.timeout_secs,
            ),
        ];
        if let Some((key, _)) = at_least_one.iter().find(|(_, v)| *v == 0) {
            return Err(ConfigError::new(*key, "must be at least 1"));
        }
        if self.skills.prompt_budget_chars < 500 {
            return Err(ConfigError::new(
                "skills.prompt_budget_chars",
                "must be at least 500",
            ));
        }
        self.sandbox
            .validate()
            .map_err(|(key, message)| ConfigError::new(key, message))?;
        if let Err(e) = antler_agent_runtime::tools::web::Web::check(&self.web.tools()) {
            let (key, message) = e.split_once(": ").unwrap_or(("web", e.as_str()));
            return Err(ConfigError::new(key, message));
        }
        self.agent
            .validate(&self.models)
            .map_err(|(key, message)| ConfigError::new(key, message))?;
        tracing_filter_check(&self.log.level).map_err(|m| ConfigError::new("log.level", m))?;
        let telemetry = &self.telemetry;
        if let Some(endpoint) = &telemetry.otlp.endpoint
            && !url::Url::parse(endpoint).is_ok_and(|u| matches!(u.scheme(), "http" | "https"))
        {
            return Err(ConfigError::new(
                "telemetry.otlp.endpoint",
                "must be an http:// or https:// URL such as http://localhost:4318",
            ));
        }
        if let Some(bind) = &telemetry.metrics.bind
            && bind.parse::<std::net::SocketAddr>().is_err()
        {
            return Err(ConfigError::new(
                "telemetry.metrics.bind",
                "must be an address and port such as 127.0.0.1:9464",
            ));
        }
        Ok(())
    }

    /// Where the database lives.
    pub fn database_location(&self) -> Result<antler_store::Location, ConfigError> {
        antler_store::Location::resolve(self.database.url.as_deref(), &self.data_dir)
            .map_err(|e| ConfigError::new("database.url", e.to_string()))
    }
}

fn tracing_filter_check(level: &str) -> Result<(), String> {
    if level.trim().is_empty() {
        return Err("must not be empty".into());
    }
    Ok(())
}

fn yaml_error_key(e: &serde_yaml::Error) -> String {
    match e.location() {
        Some(l) => format!("<file line {}>", l.line()),
        None => "<file>".into(),
    }
}

/// Overlays `overlay` onto `base`, mapping by mapping.
fn merge(base: &mut Value, overlay: Value) {
    match (base, overlay) {
        (Value::Mapping(base), Value::Mapping(overlay)) => {
            for (k, v) in overlay {
                match base.get_mut(&k) {
                    Some(existing) => merge(existing, v),
                    None => {
                        base.insert(k, v);
                    }
                }
            }
        }
        (base, overlay) => *base = overlay,
    }
}

/// Reads an environment value in the type of the key's default. Keys whose default is
/// `null` are all optional strings, so `ANTLER_SANDBOX_DOCKER_USER=1000` stays `"1000"`
/// rather than becoming a number the string field would refuse.
fn env_value(default: &Value, raw: &str) -> Value {
    match default {
        Value::String(_) => Value::String(raw.to_string()),
        Value::Null => match raw.trim() {
            "" | "null" | "~" => Value::Null,
            _ => Value::String(raw.to_string()),
        },
        // A list is YAML (`[a, b]`, a block list) or `a,b` (numbers stay numbers in a list of
        // numbers, such as `web.allowed_ports`).
        Value::Sequence(items) => match serde_yaml::from_str(raw) {
            Ok(list @ Value::Sequence(_)) => list,
            _ => Value::Sequence(
                raw.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| match items.first() {
                        Some(Value::Number(_)) => {
                            serde_yaml::from_str(s).unwrap_or_else(|_| Value::String(s.to_string()))
                        }
                        _ => Value::String(s.to_string()),
                    })
                    .collect(),
            ),
        },
        _ => serde_yaml::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string())),
    }
}

/// Walks the known keys (from the defaults) and applies matching environment variables.
fn apply_env(
    defaults: &Value,
    target: &mut Value,
    path: &mut Vec<String>,
    env: &BTreeMap<String, String>,
    sources: &mut BTreeMap<String, String>,
) {
    if let Value::Mapping(map) = defaults {
        for (k, default_child) in map {
            let Some(key) = k.as_str() else { continue };
            path.push(key.to_string());
            // An empty map by default is a free-form one (`mcp.servers`): one variable, YAML.
            if let Value::Mapping(m) = default_child
                && !m.is_empty()
            {
                if let Some(child) = target.get_mut(key) {
                    apply_env(default_child, child, path, env, sources);
                }
            } else {
                let var = format!("{ENV_PREFIX}{}", path.join("_").to_uppercase());
                if let Some(raw) = env.get(&var) {
                    let value = env_value(default_child, raw);
                    if let Value::Mapping(m) = target {
                        m.insert(Value::String(key.to_string()), value);
                    }
                    sources.insert(path.join("."), var);
                }
            }
            path.pop();
        }
    }
}

#[cfg(test)]
mod tests;
