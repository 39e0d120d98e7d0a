//! `/api/threads`: create, read, update metadata, delete, search, count, copy, prune.

use antler_protocol::error::ErrorEnvelope;
use antler_protocol::threads::{
    CountThreads, CreateThread, PatchThread, PruneResult, PruneThreads, SearchThreads, Thread,
};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;

use crate::error::ApiResult;
use crate::extract::ApiJson;
use crate::params::ThreadId;
use crate::state::{AppState, Identity};

/// Creates a thread (or returns the existing one with that id).
#[utoipa::path(
    post,
    path = "/api/threads",
    tag = "threads",
    request_body = CreateThread,
    responses(
        (status = 200, description = "The thread (new, or existing with that id)", body = Thread),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 409, description = "The id exists and `if_exists` is `raise`", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id or body", body = ErrorEnvelope),
    )
)]
pub async fn create_thread(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<CreateThread>,
) -> ApiResult<Json<Thread>> {
    Ok(Json(app.threads.create(&caller, body).await?))
}

/// One thread.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}",
    tag = "threads",
    params(("thread_id" = String, Path, description = "Thread id")),
    responses(
        (status = 200, description = "The thread", body = Thread),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
    )
)]
pub async fn get_thread(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(id): ThreadId,
) -> ApiResult<Json<Thread>> {
    Ok(Json(app.threads.get(&caller, &id).await?))
}

/// Merges metadata into a thread (`null` removes a key).
#[utoipa::path(
    patch,
    path = "/api/threads/{thread_id}",
    tag = "threads",
    params(("thread_id" = String, Path, description = "Thread id")),
    request_body = PatchThread,
    responses(
        (status = 200, description = "The updated thread", body = Thread),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id or body", body = ErrorEnvelope),
    )
)]
pub async fn patch_thread(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(id): ThreadId,
    ApiJson(body): ApiJson<PatchThread>,
) -> ApiResult<Json<Thread>> {
    Ok(Json(app.threads.patch(&caller, &id, body.metadata).await?))
}

/// `DELETE /api/threads/{thread_id}` query.
#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DeleteThreadQuery {
    /// Also forget the facts memory learned from this thread.
    pub forget_memory: Option<bool>,
}

/// Deletes a thread and all its files (with `forget_memory=true`, also what memory learned
/// from it).
#[utoipa::path(
    delete,
    path = "/api/threads/{thread_id}",
    tag = "threads",
    params(("thread_id" = String, Path, description = "Thread id"), DeleteThreadQuery),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
    )
)]
pub async fn delete_thread(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(id): ThreadId,
    crate::extract::ApiQuery(q): crate::extract::ApiQuery<DeleteThreadQuery>,
) -> ApiResult<StatusCode> {
    app.threads.delete(&caller, &id).await?;
    if q.forget_memory == Some(true) {
        app.memory.forget_thread(&caller, &id).await?;
    }
    Ok(StatusCode::NO_CONTENT)
}

/// Lists threads, newest first, filtered by metadata, values, status and ids; `select`
/// answers only some fields, `extract` adds `extracted` values read at paths.
#[utoipa::path(
    post,
    path = "/api/threads/search",
    tag = "threads",
    request_body = SearchThreads,
    responses(
        (status = 200, description = "Matching threads (only the `select`ed fields when given; with `extracted` when `extract` is)", body = Vec<Thread>),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid limit, sort, ids, select, extract or body", body = ErrorEnvelope),
    )
)]
pub async fn search_threads(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<SearchThreads>,
) -> ApiResult<Json<Vec<serde_json::Value>>> {
    Ok(Json(app.threads.search_selected(&caller, body).await?))
}

/// Copies a thread: a new thread of the caller with the same metadata, values, checkpoint
/// history (new ids, the same tree) and files. A run in progress on the source is left
/// out: the copy holds the state from before it.
#[utoipa::path(
    post,
    path = "/api/threads/{thread_id}/copy",
    tag = "threads",
    params(("thread_id" = String, Path, description = "The thread to copy")),
    responses(
        (status = 200, description = "The new thread", body = Thread),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
        (status = 429, description = "The caller's conversations are over their storage quota", body = ErrorEnvelope),
    )
)]
pub async fn copy_thread(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(id): ThreadId,
) -> ApiResult<Json<Thread>> {
    Ok(Json(app.copy_thread(&caller, &id).await?))
}

/// Counts the caller's threads matching the filters of a search.
#[utoipa::path(
    post,
    path = "/api/threads/count",
    tag = "threads",
    request_body = CountThreads,
    responses(
        (status = 200, description = "How many threads match", body = u64, content_type = "application/json"),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid body", body = ErrorEnvelope),
    )
)]
pub async fn count_threads(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<CountThreads>,
) -> ApiResult<Json<u64>> {
    Ok(Json(app.threads.count(&caller, body).await?))
}

/// Prunes threads: `delete` deletes them (as `DELETE` does), `keep_latest` keeps each with
/// only its newest checkpoint (threads with a run in progress are skipped). Ids that are not
/// the caller's threads are skipped.
#[utoipa::path(
    post,
    path = "/api/threads/prune",
    tag = "threads",
    request_body = PruneThreads,
    responses(
        (status = 200, description = "How many threads were pruned", body = PruneResult),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id, strategy or more than 1000 ids", body = ErrorEnvelope),
    )
)]
pub async fn prune_threads(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<PruneThreads>,
) -> ApiResult<Json<PruneResult>> {
    let pruned_count = app.threads.prune(&caller, body).await?;
    Ok(Json(PruneResult { pruned_count }))
}
