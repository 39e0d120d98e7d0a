//! What the agent loop works on during one run.

use std::collections::HashMap;

use antler_protocol::runs::RunUsage;
use antler_protocol::threads::ThreadValues;

use crate::checkpoints::Head;

/// The run's view of its thread plus its own counters.
#[derive(Debug, Default)]
pub struct AgentState {
    /// Messages, title, artifacts.
    pub values: ThreadValues,
    /// The newest checkpoint of the run's branch, which the next one continues.
    pub head: Head,
    /// The values as last saved (the run's end saves only what changed after).
    pub saved: Option<serde_json::Value>,
    /// The run's MCP tools.
    pub mcp: super::McpTools,
    /// Counters.
    pub usage: RunUsage,
    /// Model calls and tool rounds so far.
    pub step: u64,
    /// How often each exact set of tool calls was made in this run.
    pub call_signatures: HashMap<String, u32>,
    /// The signature of the latest model answer's tool calls.
    pub last_signature: Option<String>,
}
