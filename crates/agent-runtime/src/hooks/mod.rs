//! The hooks around model and tool calls, as one explicit ordered list ([`pipeline`]), one
//! file per hook.

mod clarification;
mod dangling;
mod loop_detection;
mod retry_events;
mod title;

pub use clarification::Clarification;
pub use dangling::DanglingToolCallRepair;
pub use loop_detection::LoopDetection;
pub use retry_events::LlmRetryEvents;
pub use title::TitleGeneration;

use antler_protocol::runs::{RunStatus, StopReason};
use async_trait::async_trait;

use crate::agent::AgentState;
use crate::config::AgentConfig;
use crate::model::{ModelClient, RetryNotice};
use crate::runs::log::EventLog;
use crate::tools::Effect;

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
        Box::new(LoopDetection {
            warn_at: 3,
            stop_at: 5,
        }),
        Box::new(Clarification),
        Box::new(TitleGeneration),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pipeline_is_ordered() {
        let names: Vec<&str> = pipeline().iter().map(|h| h.name()).collect();
        assert_eq!(
            names,
            [
                "dangling_tool_call_repair",
                "llm_retry",
                "loop_detection",
                "clarification",
                "title_generation"
            ]
        );
    }
}
