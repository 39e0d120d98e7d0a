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

/// `GET /api/info`: what LangGraph clients ask first to know they reached a server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ServerInfo {
    /// The server's version.
    #[schema(example = "0.1.0")]
    pub version: String,
    /// Which optional LangGraph Agent Server features this server has.
    pub flags: ServerFlags,
}

/// Optional LangGraph Agent Server features.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ServerFlags {
    /// The assistants API.
    pub assistants: bool,
    /// Scheduled runs.
    pub crons: bool,
    /// LangSmith tracing.
    pub langsmith: bool,
}

/// `GET /api/ok`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Liveness {
    /// Always true when the server answers.
    pub ok: bool,
}
