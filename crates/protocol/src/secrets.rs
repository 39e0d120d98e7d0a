//! Named secrets for skills and agents: what the API shows of them (never a value).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A stored secret, without its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SecretInfo {
    /// Its name: the environment variable runs get.
    #[schema(example = "IMAGE_API_KEY")]
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Assistant ids whose runs receive it (`*`: every agent).
    pub agents: Vec<String>,
    /// Skills whose use in a run gives it to the run.
    pub skills: Vec<String>,
    /// The admin who first stored it.
    pub created_by: String,
    /// When it was first stored (RFC 3339).
    pub created_at: String,
    /// When it last changed (RFC 3339).
    pub updated_at: String,
    /// False when the server's key cannot open it (the key changed): runs do not get it.
    pub readable: bool,
}

/// `GET /api/secrets`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SecretList {
    /// Every secret, by name.
    pub secrets: Vec<SecretInfo>,
    /// Whether the server has its key (`ANTLER_SECRETS_KEY`): without it nothing can be
    /// stored and runs get no secrets.
    pub available: bool,
}

/// `PUT /api/secrets/{name}` body. A field left out keeps what is stored (a new secret needs
/// `value`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SecretPut {
    /// The value (8 to 65,536 bytes, no NUL); never shown again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// What it is for (at most 500 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Assistant ids whose runs receive it (`*`: every agent), at most 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Vec<String>>,
    /// Skills whose use gives it to a run, at most 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
}
