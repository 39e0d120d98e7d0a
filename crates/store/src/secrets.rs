//! Named secrets, stored sealed (the store never sees a value in the clear).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::StoreError;

/// One stored secret.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretRecord {
    /// Its name (an environment variable name).
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Assistant ids whose runs receive it (`*`: every agent).
    pub agents: Vec<String>,
    /// Skills whose use gives it to a run.
    pub skills: Vec<String>,
    /// The sealed value (nonce and ciphertext).
    pub sealed: Vec<u8>,
    /// The admin who stored it.
    pub created_by: String,
    /// When it was first stored.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

impl std::fmt::Debug for SecretRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretRecord")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Reads and writes secrets.
#[async_trait]
pub trait SecretRepo: Send + Sync + 'static {
    /// Every secret, by name.
    async fn list(&self) -> Result<Vec<SecretRecord>, StoreError>;
    /// Stores `secret`, replacing one of the same name (its `created_at` and `created_by`
    /// stay).
    async fn put(&self, secret: &SecretRecord) -> Result<SecretRecord, StoreError>;
    /// Removes it; false when there was none.
    async fn delete(&self, name: &str) -> Result<bool, StoreError>;
}
