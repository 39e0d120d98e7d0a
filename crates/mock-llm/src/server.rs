//! The HTTP side: `POST /v1/chat/completions` (streaming or not), `POST /v1/messages`
//! (Anthropic's format, [`crate::anthropic`]), `GET /v1/models`, `GET /_requests` (what was
//! received, for assertions), `DELETE /_requests`, and `GET /_failures` (what the mock found
//! wrong in requests, such as a thinking block changed on its way back).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use serde_json::{Value, json};

use crate::script::{Script, Turn};

/// Most requests remembered for `/_requests`.
const MAX_RECORDED: usize = 2_000;

pub(crate) struct Shared {
    pub(crate) script: Script,
    requests: Mutex<Vec<Value>>,
    /// Failures served per request fingerprint (for `error.times`).
    failures: Mutex<HashMap<u64, u32>>,
    /// What was wrong with requests (checked by tests through `/_failures`).
    pub(crate) problems: Mutex<Vec<String>>,
    /// Anthropic prompt-cache entries: prefix fingerprint → its tokens.
    pub(crate) cache: Mutex<HashMap<u64, u64>>,
}

/// The router serving `script`.
pub fn router(script: Script) -> Router {
    let shared = Arc::new(Shared {
        script,
        requests: Mutex::new(Vec::new()),
        failures: Mutex::new(HashMap::new()),
        problems: Mutex::new(Vec::new()),
        cache: Mutex::new(HashMap::new()),
    });
    Router::new()
        .route("/v1/chat/completions", post(completions))
        .route("/v1/messages", post(crate::anthropic::messages))
        .route("/_failures", get(problems))
        .route("/v1/models", get(models))
        .route("/_requests", get(requests).delete(clear))
        .with_state(shared)
}

async fn models(State(s): State<Arc<Shared>>) -> Json<Value> {
    Json(
        json!({"object": "list", "data": [{"id": s.script.options.model, "object": "model", "owned_by": "antler-mock"}]}),
    )
}

async fn requests(State(s): State<Arc<Shared>>) -> Json<Value> {
    Json(Value::Array(lock(&s.requests).clone()))
}

async fn clear(State(s): State<Arc<Shared>>) -> StatusCode {
    lock(&s.requests).clear();
    StatusCode::NO_CONTENT
}

async fn problems(State(s): State<Arc<Shared>>) -> Json<Value> {
    Json(json!(lock(&s.problems).clone()))
}

/// Remembers a request for `/_requests`.
pub(crate) fn record(s: &Shared, body: &Value) {
    let mut recorded = lock(&s.requests);
    if recorded.len() >= MAX_RECORDED {
        recorded.remove(0);
    }
    recorded.push(body.clone());
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(crate) fn error(status: StatusCode, message: &str) -> Response {
    (
        status,
        Json(json!({"error": {"message": message, "type": "invalid_request_error"}})),
    )
        .into_response()
}

pub(crate) fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

async fn completions(State(s): State<Arc<Shared>>, Json(body): Json<Value>) -> Response {
    record(&s, &body);
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return error(StatusCode::BAD_REQUEST, "messages is required");
    };
    let system = messages
        .iter()
        .filter(|m| m["role"] == "system")
        .map(|m| text_of(&m["content"]))
        .collect::<Vec<_>>()
        .join("\n");
    let Some(last_user) = messages.iter().rposition(|m| m["role"] == "user") else {
        return error(StatusCode::BAD_REQUEST, "no user message");
    };
    let turn_index = messages[last_user..]
        .iter()
        .filter(|m| m["role"] == "assistant")
        .count();
    let user_text = text_of(&messages[last_user]["content"]);
    let Some(scenario) = s.script.scenario(&system, &user_text) else {
        return error(
            StatusCode::BAD_REQUEST,
            &format!("no scenario matches {user_text:?}"),
        );
    };
    let Some(turn) = scenario.turns.get(turn_index) else {
        return error(
            StatusCode::BAD_REQUEST,
            &format!("scenario {:?} has no turn {turn_index}", scenario.matches),
        );
    };
    let default_error =
        || json!({"error": {"message": "scripted failure", "type": "server_error"}}).to_string();
    if let Some(response) = scripted_error(&s, turn, &body, turn_index, default_error) {
        return response;
    }
    let model = body["model"]
        .as_str()
        .unwrap_or(&s.script.options.model)
        .to_string();
    if body["stream"].as_bool() == Some(true) {
        let include_usage = body["stream_options"]["include_usage"].as_bool() == Some(true);
        stream(turn, &s.script.options, &model, include_usage)
    } else {
        Json(whole(turn, &model)).into_response()
    }
}

/// The turn's scripted failure, while it has attempts left to fail.
pub(crate) fn scripted_error(
    s: &Shared,
    turn: &Turn,
    body: &Value,
    turn_index: usize,
    default_body: impl Fn() -> String,
) -> Option<Response> {
    let err = turn.error.as_ref()?;
    let key = {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        body["messages"].to_string().hash(&mut h);
        turn_index.hash(&mut h);
        h.finish()
    };
    let served = {
        let mut failures = lock(&s.failures);
        let n = failures.entry(key).or_insert(0);
        *n += 1;
        *n
    };
    if err.times.is_some_and(|times| served > times) {
        return None;
    }
    let status = StatusCode::from_u16(err.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, err.body.clone().unwrap_or_else(default_body)).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Some(after) = err.retry_after
        && let Ok(v) = HeaderValue::from_str(&after.to_string())
    {
        response.headers_mut().insert(header::RETRY_AFTER, v);
    }
    Some(response)
}

pub(crate) fn finish_reason(turn: &Turn) -> String {
    turn.finish_reason.clone().unwrap_or_else(|| {
        if turn.tool_calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        }
        .into()
    })
}

fn usage(turn: &Turn) -> Value {
    let u = turn.usage.unwrap_or_default();
    let mut out = json!({"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens, "total_tokens": u.prompt_tokens + u.completion_tokens});
    if u.cached_tokens > 0 {
        out["prompt_tokens_details"] = json!({"cached_tokens": u.cached_tokens});
    }
    if u.reasoning_tokens > 0 {
        out["completion_tokens_details"] = json!({"reasoning_tokens": u.reasoning_tokens});
    }
    out
}

fn call_id(i: usize) -> String {
    format!("call_mock_{i}")
}

fn whole(turn: &Turn, model: &str) -> Value {
    let tool_calls: Vec<Value> = turn
        .tool_calls
        .iter()
        .enumerate()
        .map(|(i, c)| json!({"id": call_id(i), "type": "function", "function": {"name": c.name, "arguments": c.arguments_text()}}))
        .collect();
    let mut message = json!({"role": "assistant", "content": turn.content});
    if let Some(r) = &turn.reasoning {
        message["reasoning_content"] = json!(r);
    }
    if !tool_calls.is_empty() {
        message["tool_calls"] = json!(tool_calls);
    }
    json!({
        "id": "chatcmpl-mock", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(turn)}],
        "usage": usage(turn),
    })
}

/// Splits text into fragments of `size` characters.
pub(crate) fn fragments(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(size.max(1))
        .map(|c| c.iter().collect())
        .collect()
}

/// The chunks of a streamed turn, in the order the recorded OpenAI streams use.
fn chunks(turn: &Turn, model: &str, size: usize, include_usage: bool) -> Vec<Value> {
    let chunk = |delta: Value, finish: Option<String>| {
        json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": model,
               "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]})
    };
    let header = |i: usize, call: &crate::script::ToolCall| {
        json!({
            "index": i, "id": call_id(i), "type": "function",
            "function": {"name": call.name, "arguments": ""},
        })
    };
    // As recorded: a text answer opens with an empty content; a single tool call carries its
    // header in the opening chunk, parallel calls open with null content alone.
    let calls_only = turn.reasoning.is_none() && turn.content.is_none();
    let opens_with_call = calls_only && turn.tool_calls.len() == 1;
    let mut out = vec![match turn.tool_calls.first() {
        Some(first) if opens_with_call => chunk(
            json!({"role": "assistant", "content": null, "tool_calls": [header(0, first)], "refusal": null}),
            None,
        ),
        Some(_) if calls_only => chunk(json!({"role": "assistant", "content": null}), None),
        _ => chunk(
            json!({"role": "assistant", "content": "", "refusal": null}),
            None,
        ),
    }];
    if let Some(r) = &turn.reasoning {
        out.extend(
            fragments(r, size)
                .into_iter()
                .map(|f| chunk(json!({"reasoning_content": f}), None)),
        );
    }
    if let Some(c) = &turn.content {
        out.extend(
            fragments(c, size)
                .into_iter()
                .map(|f| chunk(json!({"content": f}), None)),
        );
    }
    for (i, call) in turn.tool_calls.iter().enumerate() {
        if i > 0 || !opens_with_call {
            out.push(chunk(json!({"tool_calls": [header(i, call)]}), None));
        }
        out.extend(
            fragments(&call.arguments_text(), size)
                .into_iter()
                .map(|f| {
                    chunk(
                        json!({"tool_calls": [{"index": i, "function": {"arguments": f}}]}),
                        None,
                    )
                }),
        );
    }
    out.push(chunk(json!({}), Some(finish_reason(turn))));
    if include_usage {
        out.push(json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [], "usage": usage(turn)}));
    }
    out
}

fn stream(
    turn: &Turn,
    options: &crate::script::Options,
    model: &str,
    include_usage: bool,
) -> Response {
    let size = turn.chunk_size.unwrap_or(options.chunk_size);
    let mut frames: Vec<String> = chunks(turn, model, size, include_usage)
        .into_iter()
        .map(|c| format!("data: {c}\n\n"))
        .collect();
    frames.push("data: [DONE]\n\n".into());
    stream_frames(frames, turn, options)
}

/// Sends SSE frames with the turn's pacing, cut where the script says.
pub(crate) fn stream_frames(
    frames: Vec<String>,
    turn: &Turn,
    options: &crate::script::Options,
) -> Response {
    let delay = Duration::from_millis(turn.chunk_delay_ms.unwrap_or(options.chunk_delay_ms));
    let cut_after = turn.cut_after;
    let body = futures::stream::unfold(
        (frames.into_iter(), 0usize, false),
        move |(mut it, n, done)| async move {
            if done {
                return None;
            }
            if cut_after.is_some_and(|cut| n >= cut) {
                // Let what was sent reach the client first: a real cut happens mid-stream.
                tokio::time::sleep(Duration::from_millis(50)).await;
                let cut: Result<Bytes, std::io::Error> =
                    Err(std::io::Error::other("scripted stream cut"));
                return Some((cut, (it, n + 1, true)));
            }
            if !delay.is_zero() && n > 0 {
                tokio::time::sleep(delay).await;
            }
            let frame = it.next()?;
            Some((Ok(Bytes::from(frame)), (it, n + 1, false)))
        },
    );
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
