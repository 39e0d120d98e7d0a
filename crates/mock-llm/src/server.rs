//! The HTTP side: `POST /v1/chat/completions` (streaming or not), `GET /v1/models`,
//! `GET /_requests` (what was received, for assertions) and `DELETE /_requests`.

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

struct Shared {
    script: Script,
    requests: Mutex<Vec<Value>>,
    /// Failures served per request fingerprint (for `error.times`).
    failures: Mutex<HashMap<u64, u32>>,
}

/// The router serving `script`.
pub fn router(script: Script) -> Router {
    let shared = Arc::new(Shared {
        script,
        requests: Mutex::new(Vec::new()),
        failures: Mutex::new(HashMap::new()),
    });
    Router::new()
        .route("/v1/chat/completions", post(completions))
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

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn error(status: StatusCode, message: &str) -> Response {
    (
        status,
        Json(json!({"error": {"message": message, "type": "invalid_request_error"}})),
    )
        .into_response()
}

fn text_of(content: &Value) -> String {
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
    {
        let mut recorded = lock(&s.requests);
        if recorded.len() >= MAX_RECORDED {
            recorded.remove(0);
        }
        recorded.push(body.clone());
    }
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
    if let Some(err) = &turn.error {
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
        if err.times.is_none_or(|times| served <= times) {
            let status =
                StatusCode::from_u16(err.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut response = (
                status,
                err.body.clone().unwrap_or_else(|| {
                    json!({"error": {"message": "scripted failure", "type": "server_error"}})
                        .to_string()
                }),
            )
                .into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            if let Some(after) = err.retry_after
                && let Ok(v) = HeaderValue::from_str(&after.to_string())
            {
                response.headers_mut().insert(header::RETRY_AFTER, v);
            }
            return response;
        }
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

fn finish_reason(turn: &Turn) -> String {
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
    json!({"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens, "total_tokens": u.prompt_tokens + u.completion_tokens})
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
fn fragments(text: &str, size: usize) -> Vec<String> {
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
    let delay = Duration::from_millis(turn.chunk_delay_ms.unwrap_or(options.chunk_delay_ms));
    let chunks = chunks(turn, model, size, include_usage);
    let cut_after = turn.cut_after;
    let body = futures::stream::unfold(
        (chunks.into_iter(), 0usize, false),
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
            match it.next() {
                Some(chunk) => Some((
                    Ok(Bytes::from(format!("data: {chunk}\n\n"))),
                    (it, n + 1, false),
                )),
                None => Some((
                    Ok(Bytes::from_static(b"data: [DONE]\n\n")),
                    (it, n + 1, true),
                )),
            }
        },
    );
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
