//! OpenAI Chat Completions: the request (`reasoning_effort`, `max_completion_tokens`) and the
//! stream decoder over [`Accumulator`].

use eventsource_stream::Event;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use super::decode::Accumulator;
use super::http::StreamDecoder;
use super::options::CallOptions;
use super::wire::ChatChunk;
use super::{Completion, Delta, ModelError};
use crate::config::{MaxTokensField, ModelConfig};

/// A request body: its fields, and the tools written from the registry's shared
/// definitions (not copied into `fields` for every call).
#[derive(Debug, Serialize)]
pub(crate) struct Body {
    #[serde(flatten)]
    fields: Value,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Arc<Value>>,
}

/// The request body: the agent's messages as they are, less the Anthropic-only
/// `thinking_blocks` of assistant messages.
pub(crate) fn request(
    cfg: &ModelConfig,
    mut messages: Vec<Value>,
    tools: Vec<Arc<Value>>,
    options: CallOptions,
) -> Body {
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
    Body {
        fields: body,
        tools,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared tool definitions are written into the body as `tools`, beside its other
    /// fields; a call without tools sends no `tools` field (some servers refuse `[]`).
    #[test]
    fn the_body_carries_the_shared_tools_and_no_empty_list() {
        let cfg = ModelConfig::default();
        let messages = vec![json!({"role": "assistant", "content": "x", "thinking_blocks": []})];
        let def = Arc::new(json!({"type": "function", "function": {"name": "bash"}}));
        let body = request(
            &cfg,
            messages.clone(),
            vec![def.clone()],
            CallOptions::default(),
        );
        let sent = serde_json::to_value(&body).unwrap_or_default();
        assert_eq!(sent["tools"], json!([*def]));
        assert_eq!(sent["stream"], json!(true));
        assert_eq!(
            sent["messages"],
            json!([{"role": "assistant", "content": "x"}])
        );
        let bare = request(&cfg, messages, Vec::new(), CallOptions::default());
        let sent = serde_json::to_value(&bare).unwrap_or_default();
        assert!(sent.get("tools").is_none(), "{sent}");
        assert_eq!(sent["model"], json!(cfg.model));
    }
}
