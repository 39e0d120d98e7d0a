//! `/api/threads/{thread_id}/state…` and `…/history`: a thread's checkpoints (a tree of
//! branches) and `update_state`, as the LangGraph Agent Server has them.

use antler_protocol::error::ErrorEnvelope;
use antler_protocol::runs::{
    HistoryRequest, StateAtCheckpoint, StateUpdated, ThreadState, ThreadStateUpdate,
};
use antler_protocol::threads::PatchState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;

use crate::error::{ApiResult, AppError};
use crate::extract::{ApiJson, ApiListQuery, ApiPath};
use crate::params::ThreadId;
use crate::state::{AppState, Identity};

/// `GET …/state` query, as the LangGraph SDKs send it.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StateQuery {
    /// Accepted and ignored (there are no subgraphs): `true` or `false`.
    #[serde(default, deserialize_with = "crate::params::optional_query_flag")]
    pub subgraphs: Option<bool>,
    /// Answer only these fields (`values`, `next`, `tasks`, `checkpoint`, `metadata`,
    /// `created_at`, `parent_checkpoint`, `interrupts`, or `values.<key>`); repeated for
    /// several.
    #[serde(default)]
    #[param(style = Form, explode)]
    pub select: Vec<String>,
}

/// The thread's current state.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/state",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id"), StateQuery),
    responses(
        (status = 200, description = "The state (only the `select`ed fields when given)", body = ThreadState),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id or select", body = ErrorEnvelope),
    )
)]
pub async fn get_state(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiListQuery(q): ApiListQuery<StateQuery>,
) -> ApiResult<Json<serde_json::Value>> {
    Ok(Json(
        app.runs
            .state_selected(&caller, &thread_id, None, Some(&q.select))
            .await?,
    ))
}

/// Merges metadata into the thread's newest checkpoint's metadata (LangGraph's
/// `patch_state`; `checkpoint`/`checkpoint_id` name another checkpoint; a `null` value
/// removes the key). The values stay as they are; no checkpoint is added.
#[utoipa::path(
    patch,
    path = "/api/threads/{thread_id}/state",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id")),
    request_body = PatchState,
    responses(
        (status = 204, description = "Patched"),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such thread or checkpoint (or the thread has none yet)", body = ErrorEnvelope),
        (status = 409, description = "A run is in progress", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id or body", body = ErrorEnvelope),
    )
)]
pub async fn patch_state(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiJson(body): ApiJson<PatchState>,
) -> ApiResult<StatusCode> {
    app.runs.patch_state(&caller, &thread_id, body).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Earlier states of the thread, newest first.
#[utoipa::path(
    post,
    path = "/api/threads/{thread_id}/history",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id")),
    request_body = HistoryRequest,
    responses(
        (status = 200, description = "States, newest first: at most `limit`, and no more than `threads.history_max_bytes` of them (always at least one); page on with `before`. `metadata` filters by checkpoint metadata, `checkpoint` starts at a checkpoint (inclusive), `select` keeps only some fields", body = Vec<ThreadState>),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such thread or checkpoint", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id, select or body", body = ErrorEnvelope),
    )
)]
pub async fn get_history(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiJson(body): ApiJson<HistoryRequest>,
) -> ApiResult<Json<Vec<serde_json::Value>>> {
    Ok(Json(
        app.runs.history_selected(&caller, &thread_id, body).await?,
    ))
}

/// `GET /api/threads/{thread_id}/history` query.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// Most states returned (default 10; larger pages are cut to 1000).
    pub limit: Option<u32>,
    /// Only states before this checkpoint id.
    pub before: Option<String>,
}

/// Earlier states of the thread, newest first (the query form of `POST …/history`).
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/history",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id"), HistoryQuery),
    responses(
        (status = 200, description = "States, newest first: at most `limit`, and no more than `threads.history_max_bytes` of them (always at least one); page on with `before`", body = Vec<ThreadState>),
        (status = 400, description = "Invalid query", body = ErrorEnvelope),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
    )
)]
pub async fn get_history_query(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    crate::extract::ApiQuery(q): crate::extract::ApiQuery<HistoryQuery>,
) -> ApiResult<Json<Vec<ThreadState>>> {
    let before = q.before.as_deref().filter(|b| !b.is_empty());
    let states = app
        .runs
        .history(&caller, &thread_id, q.limit.unwrap_or(10), before)
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
        StateQuery,
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
    ApiListQuery(q): ApiListQuery<StateQuery>,
) -> ApiResult<Json<serde_json::Value>> {
    Ok(Json(
        app.runs
            .state_selected(
                &caller,
                &thread_id,
                Some(&path.checkpoint_id),
                Some(&q.select),
            )
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
) -> ApiResult<Json<serde_json::Value>> {
    let Some(id) = body.checkpoint.checkpoint_id() else {
        return Err(AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_checkpoint",
            "checkpoint must name a checkpoint_id",
        ));
    };
    Ok(Json(
        app.runs
            .state_selected(&caller, &thread_id, Some(id), body.select.as_deref())
            .await?,
    ))
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
