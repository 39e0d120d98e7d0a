//! Tool calls left without a result get one before the next model call.

use super::{Hook, Services};
use crate::agent::AgentState;
use crate::langchain::repair_dangling_tool_calls;

/// A tool call without a result (a run cancelled mid-tool) gets an "interrupted" result
/// before the next model call.
pub struct DanglingToolCallRepair;

impl Hook for DanglingToolCallRepair {
    fn name(&self) -> &'static str {
        "dangling_tool_call_repair"
    }

    fn before_model(&self, state: &mut AgentState, svc: &Services<'_>) {
        let added = repair_dangling_tool_calls(&mut state.values.messages);
        if added > 0 {
            tracing::info!(run.id = svc.run_id, added, "repaired dangling tool calls");
        }
    }
}
