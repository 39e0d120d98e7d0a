//! Model-call retries become `llm_retry` custom events.

use antler_protocol::stream::{CustomEvent, StreamEvent};

use super::{Hook, Services};
use crate::model::RetryNotice;

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
