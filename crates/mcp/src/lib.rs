//! Model Context Protocol servers as the agent's tools: their configuration, the names the
//! model sees, and (through `rmcp`) the connections and their lifecycle.

pub mod config;
pub mod env;
pub mod names;

pub use config::{McpConfig, ServerConfig, ToolSearchConfig, Transport};
