//! Accounts and credentials: the first-run setup, sign-in with throttling, sessions,
//! personal access tokens, and the admins' management of accounts.

mod cache;
mod secret;
mod throttle;

use std::net::IpAddr;
use std::time::Duration;

use antler_protocol::auth::{AuthMode, AuthStatus, CreatedToken, Role, TokenInfo, UserInfo};
use antler_sandbox::paths::LOCAL_OWNER;
use antler_store::{SetupOutcome, Store, StoreError, TokenRecord, UserRecord, UserUpdate};
use chrono::{DateTime, Utc};

use crate::config::AuthConfig;
use crate::identity::Caller;
use secret::{digest, hash_password, password_problem, random_secret, verify_password};
use throttle::Throttle;

pub use secret::generated_password;

/// How long a printed setup URL works (a restart prints a new one).
const SETUP_TOKEN_LIFETIME: chrono::Duration = chrono::Duration::hours(24);

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

/// An email address as stored: trimmed, lower case; refused unless it looks like one.
fn normalise_email(email: &str) -> Result<String, AccountError> {
    let email = email.trim().to_lowercase();
    let valid = email.len() <= 254
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && !domain.is_empty() && !domain.contains('@')
        })
        && !email.chars().any(|c| c.is_whitespace() || c.is_control());
    if valid {
        Ok(email)
    } else {
        Err(AccountError::Invalid(
            "the email must be an address like name@example.com".into(),
        ))
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

fn token_info(t: &TokenRecord) -> TokenInfo {
    TokenInfo {
        id: t.token_id.clone(),
        name: t.name.clone(),
        created_at: t.created_at.to_rfc3339(),
        expires_at: t.expires_at.map(|e| e.to_rfc3339()),
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
        }
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

    /// A one-time setup token when no admin exists (`None` otherwise, or without accounts).
    pub async fn prepare_setup(&self) -> Result<Option<String>, AccountError> {
        if self.config.mode != AuthMode::Password || self.store.accounts.admin_exists().await? {
            return Ok(None);
        }
        let token = random_secret();
        self.store
            .accounts
            .add_setup_token(&digest(&token), Utc::now() - SETUP_TOKEN_LIFETIME)
            .await?;
        Ok(Some(token))
    }

    /// Creates the first admin with a setup token.
    pub async fn setup(
        &self,
        token: &str,
        email: &str,
        password: &str,
    ) -> Result<UserRecord, AccountError> {
        let email = normalise_email(email)?;
        check_password(password)?;
        if self.store.accounts.admin_exists().await? {
            return Err(AccountError::SetupDone);
        }
        let user = new_record(email, hashed(password.to_string()).await?, Role::Admin);
        match self
            .store
            .accounts
            .create_first_admin(&digest(token), Utc::now() - SETUP_TOKEN_LIFETIME, &user)
            .await?
        {
            SetupOutcome::Created => {
                tracing::info!(user.id = %user.user_id, "first admin created with the setup URL");
                self.adopt_local_data().await?;
                Ok(user)
            }
            SetupOutcome::AdminExists => Err(AccountError::SetupDone),
            SetupOutcome::BadToken => Err(AccountError::BadSetupToken),
        }
    }

    /// Creates an account (admins through the API, operators through the CLI).
    pub async fn create_user(
        &self,
        email: &str,
        password: &str,
        role: Role,
    ) -> Result<UserRecord, AccountError> {
        let email = normalise_email(email)?;
        check_password(password)?;
        let user = new_record(email, hashed(password.to_string()).await?, role);
        match self.store.accounts.create_user(&user).await {
            Ok(()) => {}
            Err(StoreError::Conflict(_)) => return Err(AccountError::EmailTaken),
            Err(e) => return Err(e.into()),
        }
        tracing::info!(user.id = %user.user_id, role = %role, "account created");
        if role == Role::Admin {
            self.adopt_local_data().await?;
        }
        Ok(user)
    }

    /// `ANTLER_ADMIN_EMAIL` + `ANTLER_ADMIN_PASSWORD`: creates that admin unless an account
    /// with the email exists (its password is then left alone). True when it was created.
    pub async fn ensure_admin(&self, email: &str, password: &str) -> Result<bool, AccountError> {
        let normalised = normalise_email(email)?;
        if self
            .store
            .accounts
            .user_by_email(&normalised)
            .await?
            .is_some()
        {
            return Ok(false);
        }
        match self.create_user(email, password, Role::Admin).await {
            Ok(_) => Ok(true),
            // Another replica created it at the same moment.
            Err(AccountError::EmailTaken) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Gives the threads and runs of `auth.mode: none` (owner `local`) to the first admin.
    /// Only rows move: thread files are found by thread id whoever owns them. Idempotent; a
    /// no-op without an admin.
    pub async fn adopt_local_data(&self) -> Result<(), AccountError> {
        if self.config.mode != AuthMode::Password {
            return Ok(());
        }
        let Some(admin) = self.store.accounts.first_admin().await? else {
            return Ok(());
        };
        let moved = self
            .store
            .accounts
            .adopt(LOCAL_OWNER, &admin.user_id)
            .await?;
        if moved > 0 {
            tracing::info!(threads = moved, user.id = %admin.user_id, "single-user threads adopted by the first admin");
        }
        Ok(())
    }

    /// Signs in: a new session, or why not. `client` is the caller's address (throttled
    /// like the account).
    pub async fn login(
        &self,
        email: &str,
        password: &str,
        client: Option<IpAddr>,
    ) -> Result<NewSession, AccountError> {
        let email = email.trim().to_lowercase();
        let account_key = format!("account:{email}");
        let client_key = client.map(|ip| format!("client:{ip}"));
        let limit = self.config.max_failed_logins;
        let waits = [
            self.throttle.wait(&account_key, limit),
            client_key
                .as_deref()
                .and_then(|k| self.throttle.wait(k, limit.saturating_mul(4))),
        ];
        if let Some(wait) = waits.into_iter().flatten().max() {
            return Err(AccountError::Throttled(wait));
        }
        let user = self.store.accounts.user_by_email(&email).await?;
        // Hash even for unknown accounts, so timing does not tell which emails exist.
        let (known, password) = (
            user.as_ref().map(|u| u.password_hash.clone()),
            password.to_string(),
        );
        let matches = password_work(move || {
            let hash = known.unwrap_or_else(dummy_hash);
            verify_password(&password, &hash)
        })
        .await?;
        let user = match user {
            Some(user) if matches && !user.disabled => user,
            _ => {
                self.throttle.fail(&account_key);
                if let Some(k) = &client_key {
                    self.throttle.fail(k);
                }
                tracing::info!(client = ?client, "failed sign-in");
                return Err(AccountError::BadCredentials);
            }
        };
        self.throttle.clear(&account_key);
        self.new_session(user).await
    }

    async fn new_session(&self, user: UserRecord) -> Result<NewSession, AccountError> {
        // Sessions nobody signed out of would pile up: each sign-in sweeps the expired ones.
        self.store
            .accounts
            .delete_expired_sessions(Utc::now())
            .await?;
        let secret = random_secret();
        let csrf_token = random_secret();
        let expires_at = Utc::now() + chrono::Duration::days(i64::from(self.config.session_days));
        self.store
            .accounts
            .create_session(&digest(&secret), &user.user_id, &csrf_token, expires_at)
            .await?;
        Ok(NewSession {
            secret,
            csrf_token,
            expires_at,
            user,
        })
    }

    /// The caller of a session cookie; `None` when unknown, expired or disabled.
    pub async fn session(&self, secret: &str) -> Result<Option<Authenticated>, AccountError> {
        let session_hash = digest(secret);
        let key = format!("session:{session_hash}");
        if let Some(found) = self.cache.get(&key) {
            return Ok(Some(found));
        }
        let generation = self.cache.generation();
        let Some(session) = self.store.accounts.session(&session_hash).await? else {
            return Ok(None);
        };
        if session.expires_at <= Utc::now() {
            self.store.accounts.delete_session(&session_hash).await?;
            return Ok(None);
        }
        if session.user.disabled {
            return Ok(None);
        }
        let found = Authenticated::Session {
            caller: Caller::account(&session.user),
            csrf_token: session.csrf_token,
            session_hash,
        };
        self.cache
            .put(generation, key, found.clone(), Some(session.expires_at));
        Ok(Some(found))
    }

    /// The caller of a personal access token; `None` when unknown, expired, revoked or
    /// disabled.
    pub async fn token(&self, secret: &str) -> Result<Option<Authenticated>, AccountError> {
        if !secret.starts_with(secret::TOKEN_PREFIX) {
            return Ok(None);
        }
        let token_hash = digest(secret);
        let key = format!("token:{token_hash}");
        if let Some(found) = self.cache.get(&key) {
            return Ok(Some(found));
        }
        let generation = self.cache.generation();
        let Some((user, token)) = self.store.accounts.token(&token_hash).await? else {
            return Ok(None);
        };
        if user.disabled || token.expires_at.is_some_and(|e| e <= Utc::now()) {
            return Ok(None);
        }
        let found = Authenticated::Token {
            caller: Caller::account(&user),
        };
        self.cache
            .put(generation, key, found.clone(), token.expires_at);
        Ok(Some(found))
    }

    /// Ends a session (by the digest of its cookie).
    pub async fn logout(&self, session_hash: &str) -> Result<(), AccountError> {
        self.store.accounts.delete_session(session_hash).await?;
        self.revoked().await;
        Ok(())
    }

    /// The caller's account (for `me`).
    pub async fn account(&self, caller: &Caller) -> Result<Option<UserRecord>, AccountError> {
        Ok(self.store.accounts.user(caller.owner()).await?)
    }

    /// Changes the caller's password; every other session of theirs ends.
    pub async fn change_password(
        &self,
        caller: &Caller,
        current: &str,
        new: &str,
        keep_session: Option<&str>,
    ) -> Result<(), AccountError> {
        let user = self
            .store
            .accounts
            .user(caller.owner())
            .await?
            .ok_or(AccountError::BadCredentials)?;
        check_password(new)?;
        let (hash, current) = (user.password_hash.clone(), current.to_string());
        let matches = password_work(move || verify_password(&current, &hash)).await?;
        if !matches {
            return Err(AccountError::Invalid(
                "the current password is wrong".into(),
            ));
        }
        self.set_password(&user.user_id, new, keep_session).await
    }

    async fn set_password(
        &self,
        user_id: &str,
        password: &str,
        keep_session: Option<&str>,
    ) -> Result<(), AccountError> {
        let update = UserUpdate {
            password_hash: Some(hashed(password.to_string()).await?),
            ..UserUpdate::default()
        };
        if !self.store.accounts.update_user(user_id, &update).await? {
            return Err(AccountError::NotFound("no such account".into()));
        }
        self.store
            .accounts
            .delete_sessions_of(user_id, keep_session)
            .await?;
        self.revoked().await;
        Ok(())
    }

    /// The account with `id`, or 404.
    async fn user_with_id(&self, id: &str) -> Result<UserRecord, AccountError> {
        self.store
            .accounts
            .user(id)
            .await?
            .ok_or_else(|| AccountError::NotFound(format!("no account has the id '{id}'")))
    }

    /// The account with `email`, or 404.
    async fn user_with_email(&self, email: &str) -> Result<UserRecord, AccountError> {
        let email = normalise_email(email)?;
        self.store
            .accounts
            .user_by_email(&email)
            .await?
            .ok_or_else(|| AccountError::NotFound(format!("no account has the email {email}")))
    }

    /// Sets a new random password for `email` (the command line's reset); every session
    /// of the account ends. Returns the password.
    pub async fn reset_password(&self, email: &str) -> Result<String, AccountError> {
        let user = self.user_with_email(email).await?;
        let password = secret::generated_password();
        self.set_password(&user.user_id, &password, None).await?;
        Ok(password)
    }

    /// Creates a personal access token for the caller.
    pub async fn create_token(
        &self,
        caller: &Caller,
        name: &str,
        expires_in_days: Option<u32>,
    ) -> Result<CreatedToken, AccountError> {
        if self.store.accounts.user(caller.owner()).await?.is_none() {
            return Err(AccountError::Invalid(
                "personal access tokens belong to accounts, and auth.mode is none".into(),
            ));
        }
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
            return Err(AccountError::Invalid(
                "the token name must have 1 to 100 printable characters".into(),
            ));
        }
        if expires_in_days.is_some_and(|d| d == 0 || d > 3650) {
            return Err(AccountError::Invalid(
                "expires_in_days must be between 1 and 3650".into(),
            ));
        }
        let secret = secret::new_token();
        let now = Utc::now();
        let record = TokenRecord {
            token_id: uuid::Uuid::new_v4().to_string(),
            user_id: caller.owner().to_string(),
            name: name.to_string(),
            created_at: now,
            expires_at: expires_in_days.map(|d| now + chrono::Duration::days(i64::from(d))),
        };
        self.store
            .accounts
            .create_token(&record, &digest(&secret))
            .await?;
        Ok(CreatedToken {
            id: record.token_id,
            token: secret,
            name: record.name,
            expires_at: record.expires_at.map(|e| e.to_rfc3339()),
        })
    }

    /// Creates a token for the account with `email` (the command line).
    pub async fn create_token_for(
        &self,
        email: &str,
        name: &str,
        expires_in_days: Option<u32>,
    ) -> Result<CreatedToken, AccountError> {
        let user = self.user_with_email(email).await?;
        self.create_token(&Caller::account(&user), name, expires_in_days)
            .await
    }

    /// The caller's tokens.
    pub async fn tokens(&self, caller: &Caller) -> Result<Vec<TokenInfo>, AccountError> {
        let tokens = self.store.accounts.tokens_of(caller.owner()).await?;
        Ok(tokens.iter().map(token_info).collect())
    }

    /// Revokes one of the caller's tokens.
    pub async fn revoke_token(&self, caller: &Caller, id: &str) -> Result<(), AccountError> {
        if self.store.accounts.delete_token(caller.owner(), id).await? {
            self.revoked().await;
            Ok(())
        } else {
            Err(AccountError::NotFound(format!(
                "you have no token with id '{id}'"
            )))
        }
    }

    /// Every account.
    pub async fn users(&self) -> Result<Vec<UserInfo>, AccountError> {
        Ok(self
            .store
            .accounts
            .users()
            .await?
            .iter()
            .map(user_info)
            .collect())
    }

    /// Changes an account (admins). An admin cannot disable or demote themselves, so the
    /// server always keeps an admin who can sign in.
    pub async fn update_user(
        &self,
        caller: &Caller,
        id: &str,
        disabled: Option<bool>,
        role: Option<Role>,
        password: Option<&str>,
    ) -> Result<UserInfo, AccountError> {
        if let Some(p) = password {
            check_password(p)?;
        }
        let user = self.user_with_id(id).await?;
        if user.user_id == caller.owner()
            && (disabled == Some(true) || role.is_some_and(|r| r != Role::Admin))
        {
            return Err(AccountError::LastAdmin(
                "you cannot disable or demote your own account; another admin can".into(),
            ));
        }
        let update = UserUpdate {
            disabled,
            role,
            password_hash: None,
        };
        self.store.accounts.update_user(id, &update).await?;
        if let Some(p) = password {
            self.set_password(id, p, None).await?;
        }
        if disabled == Some(true) {
            self.store.accounts.delete_sessions_of(id, None).await?;
        }
        // A disabled account or a new role must not be served from a cached credential.
        self.revoked().await;
        let user = self.user_with_id(id).await?;
        Ok(user_info(&user))
    }
}

/// The hash of a random password, verified against when the account does not exist, so an
/// unknown email costs the same time as a wrong password.
fn dummy_hash() -> String {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY
        .get_or_init(|| hash_password(&random_secret()).unwrap_or_default())
        .clone()
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
        for bad in ["", "ann", "@x", "ann@", "a b@x.y", "a@b@c", "a\u{0}@x.y"] {
            assert!(normalise_email(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_dummy_hash_is_a_valid_argon2id_hash() {
        let hash = dummy_hash();
        assert!(argon2::password_hash::PasswordHash::new(&hash).is_ok());
        assert!(!verify_password("anything", &hash));
    }
}
