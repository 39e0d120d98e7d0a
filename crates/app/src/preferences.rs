//! The caller's preferences (follow-up suggestions on or off).

use antler_protocol::preferences::{Preferences, PreferencesPatch};
use antler_store::StoreError;

use crate::{App, Caller};

impl App {
    /// The caller's preferences.
    pub async fn preferences(&self, caller: &Caller) -> Result<Preferences, StoreError> {
        let stored = self.store.preferences.get(caller.owner()).await?;
        Ok(self.wire_preferences(stored))
    }

    /// Changes the caller's preferences; answers them as stored.
    pub async fn set_preferences(
        &self,
        caller: &Caller,
        patch: PreferencesPatch,
    ) -> Result<Preferences, StoreError> {
        let mut stored = self.store.preferences.get(caller.owner()).await?;
        if let Some(on) = patch.suggestions {
            stored.suggestions = on;
        }
        self.store.preferences.set(caller.owner(), stored).await?;
        tracing::info!(
            user.id = caller.owner(),
            suggestions = stored.suggestions,
            "preferences changed"
        );
        Ok(self.wire_preferences(stored))
    }

    fn wire_preferences(&self, stored: antler_store::preferences::Preferences) -> Preferences {
        Preferences {
            suggestions: stored.suggestions,
            suggestions_available: self.config.agent.suggestions.enabled,
        }
    }
}
