//! What flows between the hub, its connections and its callers: tools, call results,
//! progress, and the status the API shows (a wire type, from `antler_protocol::mcp`).

pub use antler_protocol::mcp::{ServerState, ServerStatus, ToolView};
use serde_json::Value;

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
