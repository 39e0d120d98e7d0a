//! `ask_clarification` ends the run.

use antler_protocol::messages::Message;
use antler_protocol::runs::{RunStatus, StopReason};
use serde_json::{Value, json};

use super::{Flow, Hook, Services};
use crate::agent::AgentState;
use crate::tools::Effect;

/// `ask_clarification` ends the run; its question stays as the tool message the UI renders.
pub struct Clarification;

impl Hook for Clarification {
    fn name(&self) -> &'static str {
        "clarification"
    }

    fn after_tools(&self, state: &mut AgentState, _svc: &Services<'_>, effects: &[Effect]) -> Flow {
        if effects.contains(&Effect::Clarify) {
            // Also a LangGraph interrupt, for clients that wait for one (and resume it).
            state.values.interrupts = question(&state.values.messages).into_iter().collect();
            return Flow::Stop {
                status: RunStatus::Success,
                stop_reason: StopReason::Clarification,
                error: None,
            };
        }
        Flow::Continue
    }
}

/// The pending question as an interrupt: the clarification tool result's artifact (question,
/// options, context, type), keyed by its tool call.
fn question(messages: &[Message]) -> Option<Value> {
    messages.iter().rev().find_map(|m| match m {
        Message::Tool(t) if t.name.as_deref() == Some("ask_clarification") => {
            let value = t
                .artifact
                .clone()
                .filter(|a| a.get("question").is_some())
                .unwrap_or_else(|| json!({"question": t.content}));
            Some(json!({"value": value, "id": t.tool_call_id}))
        }
        _ => None,
    })
}
