//! What flows between the hub, its connections and its callers: tools, call results,
//! progress, and the status the API shows.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// A tool as its server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInfo {
    /// Its MCP name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// The JSON Schema of its arguments.
    pub input_schema: Value,
}

/// One part of a call's result.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// Text.
    Text(String),
    /// An image, base64.
    Image {
        /// Its MIME type.
        mime_type: String,
        /// Base64 of its bytes.
        data: String,
    },
    /// A resource: its text when it has one.
    Resource {
        /// Its URI.
        uri: String,
        /// Its text, if textual.
        text: Option<String>,
        /// Its MIME type.
        mime_type: Option<String>,
    },
    /// Anything else (audio, links), described.
    Other(String),
}

/// A call's result.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    /// Its parts.
    pub content: Vec<Content>,
    /// The tool failed (`isError`): the model should read why.
    pub is_error: bool,
}

/// A progress notification of a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far.
    pub progress: f64,
    /// Out of (when known).
    pub total: Option<f64>,
    /// What it is doing.
    pub message: Option<String>,
}

/// Why a call or a connection failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// No such tool (or server) now.
    #[error("{0}")]
    Unknown(String),
    /// The server could not be reached or started; the message says why.
    #[error("{0}")]
    Unavailable(String),
    /// The call took longer than allowed.
    #[error("{0}")]
    Timeout(String),
    /// The call was cancelled (the run stopped).
    #[error("the call was cancelled")]
    Cancelled,
    /// The server failed the request or broke the protocol.
    #[error("{0}")]
    Failed(String),
}

/// A server's state, as the API shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServerState {
    /// Switched off.
    Disabled,
    /// Not started yet (it starts on first use).
    Idle,
    /// Connected; its tools are offered.
    Connected,
    /// The last start or the connection failed (`last_error`); retried after a pause.
    Failed,
}

/// A tool of a server, as the API shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ToolView {
    /// Its MCP name.
    pub name: String,
    /// The name the model calls it by.
    pub model_name: String,
    /// What it does.
    pub description: String,
    /// The JSON Schema of its arguments.
    #[schema(value_type = Object)]
    pub input_schema: Value,
}

/// A server's status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ServerStatus {
    /// Its name.
    pub name: String,
    /// `stdio`, `streamable_http` or `sse`.
    pub transport: crate::Transport,
    /// What it is for.
    pub description: Option<String>,
    /// Its state.
    pub state: ServerState,
    /// Why it last failed.
    pub last_error: Option<String>,
    /// Started inside each thread's sandbox rather than on the host.
    pub sandboxed: bool,
    /// A sandboxed server: the threads it runs in now.
    pub running_in_threads: usize,
    /// Its tools (those offered: after the allow and deny lists).
    pub tools: Vec<ToolView>,
    /// What is wrong with its tool list (a tool name listed twice: only the first is
    /// offered).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Calls made since the server started.
    pub calls: u64,
    /// Calls that failed.
    pub failed_calls: u64,
}
