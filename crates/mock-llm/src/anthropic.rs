//! Anthropic's Messages API, scripted: `POST /v1/messages` (streaming) answers from the same
//! script as the OpenAI format. With `thinking` enabled a turn's `reasoning` comes as a
//! `thinking` block signed by the mock, which checks on later requests that the block came
//! back unchanged (a failure is recorded for `/_failures` and answered 400, as Anthropic
//! does). Usage reports cache reads and writes ([`crate::cache`]) when the request sets
//! `cache_control`.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::script::Turn;
use crate::server::{
    Shared, finish_reason, fragments, lock, record, scripted_error, stream_frames, text_of,
};

/// The signature the mock gives a thinking text.
pub fn signature(thinking: &str) -> String {
    let mut h = DefaultHasher::new();
    "antler-mock-thinking".hash(&mut h);
    thinking.hash(&mut h);
    format!("mocksig-{:016x}", h.finish())
}

fn error(status: StatusCode, kind: &str, message: &str) -> Response {
    (
        status,
        Json(json!({"type": "error", "error": {"type": kind, "message": message}})),
    )
        .into_response()
}

fn invalid(message: &str) -> Response {
    error(StatusCode::BAD_REQUEST, "invalid_request_error", message)
}

/// A user turn holding something the person wrote (not only tool results).
fn is_person(m: &Value) -> bool {
    m["role"] == "user"
        && match &m["content"] {
            Value::String(_) => true,
            Value::Array(blocks) => blocks.iter().any(|b| b["type"] == "text"),
            _ => false,
        }
}

fn person_text(m: &Value) -> String {
    match &m["content"] {
        Value::Array(blocks) => text_of(&Value::Array(
            blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .cloned()
                .collect(),
        )),
        other => text_of(other),
    }
}

/// Checks the thinking blocks sent back: each signature must be the one the mock gave.
fn check_thinking(messages: &[Value]) -> Result<(), String> {
    for (i, m) in messages.iter().enumerate() {
        for b in m["content"].as_array().into_iter().flatten() {
            if b["type"] == "thinking" {
                let text = b["thinking"].as_str().unwrap_or("");
                if b["signature"].as_str() != Some(signature(text).as_str()) {
                    return Err(format!(
                        "messages.{i}: invalid signature in thinking block (the block was changed or its signature lost)"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `POST /v1/messages`.
pub(crate) async fn messages(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    record(&s, &body);
    if !headers.contains_key("anthropic-version") {
        return invalid("anthropic-version: header is required");
    }
    let Some(max_tokens) = body["max_tokens"].as_u64() else {
        return invalid("max_tokens: Field required");
    };
    let thinking = body["thinking"]["type"] == "enabled";
    if thinking && body["thinking"]["budget_tokens"].as_u64().unwrap_or(0) >= max_tokens {
        return invalid("max_tokens must be greater than thinking.budget_tokens");
    }
    if body["stream"].as_bool() != Some(true) {
        return invalid("the mock scripts streaming requests only (stream: true)");
    }
    let Some(messages) = body["messages"].as_array() else {
        return invalid("messages: Field required");
    };
    if messages.iter().any(|m| m["role"] == "system") {
        return invalid("messages: the system prompt goes in the top-level system field");
    }
    if let Err(why) = check_thinking(messages) {
        lock(&s.problems).push(why.clone());
        return invalid(&why);
    }
    let system = match &body["system"] {
        Value::String(t) => t.clone(),
        other => text_of(other),
    };
    let Some(last_user) = messages.iter().rposition(is_person) else {
        return invalid("no user message");
    };
    let turn_index = messages[last_user..]
        .iter()
        .filter(|m| m["role"] == "assistant")
        .count();
    let user_text = person_text(&messages[last_user]);
    let Some(scenario) = s.script.scenario(&system, &user_text) else {
        return invalid(&format!("no scenario matches {user_text:?}"));
    };
    // With thinking on, the turn continuing a tool call must start with its thinking.
    if thinking
        && turn_index > 0
        && scenario.turns[turn_index - 1].reasoning.is_some()
        && let Some(prev) = messages.iter().rev().find(|m| m["role"] == "assistant")
        && prev["content"][0]["type"] != "thinking"
    {
        let why = "the assistant turn before the tool results must start with its thinking block (thinking is enabled)".to_string();
        lock(&s.problems).push(why.clone());
        return invalid(&why);
    }
    let Some(turn) = scenario.turns.get(turn_index) else {
        return invalid(&format!(
            "scenario {:?} has no turn {turn_index}",
            scenario.matches
        ));
    };
    let default_error = |status: u16| {
        let (kind, message) = match status {
            529 => ("overloaded_error", "Overloaded"),
            429 => ("rate_limit_error", "Rate limited"),
            401 => ("authentication_error", "invalid x-api-key"),
            s if s >= 500 => ("api_error", "Internal server error"),
            _ => ("invalid_request_error", "scripted failure"),
        };
        json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
    };
    let status = turn.error.as_ref().map_or(500, |e| e.status);
    if let Some(response) = scripted_error(&s, turn, &body, turn_index, || default_error(status)) {
        return response;
    }
    // Without breakpoints nothing is read or written: all input is plain.
    let cached = crate::cache::usage(&body, &mut lock(&s.cache));
    let model = body["model"]
        .as_str()
        .unwrap_or(&s.script.options.model)
        .to_string();
    let size = turn.chunk_size.unwrap_or(s.script.options.chunk_size);
    let frames = events(turn, &model, size, thinking, cached);
    stream_frames(frames, turn, &s.script.options)
}

fn frame(data: &Value) -> String {
    format!(
        "event: {}\ndata: {data}\n\n",
        data["type"].as_str().unwrap_or("")
    )
}

fn stop_reason(turn: &Turn) -> String {
    match finish_reason(turn).as_str() {
        "tool_calls" => "tool_use",
        "stop" => "end_turn",
        "length" => "max_tokens",
        other => other,
    }
    .to_string()
}

/// The events of a streamed turn, in the order Anthropic documents.
fn events(
    turn: &Turn,
    model: &str,
    size: usize,
    thinking: bool,
    cached: crate::cache::CacheUsage,
) -> Vec<String> {
    let mut input = cached.input;
    if let Some(u) = turn.usage {
        input = u.prompt_tokens.saturating_sub(cached.read + cached.write);
    }
    let mut out = vec![frame(&json!({
        "type": "message_start",
        "message": {
            "id": "msg_mock", "type": "message", "role": "assistant", "content": [],
            "model": model, "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input, "cache_creation_input_tokens": cached.write,
                      "cache_read_input_tokens": cached.read, "output_tokens": 1},
        },
    }))];
    out.push(frame(&json!({"type": "ping"})));
    let mut index = 0u32;
    let mut written = String::new();
    let mut block = |start: Value, deltas: Vec<Value>, out: &mut Vec<String>| {
        out.push(frame(
            &json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for d in deltas {
            out.push(frame(
                &json!({"type": "content_block_delta", "index": index, "delta": d}),
            ));
        }
        out.push(frame(
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    };
    if thinking && let Some(r) = &turn.reasoning {
        written.push_str(r);
        let mut deltas: Vec<Value> = fragments(r, size)
            .into_iter()
            .map(|f| json!({"type": "thinking_delta", "thinking": f}))
            .collect();
        deltas.push(json!({"type": "signature_delta", "signature": signature(r)}));
        block(
            json!({"type": "thinking", "thinking": "", "signature": ""}),
            deltas,
            &mut out,
        );
    }
    if thinking && let Some(data) = &turn.redacted_thinking {
        block(
            json!({"type": "redacted_thinking", "data": data}),
            Vec::new(),
            &mut out,
        );
    }
    if let Some(c) = &turn.content {
        written.push_str(c);
        let deltas = fragments(c, size)
            .into_iter()
            .map(|f| json!({"type": "text_delta", "text": f}))
            .collect();
        block(json!({"type": "text", "text": ""}), deltas, &mut out);
    }
    for (i, call) in turn.tool_calls.iter().enumerate() {
        let args = call.arguments_text();
        written.push_str(&args);
        let deltas = fragments(&args, size)
            .into_iter()
            .map(|f| json!({"type": "input_json_delta", "partial_json": f}))
            .collect();
        block(
            json!({"type": "tool_use", "id": format!("toolu_mock_{i}"), "name": call.name, "input": {}}),
            deltas,
            &mut out,
        );
    }
    if let Some(message) = &turn.stream_error {
        out.push(frame(
            &json!({"type": "error", "error": {"type": "overloaded_error", "message": message}}),
        ));
        return out;
    }
    let output = turn
        .usage
        .map_or_else(|| crate::cache::tokens(&written), |u| u.completion_tokens);
    out.push(frame(&json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason(turn), "stop_sequence": null},
        "usage": {"output_tokens": output},
    })));
    out.push(frame(&json!({"type": "message_stop"})));
    out
}
