//! `GET /health`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Liveness answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Health {
    /// Always `ok` when the server answers.
    #[schema(example = "ok")]
    pub status: String,
    /// The server's version.
    #[schema(example = "0.1.0")]
    pub version: String,
    /// The sandbox provider in use: `docker` or `local`.
    #[schema(example = "docker")]
    pub sandbox: String,
    /// Degradations an operator should know about (empty when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}
