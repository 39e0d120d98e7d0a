//! The hooks around model and tool calls, as one explicit ordered list ([`pipeline`]).

use std::collections::HashMap;

use antler_protocol::messages::{Message, ToolMessage};
use antler_protocol::runs::{RunStatus, RunUsage, StopReason};
use antler_protocol::stream::{CustomEvent, StreamEvent};
use antler_protocol::threads::ThreadValues;
use async_trait::async_trait;
use serde_json::json;

use crate::config::AgentConfig;
use crate::messages::repair_dangling_tool_calls;
use crate::model::{ModelClient, RetryNotice};
use crate::prompt::TITLE_SYSTEM;
use crate::runs::log::EventLog;
use crate::tools::{Effect, ToolOutput};

/// What the loop works on.
#[derive(Debug, Default)]
pub struct AgentState {
    /// Messages, title, artifacts.
    pub values: ThreadValues,
    /// Counters.
    pub usage: RunUsage,
    /// Model calls and tool rounds so far.
    pub step: u64,
    /// How often each exact set of tool calls was made in this run.
    pub call_signatures: HashMap<String, u32>,
    /// The signature of the latest model answer's tool calls.
    pub last_signature: Option<String>,
}

/// What hooks may use.
pub struct Services<'a> {
    /// The run.
    pub run_id: &'a str,
    /// Its thread.
    pub thread_id: &'a str,
    /// Where events go.
    pub log: &'a EventLog,
    /// The model (absent when none is configured).
    pub model: Option<&'a ModelClient>,
    /// Limits.
    pub cfg: &'a AgentConfig,
    /// Cancellation of the run.
    pub cancel: &'a tokio_util::sync::CancellationToken,
}

/// How the run goes on after a hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flow {
    /// Next step.
    Continue,
    /// End the run.
    Stop {
        /// Final status.
        status: RunStatus,
        /// Why.
        stop_reason: StopReason,
        /// Error message, when it failed.
        error: Option<String>,
    },
}

/// A hook; every method has a no-op default.
#[async_trait]
pub trait Hook: Send + Sync {
    /// For logs.
    fn name(&self) -> &'static str;
    /// Before each model call.
    fn before_model(&self, _state: &mut AgentState, _svc: &Services<'_>) {}
    /// A model call is about to be retried.
    fn on_model_retry(&self, _svc: &Services<'_>, _notice: &RetryNotice) {}
    /// After the model answered (its message is the last one).
    fn after_model(&self, _state: &mut AgentState, _svc: &Services<'_>) -> Flow {
        Flow::Continue
    }
    /// A tool call failed; may turn the failure into a result for the model.
    fn on_tool_error(&self, _tool: &str, _message: &str) -> Option<ToolOutput> {
        None
    }
    /// After the tools ran (their messages are the last ones).
    fn after_tools(
        &self,
        _state: &mut AgentState,
        _svc: &Services<'_>,
        _effects: &[Effect],
    ) -> Flow {
        Flow::Continue
    }
    /// After a run that ended normally.
    async fn after_run(&self, _state: &mut AgentState, _svc: &Services<'_>) {}
    /// After a run that failed or was stopped (the model may be unusable or cancelled).
    fn after_stop(&self, _state: &mut AgentState, _svc: &Services<'_>) {}
}

/// The pipeline, in order.
pub fn pipeline() -> Vec<Box<dyn Hook>> {
    vec![
        Box::new(DanglingToolCallRepair),
        Box::new(LlmRetryEvents),
        Box::new(ToolErrorsToModel),
        Box::new(LoopDetection {
            warn_at: 3,
            stop_at: 5,
        }),
        Box::new(Clarification),
        Box::new(TitleGeneration),
    ]
}

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

/// Each retry of a model call becomes a `custom` `llm_retry` event.
pub struct LlmRetryEvents;

impl Hook for LlmRetryEvents {
    fn name(&self) -> &'static str {
        "llm_retry"
    }

    fn on_model_retry(&self, svc: &Services<'_>, n: &RetryNotice) {
        svc.log.emit(&StreamEvent::Custom(&CustomEvent::LlmRetry {
            attempt: n.attempt,
            max_retries: n.max_retries,
            delay_ms: u64::try_from(n.delay.as_millis()).unwrap_or(u64::MAX),
            reason: n.reason.clone(),
        }));
    }
}

/// A failed tool call becomes `Error: …` for the model, never a crash.
pub struct ToolErrorsToModel;

impl Hook for ToolErrorsToModel {
    fn name(&self) -> &'static str {
        "tool_errors"
    }

    fn on_tool_error(&self, _tool: &str, message: &str) -> Option<ToolOutput> {
        Some(ToolOutput::error(message))
    }
}

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

/// After the first exchange, a short model call names the thread; the first user message
/// (shortened) is the fallback.
pub struct TitleGeneration;

/// Longest title kept.
const TITLE_CHARS: usize = 60;

fn shorten(text: &str, chars: usize) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() <= chars {
        return line.to_string();
    }
    let cut: String = line.chars().take(chars.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

#[async_trait]
impl Hook for TitleGeneration {
    fn name(&self) -> &'static str {
        "title_generation"
    }

    async fn after_run(&self, state: &mut AgentState, svc: &Services<'_>) {
        let Some(first_user) = untitled(state, svc) else {
            return;
        };
        let reply = state.values.messages.iter().rev().find_map(|m| match m {
            Message::Ai(a) if !a.content.is_empty() => Some(a.content.clone()),
            _ => None,
        });
        let mut title = None;
        if let Some(model) = svc.model {
            let prompt = format!(
                "User: {}\nAssistant: {}",
                shorten(&first_user, 500),
                reply
                    .as_deref()
                    .map(|r| shorten(r, 500))
                    .unwrap_or_default()
            );
            let request = vec![
                json!({"role": "system", "content": TITLE_SYSTEM}),
                json!({"role": "user", "content": prompt}),
            ];
            let call = model.complete(request, Some(32), svc.cancel);
            match tokio::time::timeout(std::time::Duration::from_secs(20), call).await {
                Ok(Ok(done)) => {
                    let clean = shorten(
                        done.turn.content.trim().trim_matches(['"', '\'', '.', ' ']),
                        TITLE_CHARS,
                    );
                    if !clean.is_empty() {
                        title = Some(clean);
                    }
                }
                Ok(Err(e)) => {
                    tracing::info!(run.id = svc.run_id, error = %e, "title call failed; using the first message")
                }
                Err(_) => tracing::info!(
                    run.id = svc.run_id,
                    "title call timed out; using the first message"
                ),
            }
        }
        set_title(
            state,
            svc,
            title.unwrap_or_else(|| shorten(&first_user, 50)),
        );
    }

    /// A failed or stopped first run still names the conversation, after its first message.
    fn after_stop(&self, state: &mut AgentState, svc: &Services<'_>) {
        if let Some(first_user) = untitled(state, svc) {
            set_title(state, svc, shorten(&first_user, 50));
        }
    }
}

/// The first user message of a thread that should get a title and has none.
fn untitled(state: &AgentState, svc: &Services<'_>) -> Option<String> {
    if !svc.cfg.generate_titles || state.values.title.is_some() {
        return None;
    }
    state.values.messages.iter().find_map(|m| match m {
        Message::Human(h) if !h.content.trim().is_empty() => Some(h.content.clone()),
        _ => None,
    })
}

fn set_title(state: &mut AgentState, svc: &Services<'_>, title: String) {
    svc.log.emit(&StreamEvent::Custom(&CustomEvent::Title {
        title: title.clone(),
    }));
    state.values.title = Some(title);
}

/// A tool result message.
pub fn tool_message(call_id: &str, name: &str, out: &ToolOutput) -> ToolMessage {
    ToolMessage {
        id: crate::messages::new_id(),
        content: out.content.clone(),
        tool_call_id: call_id.to_string(),
        name: Some(name.to_string()),
        status: if out.is_error { "error" } else { "success" }.into(),
        artifact: out.artifact.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_one_short_line() {
        assert_eq!(shorten("  \nHello world\nsecond", 50), "Hello world");
        let long = "word ".repeat(30);
        let s = shorten(&long, 20);
        assert!(s.chars().count() <= 20 && s.ends_with('…'), "{s}");
    }

    #[test]
    fn the_pipeline_is_ordered() {
        let names: Vec<&str> = pipeline().iter().map(|h| h.name()).collect();
        assert_eq!(
            names,
            [
                "dangling_tool_call_repair",
                "llm_retry",
                "tool_errors",
                "loop_detection",
                "clarification",
                "title_generation"
            ]
        );
    }
}
