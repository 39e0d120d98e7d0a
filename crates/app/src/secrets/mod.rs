//! Named secrets admins give to agents and skills: stored sealed with the key from
//! `ANTLER_SECRETS_KEY`, never shown again after saving, handed to the runs that may use them
//! as environment variables, and redacted from what leaves the sandbox (see
//! [`antler_agent_runtime::secrets`]).

mod seal;

use std::sync::{Arc, RwLock};

use antler_agent_runtime::secrets::{Secret, SecretSet, SecretSource};
use antler_protocol::secrets::{SecretInfo, SecretList, SecretPut};
use antler_store::{SecretRecord, SecretRepo, StoreError};
use async_trait::async_trait;
use chrono::Utc;

use seal::Key;

/// The variable holding the key.
pub const KEY_VAR: &str = "ANTLER_SECRETS_KEY";

/// Redacts a log line (the server's log writer calls it).
pub use antler_agent_runtime::secrets::redact_log_line;

/// What a secret's name looks like: an environment variable name.
pub const NAME_PATTERN: &str = "^[A-Za-z_][A-Za-z0-9_]{0,63}$";
/// Shortest value, in characters: shorter ones would be redacted wherever those characters
/// happen to occur.
pub const MIN_VALUE: usize = 8;
/// Longest value, in characters.
pub const MAX_VALUE: usize = 64 * 1024;
/// Longest description, in characters.
pub const MAX_DESCRIPTION: usize = 500;
/// Most agents, and most skills, one secret names.
pub const MAX_GRANTS: usize = 100;
/// Longest agent or skill name in a grant, in characters.
pub const MAX_GRANT_CHARS: usize = 200;
/// Most secrets stored: each is matched in everything that leaves a sandbox.
const MAX_SECRETS: usize = 200;

/// Variables a secret may not replace: what the sandbox, the shell and the proxy rely on.
const RESERVED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "SHELL",
    "PWD",
    "LANG",
    "TERM",
    "HOSTNAME",
    "ENV",
    "BASH_ENV",
    "IFS",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
];
const RESERVED_PREFIXES: &[&str] = &["LD_", "ANTLER_", "BASH_FUNC", "PIP_", "NPM_CONFIG_"];

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum SecretsError {
    /// A bad name or field.
    #[error("{0}")]
    Invalid(String),
    /// No such secret.
    #[error("{0}")]
    NotFound(String),
    /// The name is reserved, or the request cannot apply to what is stored.
    #[error("{0}")]
    Conflict(String),
    /// The server has no key.
    #[error("{0}")]
    Unavailable(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The secrets of this server.
pub struct SecretsService {
    repo: Arc<dyn SecretRepo>,
    key: Option<Key>,
    /// The set as last read: listings redact with it between runs.
    cached: RwLock<Arc<SecretSet>>,
    /// One reload at a time, so an older read never replaces a newer one.
    reloading: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for SecretsService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretsService")
            .field("available", &self.key.is_some())
            .finish_non_exhaustive()
    }
}

impl SecretsService {
    /// The service with the key in `key` (the variable's value, when set); a malformed key
    /// is an error, so a typo never looks like "no secrets".
    pub fn new(repo: Arc<dyn SecretRepo>, key: Option<&str>) -> Result<Self, String> {
        let key = key
            .filter(|k| !k.trim().is_empty())
            .map(Key::parse)
            .transpose()?;
        Ok(SecretsService {
            repo,
            key,
            cached: RwLock::new(Arc::new(SecretSet::default())),
            reloading: tokio::sync::Mutex::new(()),
        })
    }

    /// Whether secrets can be stored and used.
    pub fn available(&self) -> bool {
        self.key.is_some()
    }

    fn open(&self, record: &SecretRecord) -> Option<String> {
        self.key.as_ref()?.open(&record.name, &record.sealed)
    }

    /// Every secret, without values.
    pub async fn list(&self) -> Result<SecretList, SecretsError> {
        let records = self.repo.list().await?;
        Ok(SecretList {
            secrets: records
                .iter()
                .map(|r| info(r, self.open(r).is_some()))
                .collect(),
            available: self.available(),
        })
    }

    /// Stores or changes `name` for admin `by`.
    pub async fn put(
        &self,
        by: &str,
        name: &str,
        body: SecretPut,
    ) -> Result<SecretInfo, SecretsError> {
        let Some(key) = &self.key else {
            return Err(SecretsError::Unavailable(format!(
                "secrets need a key: set {KEY_VAR} (32 bytes, e.g. `openssl rand -base64 32`) and restart"
            )));
        };
        check_name(name)?;
        let all = self.repo.list().await?;
        let existing = all.iter().find(|r| r.name == name).cloned();
        if existing.is_none() && all.len() >= MAX_SECRETS {
            return Err(SecretsError::Conflict(format!(
                "at most {MAX_SECRETS} secrets; delete one first"
            )));
        }
        let value = match (&body.value, &existing) {
            (Some(value), _) => {
                check_value(value)?;
                value.clone()
            }
            (None, Some(r)) => self.open(r).ok_or_else(|| {
                SecretsError::Conflict(format!(
                    "{name} was sealed with another key; send its value again"
                ))
            })?,
            (None, None) => {
                return Err(SecretsError::NotFound(format!(
                    "no secret named {name}: send a value to create it"
                )));
            }
        };
        let description = body
            .description
            .or_else(|| existing.as_ref().map(|r| r.description.clone()))
            .unwrap_or_default();
        if description.chars().count() > MAX_DESCRIPTION {
            return Err(SecretsError::Invalid(format!(
                "description: at most {MAX_DESCRIPTION} characters"
            )));
        }
        let agents = grants("agents", body.agents, existing.as_ref().map(|r| &r.agents))?;
        let skills = grants("skills", body.skills, existing.as_ref().map(|r| &r.skills))?;
        let now = Utc::now();
        let record = SecretRecord {
            name: name.to_string(),
            description,
            agents,
            skills,
            sealed: key.seal(name, &value).map_err(SecretsError::Invalid)?,
            created_by: by.to_string(),
            created_at: now,
            updated_at: now,
        };
        let stored = self.repo.put(&record).await?;
        self.reload().await;
        tracing::info!(secret = name, by, "secret stored");
        Ok(info(&stored, true))
    }

    /// Removes `name`.
    pub async fn delete(&self, name: &str) -> Result<(), SecretsError> {
        if !self.repo.delete(name).await? {
            return Err(SecretsError::NotFound(format!("no secret named {name}")));
        }
        self.reload().await;
        tracing::info!(secret = name, "secret deleted");
        Ok(())
    }

    /// Reads every secret again; one this key cannot open is left out (and shown as not
    /// readable in the listing).
    pub async fn reload(&self) -> Arc<SecretSet> {
        let _one = self.reloading.lock().await;
        let records = match self.repo.list().await {
            Ok(records) => records,
            Err(error) => {
                tracing::warn!(%error, "could not read secrets; runs use the last ones read");
                return self.cached();
            }
        };
        let secrets = records
            .iter()
            .filter_map(|r| {
                Some(Secret {
                    name: r.name.clone(),
                    value: self.open(r)?,
                    agents: r.agents.clone(),
                    skills: r.skills.clone(),
                })
            })
            .collect();
        let set = Arc::new(SecretSet::new(secrets));
        antler_agent_runtime::secrets::redact_logs_with(set.clone());
        if let Ok(mut cached) = self.cached.write() {
            *cached = set.clone();
        }
        set
    }

    /// The set as last read (for redacting listings).
    pub fn cached(&self) -> Arc<SecretSet> {
        self.cached
            .read()
            .map(|c| c.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }

    /// A warning for `/health` when stored secrets cannot be used.
    pub async fn warning(&self) -> Option<String> {
        let records = self.repo.list().await.ok()?;
        if records.is_empty() {
            return None;
        }
        if self.key.is_none() {
            return Some(format!(
                "{} secret(s) are stored but {KEY_VAR} is not set: runs get none of them",
                records.len()
            ));
        }
        let unreadable: Vec<&str> = records
            .iter()
            .filter(|r| self.open(r).is_none())
            .map(|r| r.name.as_str())
            .collect();
        (!unreadable.is_empty()).then(|| {
            format!(
                "secrets {} were sealed with another {KEY_VAR}: runs do not get them until an admin stores them again",
                unreadable.join(", ")
            )
        })
    }
}

#[async_trait]
impl SecretSource for SecretsService {
    async fn current(&self) -> Arc<SecretSet> {
        if self.key.is_none() {
            return Arc::new(SecretSet::default());
        }
        self.reload().await
    }
}

fn info(r: &SecretRecord, readable: bool) -> SecretInfo {
    SecretInfo {
        name: r.name.clone(),
        description: r.description.clone(),
        agents: r.agents.clone(),
        skills: r.skills.clone(),
        created_by: r.created_by.clone(),
        created_at: r.created_at.to_rfc3339(),
        updated_at: r.updated_at.to_rfc3339(),
        readable,
    }
}

/// Whether `name` is an environment variable name ([`NAME_PATTERN`]).
pub fn is_secret_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// An environment variable name that replaces nothing the sandbox relies on.
fn check_name(name: &str) -> Result<(), SecretsError> {
    if !is_secret_name(name) {
        return Err(SecretsError::Invalid(
            "name: letters, digits and _, not starting with a digit, at most 64 (an environment variable name)".into(),
        ));
    }
    let upper = name.to_ascii_uppercase();
    if RESERVED.contains(&upper.as_str()) || RESERVED_PREFIXES.iter().any(|p| upper.starts_with(p))
    {
        return Err(SecretsError::Conflict(format!(
            "name: {name} is reserved (the sandbox, its shell or its proxy use it)"
        )));
    }
    Ok(())
}

fn check_value(value: &str) -> Result<(), SecretsError> {
    let chars = value.chars().count();
    if !(MIN_VALUE..=MAX_VALUE).contains(&chars) {
        return Err(SecretsError::Invalid(format!(
            "value: {MIN_VALUE} to {MAX_VALUE} characters (shorter values cannot be redacted reliably)"
        )));
    }
    if value.contains('\0') {
        return Err(SecretsError::Invalid(
            "value: must not contain NUL (it becomes an environment variable)".into(),
        ));
    }
    Ok(())
}

fn grants(
    field: &str,
    given: Option<Vec<String>>,
    kept: Option<&Vec<String>>,
) -> Result<Vec<String>, SecretsError> {
    let list = match given {
        Some(list) => list,
        None => return Ok(kept.cloned().unwrap_or_default()),
    };
    if list.len() > MAX_GRANTS {
        return Err(SecretsError::Invalid(format!(
            "{field}: at most {MAX_GRANTS}"
        )));
    }
    let mut out: Vec<String> = Vec::with_capacity(list.len());
    for item in list {
        let item = item.trim().to_string();
        if item.is_empty()
            || item.chars().count() > MAX_GRANT_CHARS
            || item.chars().any(char::is_control)
        {
            return Err(SecretsError::Invalid(format!(
                "{field}: each entry is a name of 1 to {MAX_GRANT_CHARS} characters without control characters"
            )));
        }
        if !out.contains(&item) {
            out.push(item);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_environment_variables_that_replace_nothing() {
        assert!(check_name("IMAGE_API_KEY").is_ok());
        assert!(check_name("_x1").is_ok());
        for bad in [
            "",
            "1KEY",
            "A-B",
            "A B",
            "PATH",
            "ld_preload",
            "ANTLER_COMMAND",
            "https_proxy",
            "PIP_INDEX_URL",
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_value("short").is_err());
        assert!(check_value("long enough").is_ok());
        assert!(check_value("with\0nul!").is_err());
    }
}
