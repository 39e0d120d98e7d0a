//! Anthropic's streamed Messages events into deltas and, at the end, a [`Completion`]:
//! text, `tool_use` with `input_json_delta`, `thinking` with its signature, redacted
//! thinking, the stop reason and usage (cache reads and writes included).

use std::collections::BTreeMap;

use eventsource_stream::Event;
use serde_json::{Value, json};

use crate::model::decode::AssembledCall;
use crate::model::http::StreamDecoder;
use crate::model::wire::Usage;
use crate::model::{Completion, Delta, ModelError, Turn};

/// A content block as it streams.
#[derive(Debug)]
enum Block {
    Text,
    Tool(u32),
    Thinking { text: String, signature: String },
    Redacted(Value),
    Other,
}

/// Accumulates one streamed message.
#[derive(Debug, Default)]
pub struct Decoder {
    turn: Turn,
    blocks: BTreeMap<u64, Block>,
    calls: BTreeMap<u32, AssembledCall>,
    /// Input counts from `message_start` (input, cache read, cache write).
    input: (u64, u64, u64),
    output: u64,
    seen_usage: bool,
    model: Option<String>,
    stopped: bool,
}

/// `stop_reason` as a Chat Completions `finish_reason`.
pub fn finish_reason(stop: &str) -> String {
    match stop {
        "tool_use" => "tool_calls",
        "end_turn" | "stop_sequence" | "pause_turn" => "stop",
        "max_tokens" => "length",
        "refusal" => "content_filter",
        other => other,
    }
    .to_string()
}

/// The HTTP-like status of an error event's type (what a status answer would have been).
fn error_status(kind: &str) -> u16 {
    match kind {
        "overloaded_error" => 529,
        "rate_limit_error" => 429,
        "api_error" => 500,
        "authentication_error" => 401,
        "permission_error" => 403,
        "not_found_error" => 404,
        "request_too_large" => 413,
        _ => 400,
    }
}

impl Decoder {
    /// Takes one event's JSON; answers what it added and whether the message is complete.
    pub fn push_json(&mut self, data: &Value) -> Result<(Vec<Delta>, bool), ModelError> {
        let mut out = Vec::new();
        match data["type"].as_str().unwrap_or("") {
            "message_start" => {
                let m = &data["message"];
                self.model = m["model"].as_str().map(str::to_owned);
                self.read_usage(&m["usage"]);
            }
            "content_block_start" => {
                let index = data["index"].as_u64().unwrap_or(0);
                let b = &data["content_block"];
                let block = match b["type"].as_str().unwrap_or("") {
                    "text" => {
                        self.text(b["text"].as_str().unwrap_or(""), &mut out);
                        Block::Text
                    }
                    "tool_use" => {
                        let n = u32::try_from(self.calls.len()).unwrap_or(u32::MAX);
                        let call = AssembledCall {
                            id: b["id"].as_str().unwrap_or("").into(),
                            name: b["name"].as_str().unwrap_or("").into(),
                            arguments: String::new(),
                        };
                        out.push(Delta::ToolCall {
                            index: n,
                            id: Some(call.id.clone()),
                            name: Some(call.name.clone()),
                            arguments: String::new(),
                        });
                        self.calls.insert(n, call);
                        Block::Tool(n)
                    }
                    "thinking" => {
                        let text = b["thinking"].as_str().unwrap_or("").to_string();
                        if !text.is_empty() {
                            self.turn.reasoning.push_str(&text);
                            out.push(Delta::Reasoning(text.clone()));
                        }
                        Block::Thinking {
                            text,
                            signature: b["signature"].as_str().unwrap_or("").into(),
                        }
                    }
                    "redacted_thinking" => Block::Redacted(b.clone()),
                    _ => Block::Other,
                };
                self.blocks.insert(index, block);
            }
            "content_block_delta" => {
                let index = data["index"].as_u64().unwrap_or(0);
                let d = &data["delta"];
                let piece = |k: &str| d[k].as_str().unwrap_or("").to_string();
                match (
                    d["type"].as_str().unwrap_or(""),
                    self.blocks.get_mut(&index),
                ) {
                    ("text_delta", _) => self.text(&piece("text"), &mut out),
                    ("input_json_delta", Some(Block::Tool(n))) => {
                        let n = *n;
                        let json = piece("partial_json");
                        if let Some(call) = self.calls.get_mut(&n) {
                            call.arguments.push_str(&json);
                        }
                        if !json.is_empty() {
                            out.push(Delta::ToolCall {
                                index: n,
                                id: None,
                                name: None,
                                arguments: json,
                            });
                        }
                    }
                    ("thinking_delta", Some(Block::Thinking { text, .. })) => {
                        let t = piece("thinking");
                        text.push_str(&t);
                        self.turn.reasoning.push_str(&t);
                        if !t.is_empty() {
                            out.push(Delta::Reasoning(t));
                        }
                    }
                    ("signature_delta", Some(Block::Thinking { signature, .. })) => {
                        signature.push_str(&piece("signature"));
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = data["index"].as_u64().unwrap_or(0);
                match self.blocks.remove(&index) {
                    Some(Block::Thinking { text, signature }) => self.turn.thinking_blocks.push(
                        json!({"type": "thinking", "thinking": text, "signature": signature}),
                    ),
                    Some(Block::Redacted(b)) => self.turn.thinking_blocks.push(b),
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(stop) = data["delta"]["stop_reason"].as_str() {
                    self.turn.finish_reason = finish_reason(stop);
                }
                self.read_usage(&data["usage"]);
            }
            "message_stop" => {
                self.stopped = true;
                return Ok((out, true));
            }
            "error" => {
                let e = &data["error"];
                let kind = e["type"].as_str().unwrap_or("error");
                return Err(ModelError::Status {
                    status: error_status(kind),
                    message: format!(
                        "{kind}: {}",
                        e["message"]
                            .as_str()
                            .unwrap_or("the stream reported an error")
                    ),
                });
            }
            // `ping` and events added later.
            _ => {}
        }
        Ok((out, false))
    }

    fn text(&mut self, text: &str, out: &mut Vec<Delta>) {
        if !text.is_empty() {
            self.turn.content.push_str(text);
            out.push(Delta::Content(text.to_string()));
        }
    }

    /// `message_start` carries the input counts; `message_delta` the output so far (and,
    /// in newer versions, the input counts again).
    fn read_usage(&mut self, u: &Value) {
        if !u.is_object() {
            return;
        }
        self.seen_usage = true;
        let n = |k: &str| u[k].as_u64();
        if let Some(i) = n("input_tokens") {
            self.input.0 = i;
        }
        if let Some(r) = n("cache_read_input_tokens") {
            self.input.1 = r;
        }
        if let Some(w) = n("cache_creation_input_tokens") {
            self.input.2 = w;
        }
        if let Some(o) = n("output_tokens") {
            self.output = o;
        }
    }

    /// The usage in the provider-neutral shape: prompt = input + cache reads + cache writes.
    pub fn usage(&self) -> Option<Usage> {
        self.seen_usage.then(|| {
            let (input, read, write) = self.input;
            let prompt = input + read + write;
            Usage {
                prompt_tokens: prompt,
                completion_tokens: self.output,
                total_tokens: prompt + self.output,
                cached_tokens: read,
                cache_write_tokens: write,
                reasoning_tokens: 0,
            }
        })
    }

    /// The answer; an error unless the stream reached `message_stop` with a stop reason.
    pub fn into_completion(mut self) -> Result<Completion, ModelError> {
        if !self.stopped || self.turn.finish_reason.is_empty() {
            return Err(ModelError::Incomplete(
                "the model stream closed before the answer was complete (no message_stop)".into(),
            ));
        }
        let usage = self.usage();
        self.turn.tool_calls = std::mem::take(&mut self.calls).into_values().collect();
        Ok(Completion {
            turn: self.turn,
            usage,
            model: self.model,
        })
    }
}

impl StreamDecoder for Decoder {
    fn push(&mut self, event: &Event) -> Result<(Vec<Delta>, bool), ModelError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok((Vec::new(), false));
        }
        let value: Value =
            serde_json::from_str(data).map_err(|e| ModelError::Decode(e.to_string()))?;
        self.push_json(&value)
    }

    fn finish(self) -> Result<Completion, ModelError> {
        self.into_completion()
    }
}
