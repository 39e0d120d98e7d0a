//! Each person's preferences that the server acts on (follow-up suggestions on or off).

use async_trait::async_trait;

use crate::StoreError;

/// A person's preferences; [`Default`] is what someone who never chose has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preferences {
    /// Follow-up suggestions after an answer.
    pub suggestions: bool,
}

impl Default for Preferences {
    fn default() -> Self {
        Preferences { suggestions: true }
    }
}

/// Reads and writes preferences.
#[async_trait]
pub trait PreferenceRepo: Send + Sync + 'static {
    /// `owner`'s preferences (the defaults when they never chose).
    async fn get(&self, owner: &str) -> Result<Preferences, StoreError>;
    /// Stores `owner`'s preferences, replacing the previous ones.
    async fn set(&self, owner: &str, preferences: Preferences) -> Result<(), StoreError>;
}
