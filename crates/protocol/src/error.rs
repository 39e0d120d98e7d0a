//! The JSON error envelope every failing API call answers with.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `{"error": {"code", "message", "details"?}}` — the body of every 4xx/5xx response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ErrorEnvelope {
    /// The error itself.
    pub error: ErrorBody,
}

/// What went wrong, for people (`message`) and programs (`code`, `details`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    /// Stable machine-readable code such as `not_found` or `invalid_request`.
    #[schema(example = "not_found")]
    pub code: String,
    /// Human-readable explanation; never contains internal error text.
    #[schema(example = "no skill named 'pdf'")]
    pub message: String,
    /// Structured context (for example the conflicting categories or validation findings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Value>,
}
