//! `ask_clarification` ends the run.

use antler_protocol::runs::{RunStatus, StopReason};

use super::{Flow, Hook, Services};
use crate::agent::AgentState;
use crate::tools::Effect;

/// `ask_clarification` ends the run; its question stays as the tool message the UI renders.
pub struct Clarification;

impl Hook for Clarification {
    fn name(&self) -> &'static str {
        "clarification"
    }

    fn after_tools(
        &self,
        _state: &mut AgentState,
        _svc: &Services<'_>,
        effects: &[Effect],
    ) -> Flow {
        if effects.contains(&Effect::Clarify) {
            return Flow::Stop {
                status: RunStatus::Success,
                stop_reason: StopReason::Clarification,
                error: None,
            };
        }
        Flow::Continue
    }
}
