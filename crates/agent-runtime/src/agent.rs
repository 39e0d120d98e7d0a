//! The agent loop: system prompt with the skills section → stream the model → run the tool
//! calls (concurrently, results in call order) → repeat, until a reply without tool calls,
//! the model-call limit, a hook stopping the run, or cancellation. Every step is streamed to
//! the run's event log and saved as a checkpoint.

use antler_protocol::messages::{
    AiMessage, AiMessageChunk, InvalidToolCall, Message, ToolCall, ToolCallChunk, UsageMetadata,
};
use antler_protocol::runs::{RunStatus, StopReason};
use antler_protocol::stream::{MessageMetadata, MessagePart, Node, StreamEvent, StreamMode};
use antler_skills::Snapshot;
use antler_store::Store;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::config::AgentConfig;
use crate::hooks::{AgentState, Flow, Hook, Services, tool_message};
use crate::messages::{new_id, to_openai};
use crate::model::{Completion, Delta, ModelClient, ModelError, ModelEvent};
use crate::prompt::system_prompt;
use crate::runs::log::EventLog;
use crate::tools::{self, Effect, SandboxHandle, ToolEnv, ToolOutput};

/// Everything one run needs.
pub struct AgentRun<'a> {
    /// The run.
    pub run_id: &'a str,
    /// Its thread.
    pub thread_id: &'a str,
    /// Persistence.
    pub store: &'a Store,
    /// Where events go.
    pub log: &'a EventLog,
    /// Cancellation (Stop, disconnect, timeout).
    pub cancel: &'a CancellationToken,
    /// The model; `None` fails the run with a clear message.
    pub model: Option<&'a ModelClient>,
    /// The thread's sandbox.
    pub sandbox: &'a SandboxHandle,
    /// The catalog at run start.
    pub skills: &'a Snapshot,
    /// Limits.
    pub cfg: &'a AgentConfig,
    /// Character budget of the skills section.
    pub prompt_budget: usize,
    /// The hook pipeline.
    pub hooks: &'a [Box<dyn Hook>],
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// `success`, `error` or `interrupted` (the manager turns a deadline into `timeout`).
    pub status: RunStatus,
    /// Why.
    pub stop_reason: StopReason,
    /// Error message for `error`.
    pub error: Option<String>,
}

impl Outcome {
    /// An ending with `status` for `stop_reason`.
    pub fn stop(status: RunStatus, stop_reason: StopReason, error: Option<String>) -> Self {
        Outcome {
            status,
            stop_reason,
            error,
        }
    }

    /// Stopped by cancellation.
    pub fn interrupted() -> Self {
        Outcome::stop(RunStatus::Interrupted, StopReason::Cancelled, None)
    }

    /// A failure with a message.
    fn failed(message: String) -> Self {
        Outcome::stop(RunStatus::Error, StopReason::Error, Some(message))
    }
}

/// What a model call streamed before it stopped.
#[derive(Default)]
struct Partial {
    id: String,
    text: String,
}

impl AgentRun<'_> {
    fn services(&self) -> Services<'_> {
        Services {
            run_id: self.run_id,
            thread_id: self.thread_id,
            log: self.log,
            model: self.model,
            cfg: self.cfg,
            cancel: self.cancel,
        }
    }

    fn metadata(&self, node: Node, step: u64) -> MessageMetadata {
        MessageMetadata {
            run_id: self.run_id.to_string(),
            thread_id: self.thread_id.to_string(),
            langgraph_node: node,
            langgraph_step: step,
            langgraph_checkpoint_ns: String::new(),
            ls_model_name: self.model.map(|m| m.config().model.clone()),
        }
    }

    fn emit_values(&self, state: &AgentState) {
        self.log.emit(&StreamEvent::Values(&state.values));
    }

    async fn save(&self, state: &AgentState) -> Result<(), String> {
        self.store
            .state
            .save(
                self.thread_id,
                &state.values.to_value(),
                antler_protocol::threads::ThreadStatus::Busy,
                Some(self.run_id),
            )
            .await
            .map(|_| ())
            .map_err(|e| {
                tracing::error!(run.id = self.run_id, error = %e, "thread state could not be saved");
                "the thread's state could not be saved".to_string()
            })
    }

    /// Runs the loop on `state` (which already holds the thread's earlier messages).
    pub async fn run(&self, state: &mut AgentState, input: Vec<Message>) -> Outcome {
        state.values.messages.extend(input);
        if let Err(e) = self.save(state).await {
            return Outcome::failed(e);
        }
        self.emit_values(state);
        let outcome = self.steps(state).await;
        let svc = self.services();
        if outcome.status == RunStatus::Success {
            for hook in self.hooks {
                hook.after_run(state, &svc).await;
            }
        } else {
            for hook in self.hooks {
                hook.after_stop(state, &svc);
            }
        }
        self.emit_values(state);
        outcome
    }

    async fn steps(&self, state: &mut AgentState) -> Outcome {
        let Some(model) = self.model else {
            return Outcome::failed("No model is configured. Set ANTLER_MODEL_BASE_URL and ANTLER_MODEL (and OPENAI_API_KEY), or add `models` to the configuration.".into());
        };
        let system = system_prompt(&self.skills.prompt_section(self.prompt_budget));
        let tool_defs = tools::schema::definitions();
        let svc = self.services();
        loop {
            if self.cancel.is_cancelled() {
                return Outcome::interrupted();
            }
            if state.usage.model_calls >= u64::from(self.cfg.max_model_calls) {
                return Outcome::stop(
                    RunStatus::Error,
                    StopReason::ModelCallLimit,
                    Some(format!(
                        "The run reached its limit of {} model calls.",
                        self.cfg.max_model_calls
                    )),
                );
            }
            for hook in self.hooks {
                hook.before_model(state, &svc);
            }
            state.step += 1;
            state.usage.model_calls += 1;
            let request = to_openai(&system, &state.values.messages);
            let mut partial = Partial::default();
            let completion = match self
                .call_model(model, request, tool_defs.clone(), state.step, &mut partial)
                .await
            {
                Ok(c) => c,
                Err(ModelError::Cancelled) => {
                    self.keep_partial(state, partial).await;
                    return Outcome::interrupted();
                }
                Err(e) => {
                    // The partial answer is dropped: the history stays valid for the next run.
                    return Outcome::failed(e.to_string());
                }
            };
            let ai = self.ai_message(&completion, state);
            let has_calls = !ai.tool_calls.is_empty() || !ai.invalid_tool_calls.is_empty();
            state.values.messages.push(Message::Ai(ai.clone()));
            if self.log.wants(StreamMode::Updates) {
                self.log.emit(&StreamEvent::Updates(
                    Node::Agent,
                    &state.values.messages[state.values.messages.len() - 1..],
                ));
            }
            if let Err(e) = self.save(state).await {
                return Outcome::failed(e);
            }
            self.emit_values(state);
            for hook in self.hooks {
                if let Flow::Stop {
                    status,
                    stop_reason,
                    error,
                } = hook.after_model(state, &svc)
                {
                    // Calls that will not run still need results to keep the history valid.
                    crate::messages::repair_dangling_tool_calls(&mut state.values.messages);
                    let _ = self.save(state).await;
                    self.emit_values(state);
                    return Outcome::stop(status, stop_reason, error);
                }
            }
            if !has_calls {
                return Outcome::stop(RunStatus::Success, StopReason::Completed, None);
            }
            state.step += 1;
            let effects = self.run_tools(&ai, state).await;
            // One checkpoint per step: saved after the hooks that may add to it.
            for hook in self.hooks {
                if let Flow::Stop {
                    status,
                    stop_reason,
                    error,
                } = hook.after_tools(state, &svc, &effects)
                {
                    let _ = self.save(state).await;
                    self.emit_values(state);
                    return Outcome::stop(status, stop_reason, error);
                }
            }
            if let Err(e) = self.save(state).await {
                return Outcome::failed(e);
            }
            self.emit_values(state);
            if self.cancel.is_cancelled() {
                return Outcome::interrupted();
            }
        }
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
        if self.save(state).await.is_ok() {
            self.emit_values(state);
        }
    }

    /// Streams one model call into `messages` events; returns the complete answer. The text
    /// streamed so far is kept in `partial` for a call that does not finish.
    async fn call_model(
        &self,
        model: &ModelClient,
        request: Vec<Value>,
        tool_defs: Vec<Value>,
        step: u64,
        partial: &mut Partial,
    ) -> Result<(Completion, String), ModelError> {
        let svc = self.services();
        let on_retry = |notice: crate::model::RetryNotice| {
            for hook in self.hooks {
                hook.on_model_retry(&svc, &notice);
            }
        };
        let mut rx = model
            .stream(request, tool_defs, None, self.cancel, &on_retry)
            .await?;
        let id = new_id();
        partial.id.clone_from(&id);
        let metadata = self.metadata(Node::Agent, step);
        // Token chunks cost a serialisation each: skipped when no client asked for them.
        let wants_tokens = self.log.wants(StreamMode::Messages);
        while let Some(event) = rx.recv().await {
            match event? {
                ModelEvent::Delta(delta) => {
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
                    let mut last = AiMessageChunk {
                        kind: "AIMessageChunk".into(),
                        id: id.clone(),
                        ..Default::default()
                    };
                    last.response_metadata
                        .insert("finish_reason".into(), json!(done.turn.finish_reason));
                    last.usage_metadata = done.usage.map(|u| UsageMetadata {
                        input_tokens: u.prompt_tokens,
                        output_tokens: u.completion_tokens,
                        total_tokens: u.total_tokens,
                    });
                    self.log
                        .emit(&StreamEvent::Messages(MessagePart::Chunk(&last), &metadata));
                    return Ok((done, id));
                }
            }
        }
        Err(ModelError::Incomplete(
            "the model stream ended without an answer".into(),
        ))
    }

    fn ai_message(&self, (done, id): &(Completion, String), state: &mut AgentState) -> AiMessage {
        let turn = &done.turn;
        let mut tool_calls = Vec::new();
        let mut invalid = Vec::new();
        for call in &turn.tool_calls {
            let id = if call.id.is_empty() {
                new_id()
            } else {
                call.id.clone()
            };
            match serde_json::from_str::<Value>(if call.arguments.trim().is_empty() {
                "{}"
            } else {
                &call.arguments
            }) {
                Ok(args @ Value::Object(_)) => tool_calls.push(ToolCall {
                    name: call.name.clone(),
                    args,
                    id,
                    kind: "tool_call".into(),
                }),
                Ok(other) => invalid.push(InvalidToolCall {
                    name: call.name.clone(),
                    args: call.arguments.clone(),
                    id,
                    error: format!("arguments must be a JSON object, not {other}"),
                    kind: "invalid_tool_call".into(),
                }),
                Err(e) => invalid.push(InvalidToolCall {
                    name: call.name.clone(),
                    args: call.arguments.clone(),
                    id,
                    error: format!("invalid JSON: {e}"),
                    kind: "invalid_tool_call".into(),
                }),
            }
        }
        let mut kwargs = Map::new();
        if !turn.reasoning.is_empty() {
            kwargs.insert("reasoning_content".into(), json!(turn.reasoning));
        }
        if !turn.refusal.is_empty() {
            kwargs.insert("refusal".into(), json!(turn.refusal));
        }
        let mut meta = Map::new();
        meta.insert("finish_reason".into(), json!(turn.finish_reason));
        if let Some(m) = &done.model {
            meta.insert("model_name".into(), json!(m));
        }
        let usage = done.usage.map(|u| UsageMetadata {
            input_tokens: u.prompt_tokens,
            output_tokens: u.completion_tokens,
            total_tokens: u.total_tokens,
        });
        if let Some(u) = usage {
            state.usage.input_tokens += u.input_tokens;
            state.usage.output_tokens += u.output_tokens;
        }
        let content = if turn.content.is_empty() && !turn.refusal.is_empty() {
            turn.refusal.clone()
        } else {
            turn.content.clone()
        };
        AiMessage {
            id: id.clone(),
            content,
            tool_calls,
            invalid_tool_calls: invalid,
            additional_kwargs: kwargs,
            response_metadata: meta,
            usage_metadata: usage,
        }
    }

    /// Runs every call of `ai` concurrently; appends results in call order.
    async fn run_tools(&self, ai: &AiMessage, state: &mut AgentState) -> Vec<Effect> {
        let env = ToolEnv {
            sandbox: self.sandbox,
            skills: self.skills,
            cfg: self.cfg,
            cancel: self.cancel,
        };
        let valid = ai.tool_calls.iter().map(|call| {
            let env = &env;
            async move {
                let out = match tools::execute(&call.name, &call.args, env).await {
                    Ok(out) => out,
                    Err(message) => self.tool_error(&call.name, &message),
                };
                (call.id.clone(), call.name.clone(), out)
            }
        });
        let mut results = futures::future::join_all(valid).await;
        results.extend(ai.invalid_tool_calls.iter().map(|call| {
            let message = format!(
                "the arguments of this {} call are not valid ({}). Call it again with a JSON object matching its schema.",
                call.name, call.error
            );
            (call.id.clone(), call.name.clone(), self.tool_error(&call.name, &message))
        }));
        let metadata = self.metadata(Node::Tools, state.step);
        let mut effects = Vec::new();
        let mut messages = Vec::new();
        for (id, name, out) in results {
            let msg = Message::Tool(tool_message(&id, &name, &out));
            self.log.emit(&StreamEvent::Messages(
                MessagePart::Message(&msg),
                &metadata,
            ));
            messages.push(msg.clone());
            state.values.messages.push(msg);
            if let Effect::Present(paths) = &out.effect {
                for p in paths {
                    if !state.values.artifacts.contains(p) {
                        state.values.artifacts.push(p.clone());
                    }
                }
            }
            effects.push(out.effect);
        }
        self.log.emit(&StreamEvent::Updates(Node::Tools, &messages));
        effects
    }

    fn tool_error(&self, tool: &str, message: &str) -> ToolOutput {
        self.hooks
            .iter()
            .find_map(|h| h.on_tool_error(tool, message))
            .unwrap_or_else(|| ToolOutput::error(message))
    }
}

/// A streamed fragment as a LangChain chunk.
fn chunk(id: &str, delta: Delta) -> AiMessageChunk {
    let mut c = AiMessageChunk {
        kind: "AIMessageChunk".into(),
        id: id.to_string(),
        ..Default::default()
    };
    match delta {
        Delta::Content(t) | Delta::Refusal(t) => c.content = t,
        Delta::Reasoning(t) => {
            c.additional_kwargs
                .insert("reasoning_content".into(), json!(t));
        }
        Delta::ToolCall {
            index,
            id,
            name,
            arguments,
        } => c.tool_call_chunks.push(ToolCallChunk {
            name,
            args: Some(arguments),
            id,
            index,
            kind: "tool_call_chunk".into(),
        }),
    }
    c
}
