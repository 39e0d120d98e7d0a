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
    /// The image new sandboxes start from (Docker only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_image: Option<SandboxImage>,
    /// Degradations an operator should know about (empty when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The sandbox image in use, as the engine describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SandboxImage {
    /// The configured reference.
    #[schema(example = "antler-sandbox:full")]
    pub name: String,
    /// The engine's image id.
    #[schema(example = "sha256:4f1c…")]
    pub id: String,
    /// `slim` or `full` for the project's images (their `antler.sandbox.variant` label),
    /// absent for another image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "full")]
    pub variant: Option<String>,
    /// What it holds, as its `antler.sandbox.contents` label says (the full image has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contents: Option<String>,
    /// Its size in bytes.
    pub size_bytes: u64,
    /// When it was built (RFC 3339), when the engine says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
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
