//! OpenAI Chat Completions: the request (`reasoning_effort`, `max_completion_tokens`) and the
//! stream decoder over [`Accumulator`].

use eventsource_stream::Event;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::decode::Accumulator;
use super::http::StreamDecoder;
use super::options::CallOptions;
use super::wire::ChatChunk;
use super::{Completion, Delta, ModelError};
use crate::config::{MaxTokensField, ModelConfig};

/// The request body: the agent's messages as they are, less the Anthropic-only
/// `thinking_blocks` of assistant messages.
pub(crate) fn request(
    cfg: &ModelConfig,
    mut messages: Vec<Value>,
    tools: Vec<Value>,
    options: CallOptions,
) -> Value {
    for m in &mut messages {
        if let Some(obj) = m.as_object_mut() {
            obj.remove("thinking_blocks");
        }
    }
    let mut body = json!({
        "model": cfg.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    let effort = options.thinking.effort().filter(|_| cfg.supports_thinking);
    if let Some(effort) = effort {
        body["reasoning_effort"] = json!(effort.as_str());
    }
    if let Some(limit) = options.max_tokens.or(cfg.max_tokens) {
        // Reasoning models refuse `max_tokens`; compatible servers mostly read only it.
        let field =
            if effort.is_some() || cfg.max_tokens_field == MaxTokensField::MaxCompletionTokens {
                "max_completion_tokens"
            } else {
                "max_tokens"
            };
        body[field] = json!(limit);
    }
    if let Some(t) = cfg.temperature {
        body["temperature"] = json!(t);
    }
    body
}

/// `Authorization: Bearer <key>` when a key is configured.
pub(crate) fn headers(key: Option<&str>) -> HeaderMap {
    let mut h = HeaderMap::new();
    if let Some(v) = key.and_then(|k| HeaderValue::from_str(&format!("Bearer {k}")).ok()) {
        h.insert(AUTHORIZATION, v);
    }
    h
}

/// Chunks until `[DONE]` (or the end of the body).
#[derive(Debug, Default)]
pub(crate) struct Decoder(Accumulator);

impl StreamDecoder for Decoder {
    fn push(&mut self, event: &Event) -> Result<(Vec<Delta>, bool), ModelError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            return Ok((Vec::new(), true));
        }
        if data.is_empty() {
            return Ok((Vec::new(), false));
        }
        let chunk: ChatChunk =
            serde_json::from_str(data).map_err(|e| ModelError::Decode(e.to_string()))?;
        Ok((self.0.push(chunk), false))
    }

    fn finish(self) -> Result<Completion, ModelError> {
        let usage = self.0.usage;
        let model = self.0.model.clone();
        let turns = self
            .0
            .finish()
            .map_err(|e| ModelError::Incomplete(e.to_string()))?;
        let turn = turns.into_iter().next().unwrap_or_default();
        Ok(Completion { turn, usage, model })
    }
}
