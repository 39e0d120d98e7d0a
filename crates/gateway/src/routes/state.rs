//! `/api/threads/{thread_id}/state…` and `…/history`: a thread's checkpoints (a tree of
//! branches) and `update_state`, as the LangGraph Agent Server has them.

use antler_protocol::error::ErrorEnvelope;
use antler_protocol::runs::{
    CheckpointSelector, HistoryRequest, StateAtCheckpoint, StateUpdated, ThreadState,
    ThreadStateUpdate,
};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;

use crate::error::{ApiResult, AppError};
use crate::extract::{ApiJson, ApiPath};
use crate::params::ThreadId;
use crate::state::{AppState, Identity};

/// The thread's current state.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/state",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id")),
    responses(
        (status = 200, description = "The state", body = ThreadState),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
    )
)]
pub async fn get_state(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
) -> ApiResult<Json<ThreadState>> {
    Ok(Json(app.runs.state(&caller, &thread_id).await?))
}

/// Earlier states of the thread, newest first.
#[utoipa::path(
    post,
    path = "/api/threads/{thread_id}/history",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id")),
    request_body = HistoryRequest,
    responses(
        (status = 200, description = "States, newest first: at most `limit`, and no more than `threads.history_max_bytes` of them (always at least one); page on with `before`", body = Vec<ThreadState>),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id or body", body = ErrorEnvelope),
    )
)]
pub async fn get_history(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiJson(body): ApiJson<HistoryRequest>,
) -> ApiResult<Json<Vec<ThreadState>>> {
    let before = body
        .before
        .as_ref()
        .and_then(CheckpointSelector::checkpoint_id);
    let states = app
        .runs
        .history(&caller, &thread_id, body.limit.unwrap_or(10), before)
        .await?;
    Ok(Json(states))
}

/// `{thread_id}` and `{checkpoint_id}` of a checkpoint's path.
#[derive(Debug, Deserialize)]
pub struct CheckpointPath {
    /// The thread (validated by [`ThreadId`]).
    #[expect(dead_code, reason = "validated by the ThreadId extractor")]
    thread_id: String,
    /// The checkpoint.
    checkpoint_id: String,
}

/// The thread's state at one checkpoint.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/state/{checkpoint_id}",
    tag = "runs",
    params(
        ("thread_id" = String, Path, description = "Thread id"),
        ("checkpoint_id" = String, Path, description = "Checkpoint id"),
    ),
    responses(
        (status = 200, description = "The state", body = ThreadState),
        (status = 404, description = "No such thread or checkpoint", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
    )
)]
pub async fn get_state_at(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiPath(path): ApiPath<CheckpointPath>,
) -> ApiResult<Json<ThreadState>> {
    Ok(Json(
        app.runs
            .state_at(&caller, &thread_id, &path.checkpoint_id)
            .await?,
    ))
}

/// The thread's state at a checkpoint given in the body (as the LangGraph SDKs send a
/// checkpoint object).
#[utoipa::path(
    post,
    path = "/api/threads/{thread_id}/state/checkpoint",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id")),
    request_body = StateAtCheckpoint,
    responses(
        (status = 200, description = "The state", body = ThreadState),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such thread or checkpoint", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id or body", body = ErrorEnvelope),
    )
)]
pub async fn post_state_at(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiJson(body): ApiJson<StateAtCheckpoint>,
) -> ApiResult<Json<ThreadState>> {
    let Some(id) = body.checkpoint.checkpoint_id() else {
        return Err(AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_checkpoint",
            "checkpoint must name a checkpoint_id",
        ));
    };
    Ok(Json(app.runs.state_at(&caller, &thread_id, id).await?))
}

/// Adds a checkpoint with changed values (LangGraph's `update_state`): messages are added
/// or replaced by id, the title replaced; `values: null` copies the checkpoint as a new
/// branch. 409 while a run works on the thread.
#[utoipa::path(
    post,
    path = "/api/threads/{thread_id}/state",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id")),
    request_body = ThreadStateUpdate,
    responses(
        (status = 200, description = "The new checkpoint", body = StateUpdated),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such thread or checkpoint", body = ErrorEnvelope),
        (status = 409, description = "A run is in progress", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id or values", body = ErrorEnvelope),
        (status = 429, description = "The caller's conversations are over their storage quota (`storage_quota_exceeded`)", body = ErrorEnvelope),
    )
)]
pub async fn update_state(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiJson(body): ApiJson<ThreadStateUpdate>,
) -> ApiResult<Json<StateUpdated>> {
    Ok(Json(
        app.runs.update_state(&caller, &thread_id, body).await?,
    ))
}
