//! `/api/runs/cancel` and `/api/runs/batch`: cancelling many of the caller's runs at once
//! and starting several runs in one request, as the LangGraph SDKs' `cancelMany` /
//! `cancel_many` and `createBatch` / `create_batch` call them.

use antler_protocol::error::ErrorEnvelope;
use antler_protocol::runs::{CancelAction, CancelRuns, CancelRunsQuery, Run, RunBatchItem};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Map, Value, json};

use crate::error::{ApiResult, AppError};
use crate::extract::{ApiJson, ApiQuery, stream_modes_error};
use crate::state::{AppState, Identity};

/// Cancels runs of the caller: the `run_ids` of `thread_id` (all its pending and running
/// runs without `run_ids`), or every run of theirs in `status` (`pending`, `running`,
/// `all`; narrowed to `thread_id` when given). `action=rollback` also deletes each with
/// its input, checkpoints and events once stopped (files it wrote stay). Runs that ended
/// meanwhile are skipped.
#[utoipa::path(
    post,
    path = "/api/runs/cancel",
    tag = "runs",
    params(("action" = Option<CancelAction>, Query, description = "interrupt (default) or rollback")),
    request_body = CancelRuns,
    responses(
        (status = 204, description = "Cancelled (answered once rolled back, for rollback)"),
        (status = 400, description = "Malformed JSON or query", body = ErrorEnvelope),
        (status = 404, description = "No such thread, or a run id not of that thread", body = ErrorEnvelope),
        (status = 422, description = "Neither thread_id nor status, both status and run_ids, more than 1000 run ids, an invalid id or action", body = ErrorEnvelope),
    )
)]
pub async fn cancel_runs(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiQuery(q): ApiQuery<CancelRunsQuery>,
    ApiJson(body): ApiJson<CancelRuns>,
) -> ApiResult<StatusCode> {
    let action = q.action.unwrap_or(CancelAction::Interrupt);
    app.runs.cancel_many(&caller, body, action).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Starts several runs: each item is a run on `thread_id` (as `POST …/runs` takes it) or,
/// without `thread_id`, a stateless run on a temporary thread. At most 100 items; keys may
/// be camelCase (`threadId`, `streamMode`, …) as the JS SDK's `createBatch` sends them. Every
/// item is checked first (a bad one refuses the batch: 422 or 404 naming its index in the
/// message and `details.index`); a failure while starting (a busy thread, the quota) stops
/// the batch at that item, the runs before it having started.
#[utoipa::path(
    post,
    path = "/api/runs/batch",
    tag = "runs",
    request_body = Vec<RunBatchItem>,
    responses(
        (status = 200, description = "The runs (pending), in the order of the items", body = Vec<Run>),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "An item's thread or assistant does not exist", body = ErrorEnvelope),
        (status = 409, description = "An item's thread has a run in progress and its multitask_strategy is reject", body = ErrorEnvelope),
        (status = 422, description = "Not a list, empty, more than 100 items, or an invalid item", body = ErrorEnvelope),
        (status = 429, description = "The caller's conversations are over their storage quota (`storage_quota_exceeded`), or the caller reached a daily usage limit (`usage_limit_exceeded`, with `Retry-After` and `details.resets_at`)", body = ErrorEnvelope),
    )
)]
pub async fn create_batch(
    State(app): State<AppState>,
    Identity(caller): Identity,
    body: axum::body::Bytes,
) -> ApiResult<Json<Vec<Run>>> {
    let items = parse_batch(&body)?;
    match app.start_batch(&caller, items).await {
        Ok(runs) => Ok(Json(runs)),
        Err(failed) => Err(at_index(failed.index, AppError::from(failed.error))),
    }
}

/// The error of item `index`: its message names the item (an internal error stays as it
/// is: its message says nothing of the input).
fn at_index(index: usize, e: AppError) -> AppError {
    if e.status().is_server_error() {
        return e;
    }
    let mut details = e.details().cloned().unwrap_or_else(|| json!({}));
    if let Value::Object(map) = &mut details {
        map.insert("index".into(), json!(index));
    }
    AppError::new(
        e.status(),
        e.code(),
        format!("item {index}: {}", e.message()),
    )
    .with_details(details)
}

/// Most items of one batch.
const MAX_BATCH: usize = antler_app::run_batch::MAX_BATCH;

/// The batch's items: a JSON list of objects, each read as a run request with its keys in
/// snake_case (a camelCase key is read as its snake_case name).
fn parse_batch(body: &[u8]) -> Result<Vec<RunBatchItem>, AppError> {
    let invalid = |m: String| AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", m);
    let value: Value = serde_json::from_slice(body).map_err(|_| {
        AppError::new(
            StatusCode::BAD_REQUEST,
            "malformed_json",
            "the body is not valid JSON",
        )
    })?;
    let Value::Array(list) = value else {
        return Err(invalid(
            "the body must be a JSON list of run requests".into(),
        ));
    };
    if list.is_empty() || list.len() > MAX_BATCH {
        return Err(invalid(format!(
            "a batch holds 1 to {MAX_BATCH} runs, not {}",
            list.len()
        )));
    }
    list.into_iter()
        .enumerate()
        .map(|(index, item)| {
            let item = snake_keys(item).map_err(|m| at_index(index, invalid(m)))?;
            if let Some(e) = item.get("stream_mode").and_then(stream_modes_error) {
                return Err(at_index(index, e));
            }
            serde_json::from_value::<RunBatchItem>(item).map_err(|e| {
                // serde's account names the field and what it expected; no input is echoed
                // beyond that.
                let reason = e.to_string();
                let shown: String = reason.chars().take(200).collect();
                at_index(index, invalid(shown))
            })
        })
        .collect()
}

/// An item's object with camelCase keys renamed to snake_case; an error when it is not an
/// object or names a key both ways with different values.
fn snake_keys(item: Value) -> Result<Value, String> {
    let Value::Object(map) = item else {
        return Err("each item must be a JSON object (a run request)".into());
    };
    let mut out = Map::with_capacity(map.len());
    for (key, value) in map {
        let snake = to_snake(&key);
        match out.get(&snake) {
            Some(existing) if existing != &value && !value.is_null() && !existing.is_null() => {
                let shown: String = snake.chars().take(60).collect();
                return Err(format!("{shown} is given twice with different values"));
            }
            Some(existing) if !existing.is_null() => {}
            _ => {
                out.insert(snake, value);
            }
        }
    }
    Ok(Value::Object(out))
}

/// `threadId` → `thread_id` (keys already in snake_case stay).
fn to_snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_keys_are_read_as_snake_case_and_conflicts_refused() {
        let item = snake_keys(json!({"threadId": "t", "assistantId": "agent", "assistant_id": "agent", "streamMode": "values"})).unwrap();
        assert_eq!(
            item,
            json!({"thread_id": "t", "assistant_id": "agent", "stream_mode": "values"})
        );
        assert!(snake_keys(json!({"threadId": "a", "thread_id": "b"})).is_err());
        assert!(snake_keys(json!([1])).is_err());
    }

    #[test]
    fn a_bad_item_is_named_by_its_index() {
        let e = parse_batch(br#"[{"assistant_id": "agent"}, {"input": {}}]"#).unwrap_err();
        assert_eq!(e.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert!(e.message().starts_with("item 1: "), "{}", e.message());
        assert_eq!(e.details().unwrap()["index"], 1);
        let e = parse_batch(br#"[{"assistant_id": "agent", "stream_mode": "nope"}]"#).unwrap_err();
        assert_eq!(e.code(), "invalid_stream_mode");
        assert!(parse_batch(b"{}").is_err());
        assert!(parse_batch(b"[]").is_err());
        assert_eq!(
            parse_batch(b"[").unwrap_err().status(),
            StatusCode::BAD_REQUEST
        );
    }
}
