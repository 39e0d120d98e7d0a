//! One model call or tool call seen through to its end: its span, its metrics and its step of
//! the run's timeline, from one place so the three always agree.

use std::time::{Duration, Instant};

use antler_protocol::console::{RunStep, RunStepKind, RunStepStatus};
use tracing::Span;
use tracing::field::Empty;

use super::{TARGET, record_content, span_failed};
use crate::config::{ModelConfig, Provider};
use crate::model::{Completion, ModelError};
use crate::tools::{ToolError, ToolOutput};

/// Longest error text a timeline step keeps.
const STEP_ERROR_CHARS: usize = 300;

/// Now, as a step's start: the clock for its duration and the RFC 3339 time it shows.
pub fn step_time() -> (Instant, String) {
    (
        Instant::now(),
        chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    )
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn shortened(text: &str) -> String {
    let mut out: String = text.chars().take(STEP_ERROR_CHARS).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// A model call from its request to its answer.
pub struct ModelCallObserver {
    span: Span,
    model: String,
    started: Instant,
    started_at: String,
    first_token: Option<Duration>,
}

impl ModelCallObserver {
    /// Starts observing a call of `model`; `prompt` (the request's messages) goes on the span
    /// only with `telemetry.record_content`.
    pub fn start(model: &ModelConfig, prompt: &[serde_json::Value]) -> Self {
        let provider = match model.provider {
            Provider::Openai => "openai",
            Provider::Anthropic => "anthropic",
        };
        let span = tracing::info_span!(
            target: TARGET,
            "chat",
            otel.name = format!("chat {}", model.model),
            otel.kind = "client",
            gen_ai.operation.name = "chat",
            gen_ai.provider.name = provider,
            gen_ai.request.model = model.model.as_str(),
            antler.model.name = model.name.as_str(),
            gen_ai.response.model = Empty,
            gen_ai.usage.input_tokens = Empty,
            gen_ai.usage.output_tokens = Empty,
            gen_ai.usage.cached_input_tokens = Empty,
            gen_ai.response.finish_reasons = Empty,
            gen_ai.input.messages = Empty,
            gen_ai.output.messages = Empty,
            error.type = Empty,
            otel.status_code = Empty,
            otel.status_description = Empty,
        );
        if record_content() && !span.is_disabled() {
            span.record(
                "gen_ai.input.messages",
                serde_json::Value::from(prompt.to_vec()).to_string(),
            );
        }
        let (started, started_at) = step_time();
        ModelCallObserver {
            span,
            model: model.name.clone(),
            started,
            started_at,
            first_token: None,
        }
    }

    /// Notes a streamed token; answers the time since the call started the first time.
    pub fn token(&mut self) -> Option<Duration> {
        if self.first_token.is_some() {
            return None;
        }
        let elapsed = self.started.elapsed();
        self.first_token = Some(elapsed);
        Some(elapsed)
    }

    /// The call answered: its span, metrics and step.
    pub fn done(self, completion: &Completion) -> RunStep {
        let usage = completion.usage.unwrap_or_default();
        let finish = completion.turn.finish_reason.clone();
        if let Some(model) = &completion.model {
            self.span.record("gen_ai.response.model", model.as_str());
        }
        self.span
            .record("gen_ai.usage.input_tokens", usage.prompt_tokens);
        self.span
            .record("gen_ai.usage.output_tokens", usage.completion_tokens);
        self.span
            .record("gen_ai.usage.cached_input_tokens", usage.cached_tokens);
        self.span
            .record("gen_ai.response.finish_reasons", finish.as_str());
        if record_content() && !self.span.is_disabled() {
            let output = serde_json::json!([{
                "role": "assistant",
                "content": completion.turn.content,
                "tool_calls": completion.turn.tool_calls.iter()
                    .map(|c| serde_json::json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
                    .collect::<Vec<_>>(),
            }]);
            self.span
                .record("gen_ai.output.messages", output.to_string());
        }
        metrics::counter!("antler_model_tokens_total", "model" => self.model.clone(), "type" => "input")
            .increment(usage.prompt_tokens);
        metrics::counter!("antler_model_tokens_total", "model" => self.model.clone(), "type" => "output")
            .increment(usage.completion_tokens);
        let mut step = self.step(RunStepStatus::Ok, None);
        step.input_tokens = Some(usage.prompt_tokens);
        step.output_tokens = Some(usage.completion_tokens);
        step.finish_reason = Some(finish).filter(|f| !f.is_empty());
        step
    }

    /// The call failed or was stopped: its span, metrics and step.
    pub fn failed(self, error: &ModelError) -> RunStep {
        if matches!(error, ModelError::Cancelled) {
            return self.step(RunStepStatus::Cancelled, None);
        }
        span_failed(&self.span, error.kind());
        self.span
            .record("otel.status_description", error.to_string());
        let message = error.to_string();
        self.step(RunStepStatus::Error, Some(&message))
    }

    fn step(self, status: RunStepStatus, error: Option<&str>) -> RunStep {
        let elapsed = self.started.elapsed();
        metrics::counter!("antler_model_calls_total", "model" => self.model.clone(), "status" => status.as_str())
            .increment(1);
        metrics::histogram!("antler_model_call_duration_seconds", "model" => self.model.clone())
            .record(elapsed.as_secs_f64());
        RunStep {
            kind: RunStepKind::ModelCall,
            name: self.model,
            started_at: self.started_at,
            duration_ms: millis(elapsed),
            status,
            error: error.map(shortened),
            input_tokens: None,
            output_tokens: None,
            finish_reason: None,
            first_token_ms: self.first_token.map(millis),
            tool_call_id: None,
            child_run_id: None,
        }
    }
}

/// A tool call from its start to its result.
pub struct ToolCallObserver {
    span: Span,
    name: String,
    call_id: String,
    started: Instant,
    started_at: String,
}

impl ToolCallObserver {
    /// Starts observing the call `call_id` of the tool `name`.
    pub fn start(name: &str, call_id: &str, args: &serde_json::Value) -> Self {
        let span = tracing::info_span!(
            target: TARGET,
            "execute_tool",
            otel.name = format!("execute_tool {name}"),
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = name,
            gen_ai.tool.call.id = call_id,
            gen_ai.tool.type = if name.starts_with("mcp__") { "extension" } else { "function" },
            gen_ai.tool.call.arguments = Empty,
            gen_ai.tool.call.result = Empty,
            antler.child_run.id = Empty,
            error.type = Empty,
            otel.status_code = Empty,
            otel.status_description = Empty,
        );
        if record_content() && !span.is_disabled() {
            span.record("gen_ai.tool.call.arguments", args.to_string());
        }
        let (started, started_at) = step_time();
        ToolCallObserver {
            span,
            name: name.to_string(),
            call_id: call_id.to_string(),
            started,
            started_at,
        }
    }

    /// The call's span, for the future that makes it.
    pub fn span(&self) -> &Span {
        &self.span
    }

    /// The call ended with `result` (`cancelled`: the run was stopped meanwhile).
    pub fn done(self, result: &Result<ToolOutput, ToolError>, cancelled: bool) -> RunStep {
        let elapsed = self.started.elapsed();
        let error = match result {
            Ok(out) if out.is_error => Some(out.content.as_str()),
            Ok(_) => None,
            Err(ToolError::Model(m) | ToolError::Fatal(m)) => Some(m.as_str()),
        };
        let status = match (error, cancelled) {
            (_, true) => RunStepStatus::Cancelled,
            (Some(_), false) => RunStepStatus::Error,
            (None, false) => RunStepStatus::Ok,
        };
        if let Some(error) = error {
            let kind = if matches!(result, Err(ToolError::Fatal(_))) {
                "fatal"
            } else {
                "tool_error"
            };
            span_failed(&self.span, kind);
            self.span
                .record("otel.status_description", shortened(error));
            metrics::counter!("antler_tool_errors_total", "tool" => self.name.clone()).increment(1);
        }
        if let (true, Ok(out)) = (record_content(), result) {
            self.span
                .record("gen_ai.tool.call.result", out.content.as_str());
        }
        // A `task` call is a subagent's run: its step links to it.
        let task = result
            .as_ref()
            .ok()
            .and_then(|out| out.artifact.as_ref())
            .and_then(|a| a.get("task"));
        let child_run_id = task
            .and_then(|t| t.get("run_id"))
            .and_then(|r| r.as_str())
            .map(str::to_string);
        if let Some(child) = &child_run_id {
            self.span.record("antler.child_run.id", child.as_str());
        }
        metrics::counter!("antler_tool_calls_total", "tool" => self.name.clone(), "status" => status.as_str())
            .increment(1);
        metrics::histogram!("antler_tool_call_duration_seconds", "tool" => self.name.clone())
            .record(elapsed.as_secs_f64());
        let (kind, name) = match task {
            Some(t) => (
                RunStepKind::Subagent,
                t.get("subagent_type")
                    .and_then(|s| s.as_str())
                    .unwrap_or(&self.name)
                    .to_string(),
            ),
            None => (RunStepKind::ToolCall, self.name),
        };
        RunStep {
            kind,
            name,
            started_at: self.started_at,
            duration_ms: millis(elapsed),
            status,
            error: error.map(shortened),
            input_tokens: None,
            output_tokens: None,
            finish_reason: None,
            first_token_ms: None,
            tool_call_id: Some(self.call_id),
            child_run_id,
        }
    }
}
