//! Loop detection: the same tool calls again and again.

use antler_protocol::messages::Message;
use antler_protocol::runs::{RunStatus, StopReason};
use antler_protocol::stream::{CustomEvent, StreamEvent};

use super::{Flow, Hook, Services};
use crate::agent::AgentState;
use crate::tools::Effect;

/// The same tool calls again and again: a warning to the model at `warn_at`, the run stops
/// at `stop_at`.
pub struct LoopDetection {
    /// Occurrences that trigger a warning.
    pub warn_at: u32,
    /// Occurrences that stop the run.
    pub stop_at: u32,
}

impl LoopDetection {
    fn signature(state: &AgentState) -> Option<String> {
        let Some(Message::Ai(ai)) = state.values.messages.last() else {
            return None;
        };
        if ai.tool_calls.is_empty() && ai.invalid_tool_calls.is_empty() {
            return None;
        }
        let mut parts: Vec<String> = ai
            .tool_calls
            .iter()
            .map(|c| format!("{}:{}", c.name, c.args))
            .chain(
                ai.invalid_tool_calls
                    .iter()
                    .map(|c| format!("{}:{}", c.name, c.args)),
            )
            .collect();
        parts.sort();
        Some(parts.join("|"))
    }
}

impl Hook for LoopDetection {
    fn name(&self) -> &'static str {
        "loop_detection"
    }

    fn after_model(&self, state: &mut AgentState, svc: &Services<'_>) -> Flow {
        state.last_signature = Self::signature(state);
        let Some(sig) = state.last_signature.clone() else {
            return Flow::Continue;
        };
        let count = {
            let n = state.call_signatures.entry(sig).or_insert(0);
            *n += 1;
            *n
        };
        if count >= self.stop_at {
            svc.log
                .emit(&StreamEvent::Custom(&CustomEvent::LoopDetected {
                    repeats: count,
                }));
            return Flow::Stop {
                status: RunStatus::Error,
                stop_reason: StopReason::LoopDetected,
                error: Some(format!(
                    "The agent made the same tool calls {count} times and was stopped. Rephrase the request or try another approach."
                )),
            };
        }
        Flow::Continue
    }

    fn after_tools(&self, state: &mut AgentState, svc: &Services<'_>, _effects: &[Effect]) -> Flow {
        let Some(sig) = &state.last_signature else {
            return Flow::Continue;
        };
        let count = state.call_signatures.get(sig).copied().unwrap_or(0);
        if count >= self.warn_at
            && let Some(Message::Tool(last)) = state.values.messages.last_mut()
        {
            last.content.push_str(&format!(
                "\n\n[Warning: you have made exactly these tool calls {count} times in this run. \
                 Stop repeating them: change your approach or answer with what you have.]"
            ));
            svc.log
                .emit(&StreamEvent::Custom(&CustomEvent::LoopWarning {
                    repeats: count,
                }));
        }
        Flow::Continue
    }
}
