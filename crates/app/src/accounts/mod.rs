//! Accounts and credentials: the first-run setup, sign-in with throttling, sessions,
//! personal access tokens, and the admins' management of accounts.

mod cache;
mod secret;
mod sessions;
mod setup;
mod throttle;
mod tokens;
mod users;

use std::net::IpAddr;
use std::sync::LazyLock;
use std::time::Duration;

use antler_protocol::auth::{AuthMode, AuthStatus, CreatedToken, Role, TokenInfo, UserInfo};
use antler_protocol::validation::{
    EMAIL_PATTERN, MAX_EMAIL_CHARS, MAX_TOKEN_NAME_CHARS, TOKEN_NAME_PATTERN,
};
use antler_sandbox::paths::LOCAL_OWNER;
use antler_store::{SetupOutcome, Store, StoreError, TokenRecord, UserRecord, UserUpdate};
use chrono::{DateTime, Utc};
use regex::Regex;

use crate::config::AuthConfig;
use crate::identity::Caller;
use secret::{digest, hash_password, password_problem, random_secret, verify_password};
use throttle::Throttle;

pub use secret::generated_password;

/// Why an account operation failed.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// The input is not acceptable (422).
    #[error("{0}")]
    Invalid(String),
    /// Wrong email or password, or a disabled account (401; which one is not said).
    #[error("the email or password is wrong")]
    BadCredentials,
    /// Too many failed sign-ins (429).
    #[error("too many failed sign-ins; try again in {} s", .0.as_secs().max(1))]
    Throttled(Duration),
    /// The setup token is unknown or used (403).
    #[error(
        "the setup token is not valid (it is printed by the server at startup, and works once)"
    )]
    BadSetupToken,
    /// The first admin exists already (409).
    #[error("the server is set up already: sign in instead")]
    SetupDone,
    /// The email is taken (409).
    #[error("an account with this email already exists")]
    EmailTaken,
    /// No such account or token (404).
    #[error("{0}")]
    NotFound(String),
    /// The change would leave the server without a usable admin (409).
    #[error("{0}")]
    LastAdmin(String),
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Hashing failed or a task panicked.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

/// A browser session just created: its secret (the cookie) and CSRF token.
#[derive(Debug, Clone)]
pub struct NewSession {
    /// The cookie value (only its digest is stored).
    pub secret: String,
    /// The CSRF token unsafe requests echo.
    pub csrf_token: String,
    /// When it ends.
    pub expires_at: DateTime<Utc>,
    /// The account.
    pub user: UserRecord,
}

/// A request's credential, resolved.
#[derive(Debug, Clone)]
pub enum Authenticated {
    /// A browser session (unsafe requests need its CSRF token).
    Session {
        /// Whose.
        caller: Caller,
        /// The session's CSRF token.
        csrf_token: String,
        /// The digest of the cookie (to end or keep this session).
        session_hash: String,
    },
    /// A personal access token.
    Token {
        /// Whose.
        caller: Caller,
    },
}

/// The accounts use-cases.
#[derive(Debug)]
pub struct AccountsService {
    store: Store,
    config: AuthConfig,
    throttle: Throttle,
    cache: cache::CredentialCache,
    /// `<data>/users`, where personal skills live (adopted with the rows).
    users_dir: Option<std::path::PathBuf>,
}

/// Runs password hashing or verification on the blocking pool, a few at a time: each
/// takes tens of MiB and a core for tens of ms, so a burst of sign-ins waits its turn
/// instead of exhausting memory.
async fn password_work<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, AccountError> {
    static SLOTS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    let slots = SLOTS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        tokio::sync::Semaphore::new(cores.clamp(1, 8))
    });
    let _permit = slots
        .acquire()
        .await
        .map_err(|e| anyhow::anyhow!("password work stopped: {e}"))?;
    Ok(tokio::task::spawn_blocking(work)
        .await
        .map_err(anyhow::Error::from)?)
}

/// A password hashed on the blocking pool.
async fn hashed(password: String) -> Result<String, AccountError> {
    Ok(password_work(move || hash_password(&password)).await??)
}

/// An email address as stored: trimmed, lower case; refused unless it looks like one
/// ([`EMAIL_PATTERN`], at most [`MAX_EMAIL_CHARS`] as sent).
fn normalise_email(email: &str) -> Result<String, AccountError> {
    static EMAIL: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(EMAIL_PATTERN).ok());
    let valid = email.chars().count() <= MAX_EMAIL_CHARS
        && EMAIL.as_ref().is_some_and(|re| re.is_match(email));
    if valid {
        Ok(email.trim().to_lowercase())
    } else {
        Err(AccountError::Invalid(format!(
            "the email must be an address like name@example.com (at most {MAX_EMAIL_CHARS} characters)"
        )))
    }
}

/// A personal access token's name as stored (trimmed), or why it is refused
/// ([`TOKEN_NAME_PATTERN`], at most [`MAX_TOKEN_NAME_CHARS`] as sent).
fn checked_token_name(name: &str) -> Result<&str, AccountError> {
    static NAME: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(TOKEN_NAME_PATTERN).ok());
    let valid = name.chars().count() <= MAX_TOKEN_NAME_CHARS
        && NAME.as_ref().is_some_and(|re| re.is_match(name));
    if valid {
        Ok(name.trim())
    } else {
        Err(AccountError::Invalid(format!(
            "the token name must have 1 to {MAX_TOKEN_NAME_CHARS} printable characters"
        )))
    }
}

fn check_password(password: &str) -> Result<(), AccountError> {
    password_problem(password).map_or(Ok(()), |p| Err(AccountError::Invalid(p)))
}

fn new_record(email: String, password_hash: String, role: Role) -> UserRecord {
    UserRecord {
        user_id: uuid::Uuid::new_v4().to_string(),
        email,
        password_hash,
        role,
        disabled: false,
        created_at: Utc::now(),
    }
}

/// An account as admins see it.
pub fn user_info(user: &UserRecord) -> UserInfo {
    UserInfo {
        id: user.user_id.clone(),
        email: user.email.clone(),
        role: user.role,
        disabled: user.disabled,
        created_at: user.created_at.to_rfc3339(),
    }
}

impl AccountsService {
    /// The service over `store`.
    pub fn new(store: Store, config: AuthConfig) -> Self {
        let window = Duration::from_secs(config.throttle_window_secs.max(1));
        AccountsService {
            store,
            config,
            throttle: Throttle::new(window),
            cache: cache::CredentialCache::default(),
            users_dir: None,
        }
    }

    /// Personal skills under `users_dir` move with the rows when local data is adopted.
    pub fn with_users_dir(mut self, users_dir: std::path::PathBuf) -> Self {
        self.users_dir = Some(users_dir);
        self
    }

    /// Forgets cached credentials here and on every replica (after anything that revokes a
    /// session or token or changes an account). A failed notice is logged: other replicas
    /// then catch up when their entries expire.
    async fn revoked(&self) {
        self.cache.clear();
        if let Err(error) = self
            .store
            .bus
            .publish(antler_store::Topic::Credentials, "revoked")
            .await
        {
            tracing::warn!(%error, "could not tell other replicas about a revoked credential");
        }
    }

    /// Clears the cache when another process revoked something (or notices were missed).
    /// The task holds the service weakly and ends with it.
    pub fn follow_revocations(self: &std::sync::Arc<Self>) -> tokio::task::JoinHandle<()> {
        use tokio::sync::broadcast::error::RecvError;
        let mut notices = self.store.bus.subscribe();
        let service = std::sync::Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                let clear = match notices.recv().await {
                    Ok(n) => n.topic == antler_store::Topic::Credentials || n.payload.is_empty(),
                    Err(RecvError::Lagged(_)) => true,
                    Err(RecvError::Closed) => return,
                };
                let Some(service) = service.upgrade() else {
                    return;
                };
                if clear {
                    service.cache.clear();
                }
            }
        })
    }

    /// The authentication mode.
    pub fn mode(&self) -> AuthMode {
        self.config.mode
    }

    /// The `auth.*` configuration.
    pub fn config(&self) -> &AuthConfig {
        &self.config
    }

    /// What the web UI needs before sign-in.
    pub async fn status(&self) -> Result<AuthStatus, AccountError> {
        Ok(AuthStatus {
            mode: self.config.mode,
            setup_required: self.config.mode == AuthMode::Password
                && !self.store.accounts.admin_exists().await?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_trimmed_lowercased_and_checked() {
        assert_eq!(
            normalise_email(" Ann@Example.COM ").unwrap(),
            "ann@example.com"
        );
        for bad in [
            "",
            "ann",
            "@x",
            "ann@",
            "a b@x.y",
            "a@b@c",
            "a\u{0}@x.y",
            "\u{1}a@x.y",
        ] {
            assert!(normalise_email(bad).is_err(), "{bad:?}");
        }
        // The limit counts characters as sent, as the document's maxLength does.
        let long = format!("{}@x.y", "é".repeat(MAX_EMAIL_CHARS - 4));
        assert!(normalise_email(&long).is_ok());
        assert!(normalise_email(&format!("é{long}")).is_err());
        assert!(normalise_email(&format!("\u{3000}{long}")).is_err());
    }

    #[test]
    fn token_names_are_printable_not_blank_and_trimmed() {
        assert_eq!(checked_token_name("  laptop ").unwrap(), "laptop");
        assert!(checked_token_name(&"n".repeat(MAX_TOKEN_NAME_CHARS)).is_ok());
        for bad in [
            "",
            " \u{3000}",
            "a\u{7}b",
            "tab\there",
            &"n".repeat(MAX_TOKEN_NAME_CHARS + 1),
            &format!(" {}", "n".repeat(MAX_TOKEN_NAME_CHARS)),
        ] {
            assert!(checked_token_name(bad).is_err(), "{bad:?}");
        }
    }

    /// The patterns the document publishes name their classes character by character: they
    /// must hold exactly what `char::is_whitespace` and `char::is_control` say.
    #[test]
    fn the_published_character_classes_match_rusts() {
        use antler_protocol::validation::{CONTROL_OR_SPACE, WHITE_SPACE};
        let space = Regex::new(&format!("^[{WHITE_SPACE}]$")).unwrap();
        let hidden = Regex::new(&format!("^[{CONTROL_OR_SPACE}]$")).unwrap();
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let s = c.to_string();
            assert_eq!(space.is_match(&s), c.is_whitespace(), "{c:?}");
            assert_eq!(
                hidden.is_match(&s),
                c.is_whitespace() || c.is_control(),
                "{c:?}"
            );
        }
    }
}
