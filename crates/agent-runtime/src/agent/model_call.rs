//! One model call, streamed into `messages` events as it arrives.

use antler_protocol::messages::{AiMessage, Message};
use antler_protocol::stream::{MessagePart, Node, StreamEvent, StreamMode};
use serde_json::{Map, Value, json};

use super::{AgentRun, AgentState};
use crate::langchain::{ai_message, chunk, final_chunk, new_id};
use crate::model::{
    CallOptions, Completion, Delta, ModelClient, ModelError, ModelEvent, RetryNotice,
};
use crate::telemetry::ModelCallObserver;
use std::sync::Arc;
use std::time::Instant;

/// An agent call: the model's own output limit, thinking as the run chose.
fn call_options(model: &ModelClient) -> CallOptions {
    CallOptions {
        max_tokens: None,
        thinking: model.thinking(),
    }
}

/// What a model call streamed before it stopped.
#[derive(Default)]
struct Partial {
    id: String,
    text: String,
    /// When its first token arrived.
    first_token: Option<Instant>,
}

impl AgentRun<'_> {
    /// Streams one model call; answers the complete AI message (its token counts added to
    /// the run's). A call stopped by cancellation keeps what streamed in the history.
    pub(super) async fn call_model(
        &self,
        model: &ModelClient,
        request: Vec<Value>,
        tool_defs: Vec<Arc<Value>>,
        state: &mut AgentState,
    ) -> Result<AiMessage, ModelError> {
        let mut partial = Partial::default();
        // The span is the run's child from its creation; the call does not run inside it
        // (nothing nests under a model call, and entering it on each streamed chunk would
        // cost every chunk).
        let mut observer = self
            .span
            .in_scope(|| ModelCallObserver::start(model.config(), &request));
        let run_started = state.awaiting_first_token;
        let result = self
            .stream_model(
                model,
                request,
                tool_defs,
                state.step,
                &mut partial,
                &mut observer,
            )
            .await;
        if let (Some(started), Some(first)) = (run_started, partial.first_token) {
            crate::telemetry::first_token(first.duration_since(started).as_secs_f64());
            state.awaiting_first_token = None;
        }
        match result {
            Ok((ai, done)) => {
                state.steps.push(observer.done(&done));
                // Its call was counted when it started (the call limit); tokens and cost now.
                let usage = ai.usage_metadata.as_ref().map(crate::usage::from_metadata);
                let mut call = state.ledger.add(model.config(), usage.as_ref());
                call.model_calls = 0;
                state.usage.add(&call);
                // Stored at once: a server killed later in the run keeps what was spent.
                state
                    .ledger
                    .store(self.store, self.owner, self.run_id, self.thread_id)
                    .await;
                Ok(ai)
            }
            Err(ModelError::Cancelled) => {
                state.steps.push(observer.failed(&ModelError::Cancelled));
                self.keep_partial(state, partial).await;
                Err(ModelError::Cancelled)
            }
            Err(e) => {
                state.steps.push(observer.failed(&e));
                Err(e)
            }
        }
    }

    async fn stream_model(
        &self,
        model: &ModelClient,
        request: Vec<Value>,
        tool_defs: Vec<Arc<Value>>,
        step: u64,
        partial: &mut Partial,
        observer: &mut ModelCallObserver,
    ) -> Result<(AiMessage, Completion), ModelError> {
        let svc = self.services();
        let on_retry = |notice: RetryNotice| {
            for hook in self.hooks() {
                hook.on_model_retry(&svc, &notice);
            }
        };
        let mut rx = model
            .stream(
                request,
                tool_defs,
                call_options(model),
                self.cancel,
                &on_retry,
            )
            .await?;
        let id = new_id();
        partial.id.clone_from(&id);
        let metadata = self.metadata(Node::Agent, step);
        // Token chunks cost a serialisation each: skipped when no client asked for them.
        let wants_tokens = self.log.wants(StreamMode::Messages);
        while let Some(event) = rx.recv().await {
            match event? {
                ModelEvent::Delta(delta) => {
                    if observer.token().is_some() {
                        partial.first_token = Some(Instant::now());
                    }
                    if let Delta::Content(text) = &delta {
                        partial.text.push_str(text);
                    }
                    if wants_tokens {
                        let chunk = chunk(&id, delta);
                        self.log.emit(&StreamEvent::Messages(
                            MessagePart::Chunk(&chunk),
                            &metadata,
                        ));
                    }
                }
                ModelEvent::Done(done) => {
                    let last = final_chunk(&id, &done, model.config());
                    self.log
                        .emit(&StreamEvent::Messages(MessagePart::Chunk(&last), &metadata));
                    let ai = ai_message(&done, &id, model.config());
                    return Ok((ai, done));
                }
            }
        }
        Err(ModelError::Incomplete(
            "the model stream ended without an answer".into(),
        ))
    }

    /// A stopped answer stays in the history as far as it streamed (the person saw it), as
    /// text only: half-streamed tool calls never ran.
    async fn keep_partial(&self, state: &mut AgentState, partial: Partial) {
        if partial.text.trim().is_empty() {
            return;
        }
        let mut response_metadata = Map::new();
        response_metadata.insert("finish_reason".into(), json!("cancelled"));
        state.values.messages.push(Message::Ai(AiMessage {
            id: partial.id,
            content: partial.text,
            response_metadata,
            ..Default::default()
        }));
        let _ = self.checkpoint(state, Node::Agent, 1).await;
    }
}
