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
        let at_least_one = [
            ("uploads.max_file_bytes", self.uploads.max_file_bytes),
            ("uploads.max_request_bytes", self.uploads.max_request_bytes),
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
        self.agent
            .validate(&self.models)
            .map_err(|(key, message)| ConfigError::new(key, message))?;
        tracing_filter_check(&self.log.level).map_err(|m| ConfigError::new("log.level", m))?;
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
        // A list is YAML (`[a, b]`, a block list) or, for lists of names, `a,b`.
        Value::Sequence(_) => match serde_yaml::from_str(raw) {
            Ok(list @ Value::Sequence(_)) => list,
            _ => Value::Sequence(
                raw.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| Value::String(s.to_string()))
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
            if let Value::Mapping(_) = default_child {
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
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_apply_without_file_or_environment() {
        let c = Config::from_sources(None, &env(&[])).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.bind, "127.0.0.1:8000");
        assert_eq!(c.data_dir, PathBuf::from("./data"));
        assert_eq!(c.skills_dir, PathBuf::from("./skills"));
    }

    #[test]
    fn the_file_overrides_defaults_and_the_environment_overrides_the_file() {
        let yaml = "bind: 0.0.0.0:9000\ndatabase:\n  max_connections: 8\nskills:\n  watch: false\n";
        let c = Config::from_sources(
            Some(yaml),
            &env(&[
                ("ANTLER_BIND", "127.0.0.1:0"),
                ("ANTLER_DATA_DIR", "/tmp/d"),
                ("ANTLER_SKILLS_DIR", "/tmp/s"),
                ("ANTLER_DATABASE_URL", "sqlite:/tmp/x.db"),
                ("ANTLER_SKILLS_WATCH_DEBOUNCE_MS", "50"),
            ]),
        )
        .unwrap();
        assert_eq!(c.bind, "127.0.0.1:0");
        assert_eq!(c.data_dir, PathBuf::from("/tmp/d"));
        assert_eq!(c.skills_dir, PathBuf::from("/tmp/s"));
        assert_eq!(c.database.url.as_deref(), Some("sqlite:/tmp/x.db"));
        assert_eq!(c.database.max_connections, 8);
        assert!(!c.skills.watch);
        assert_eq!(c.skills.watch_debounce_ms, 50);
    }

    #[test]
    fn list_variables_take_commas_flow_lists_and_block_lists() {
        for (raw, hosts) in [
            ("a.example, b.example", vec!["a.example", "b.example"]),
            ("a.example", vec!["a.example"]),
            ("[a.example, b.example]", vec!["a.example", "b.example"]),
            ("- a.example\n- b.example\n", vec!["a.example", "b.example"]),
            ("", vec![]),
        ] {
            let c =
                Config::from_sources(None, &env(&[("ANTLER_HTTP_ALLOWED_HOSTS", raw)])).unwrap();
            assert_eq!(c.http.allowed_hosts, hosts, "{raw:?}");
        }
        for (var, raw, key) in [
            (
                "ANTLER_HTTP_ALLOWED_HOSTS",
                "https://a.example",
                "http.allowed_hosts",
            ),
            (
                "ANTLER_HTTP_ALLOWED_HOSTS",
                "a.example:8000",
                "http.allowed_hosts",
            ),
            (
                "ANTLER_HTTP_CORS_ALLOWED_ORIGINS",
                "ui.example",
                "http.cors.allowed_origins",
            ),
            (
                "ANTLER_HTTP_CORS_ALLOWED_ORIGINS",
                "https://ui.example/app",
                "http.cors.allowed_origins",
            ),
            (
                "ANTLER_HTTP_CORS_ALLOWED_ORIGINS",
                "HTTPS://UI.example",
                "http.cors.allowed_origins",
            ),
        ] {
            let err = Config::from_sources(None, &env(&[(var, raw)])).unwrap_err();
            assert_eq!(err.key, key, "{raw:?}");
        }
        let c = Config::from_sources(
            None,
            &env(&[(
                "ANTLER_HTTP_CORS_ALLOWED_ORIGINS",
                "https://ui.example, http://localhost:3000/",
            )]),
        )
        .unwrap();
        assert_eq!(
            c.http.cors.allowed_origins,
            ["https://ui.example", "http://localhost:3000/"]
        );
    }

    #[test]
    fn errors_name_the_key() {
        let err = Config::from_sources(Some("bind: nonsense\n"), &env(&[])).unwrap_err();
        assert_eq!(err.key, "bind");
        let err = Config::from_sources(Some("database:\n  max_connections: lots\n"), &env(&[]))
            .unwrap_err();
        assert_eq!(err.key, "database.max_connections");
        let err =
            Config::from_sources(None, &env(&[("ANTLER_SKILLS_WATCH", "maybe")])).unwrap_err();
        assert_eq!(err.key, "skills.watch");
        assert!(err.message.contains("ANTLER_SKILLS_WATCH"), "{err}");
        let err = Config::from_sources(Some("skills:\n  wacth: true\n"), &env(&[])).unwrap_err();
        assert!(err.to_string().contains("wacth"), "{err}");
        let err = Config::from_sources(Some("log:\n  format: xml\n"), &env(&[])).unwrap_err();
        assert_eq!(err.key, "log.format");
        let err = Config::from_sources(Some("[1, 2]"), &env(&[])).unwrap_err();
        assert_eq!(err.key, "<file>");
        let err = Config::from_sources(None, &env(&[("ANTLER_UPLOADS_MAX_REQUEST_BYTES", "0")]))
            .unwrap_err();
        assert_eq!(err.key, "uploads.max_request_bytes");
        let err = Config::from_sources(
            Some("skills:\n  install:\n    max_total_bytes: 0\n"),
            &env(&[]),
        )
        .unwrap_err();
        assert_eq!(err.key, "skills.install.max_total_bytes");
        let err = Config::from_sources(None, &env(&[("ANTLER_SANDBOX_INSTANCE_ID", "../x")]))
            .unwrap_err();
        assert_eq!(err.key, "sandbox.instance_id");
    }

    #[test]
    fn optional_strings_from_the_environment_stay_strings() {
        let c = Config::from_sources(
            None,
            &env(&[
                ("ANTLER_SANDBOX_INSTANCE_ID", "42"),
                ("ANTLER_SANDBOX_DOCKER_RUNTIME", "1000"),
            ]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.sandbox.instance_id.as_deref(), Some("42"));
        assert_eq!(c.sandbox.docker.runtime.as_deref(), Some("1000"));
        let c = Config::from_sources(
            Some("sandbox:\n  instance_id: a\n"),
            &env(&[("ANTLER_SANDBOX_INSTANCE_ID", "")]),
        )
        .unwrap();
        assert_eq!(
            c.sandbox.instance_id, None,
            "an empty variable unsets the key"
        );
    }

    #[test]
    fn the_example_file_documents_every_key_and_loads() {
        let text = include_str!("../../../../config/antler.example.yaml");
        let example = Config::from_sources(Some(text), &env(&[])).unwrap();
        assert_eq!(example, Config::default(), "the example shows the defaults");
        let defaults = serde_yaml::to_value(Config::default()).unwrap();
        let mut keys = Vec::new();
        leaf_keys(&defaults, &mut Vec::new(), &mut keys);
        for key in keys {
            let last = key.rsplit('.').next().unwrap();
            assert!(
                text.contains(&format!("{last}:")),
                "config/antler.example.yaml does not document '{key}'"
            );
            let var = format!("ANTLER_{}", key.replace('.', "_").to_uppercase());
            assert!(text.contains(&var), "the example does not name {var}");
        }
    }

    fn leaf_keys(v: &Value, path: &mut Vec<String>, out: &mut Vec<String>) {
        if let Value::Mapping(m) = v {
            for (k, child) in m {
                path.push(k.as_str().unwrap().to_string());
                if matches!(child, Value::Mapping(_)) {
                    leaf_keys(child, path, out);
                } else {
                    out.push(path.join("."));
                }
                path.pop();
            }
        }
    }
}
