//! A person's preferences the server acts on (`/api/preferences`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The caller's preferences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Preferences {
    /// Follow-up suggestions after an answer (on unless turned off).
    pub suggestions: bool,
    /// Whether the server suggests follow-ups at all (`agent.suggestions.enabled`); when
    /// false, `suggestions` has no effect.
    pub suggestions_available: bool,
}

/// A change to the caller's preferences; absent fields stay as they are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PreferencesPatch {
    /// Follow-up suggestions after an answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<bool>,
}
