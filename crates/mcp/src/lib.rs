//! Model Context Protocol servers as the agent's tools: their configuration, the names the
//! model sees, and (through `rmcp`) the connections and their lifecycle.

pub mod client;
pub mod config;
pub mod env;
pub mod hub;
pub mod launch;
pub mod names;
mod slot;
pub mod sse;
pub mod types;
pub mod view;

pub use config::{McpConfig, ServerConfig, ToolSearchConfig, Transport};
pub use hub::{Connection, Connector, McpHub, OfferedTool};
pub use launch::{Launched, Launcher};
pub use types::{CallResult, Content, McpError, Progress, ServerState, ServerStatus, ToolInfo};
