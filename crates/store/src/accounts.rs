//! Accounts, sessions, personal access tokens and the first-run setup. Secrets arrive here
//! already hashed; nothing in this module sees a password or a token.

use antler_protocol::auth::Role;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::StoreError;

/// One account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserRecord {
    /// The id (owner of threads and runs).
    pub user_id: String,
    /// The email address, lower-cased.
    pub email: String,
    /// The Argon2id PHC string.
    pub password_hash: String,
    /// The role.
    pub role: Role,
    /// Whether sign-in and credentials are refused.
    pub disabled: bool,
    /// Creation time.
    pub created_at: DateTime<Utc>,
}

/// A session found by its hash: whose it is and its CSRF token.
#[derive(Debug, Clone)]
pub struct SessionRecord {
    /// The account.
    pub user: UserRecord,
    /// The token unsafe requests must echo.
    pub csrf_token: String,
    /// When it stops working.
    pub expires_at: DateTime<Utc>,
}

/// A personal access token (without its secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRecord {
    /// The id.
    pub token_id: String,
    /// Whose it is.
    pub user_id: String,
    /// Its name.
    pub name: String,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// When it stops working, if ever.
    pub expires_at: Option<DateTime<Utc>>,
}

/// What the first-run setup did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetupOutcome {
    /// The account is the first admin.
    Created,
    /// An admin already exists; nothing was written.
    AdminExists,
    /// The setup token is unknown (or was used); nothing was written.
    BadToken,
}

/// A change to an account.
#[derive(Debug, Clone, Default)]
pub struct UserUpdate {
    /// New disabled flag.
    pub disabled: Option<bool>,
    /// New role.
    pub role: Option<Role>,
    /// New password hash.
    pub password_hash: Option<String>,
}

/// Reads and writes accounts and credentials.
#[async_trait]
pub trait AccountRepo: Send + Sync + 'static {
    /// Adds an account; `Conflict` when the email is taken.
    async fn create_user(&self, user: &UserRecord) -> Result<(), StoreError>;
    /// Adds the first admin if the setup token (its hash) was issued after `issued_after`
    /// and no admin exists, in one transaction that at most one concurrent caller wins; uses
    /// up every setup token.
    async fn create_first_admin(
        &self,
        setup_token_hash: &str,
        issued_after: DateTime<Utc>,
        user: &UserRecord,
    ) -> Result<SetupOutcome, StoreError>;
    /// Records a setup token (its hash) that may create the first admin, and forgets those
    /// issued before `forget_before`.
    async fn add_setup_token(
        &self,
        token_hash: &str,
        forget_before: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Whether an enabled admin exists.
    async fn admin_exists(&self) -> Result<bool, StoreError>;
    /// The oldest admin, if any.
    async fn first_admin(&self) -> Result<Option<UserRecord>, StoreError>;
    /// An account by email (lower-cased by the caller).
    async fn user_by_email(&self, email: &str) -> Result<Option<UserRecord>, StoreError>;
    /// An account by id.
    async fn user(&self, user_id: &str) -> Result<Option<UserRecord>, StoreError>;
    /// Every account, oldest first.
    async fn users(&self) -> Result<Vec<UserRecord>, StoreError>;
    /// Changes an account; false when there is none with that id.
    async fn update_user(&self, user_id: &str, update: &UserUpdate) -> Result<bool, StoreError>;

    /// Adds a session.
    async fn create_session(
        &self,
        session_hash: &str,
        user_id: &str,
        csrf_token: &str,
        expires_at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// A session by its hash, with its account.
    async fn session(&self, session_hash: &str) -> Result<Option<SessionRecord>, StoreError>;
    /// Ends one session.
    async fn delete_session(&self, session_hash: &str) -> Result<(), StoreError>;
    /// Forgets sessions that ended before `now`.
    async fn delete_expired_sessions(&self, now: DateTime<Utc>) -> Result<(), StoreError>;
    /// Ends every session of an account except `keep` (a session hash).
    async fn delete_sessions_of(&self, user_id: &str, keep: Option<&str>)
    -> Result<(), StoreError>;

    /// Adds a personal access token.
    async fn create_token(&self, token: &TokenRecord, token_hash: &str) -> Result<(), StoreError>;
    /// A token by its hash, with its account.
    async fn token(
        &self,
        token_hash: &str,
    ) -> Result<Option<(UserRecord, TokenRecord)>, StoreError>;
    /// An account's tokens, newest first.
    async fn tokens_of(&self, user_id: &str) -> Result<Vec<TokenRecord>, StoreError>;
    /// Revokes one of an account's tokens; false when it has none with that id.
    async fn delete_token(&self, user_id: &str, token_id: &str) -> Result<bool, StoreError>;

    /// Gives everything `from` owns (threads, runs) to `to`; the number of threads moved.
    async fn adopt(&self, from: &str, to: &str) -> Result<u64, StoreError>;
}
