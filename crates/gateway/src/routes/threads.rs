//! `/api/threads`: create, read, update metadata, delete, search.

use antler_protocol::error::ErrorEnvelope;
use antler_protocol::threads::{
    CreateThread, IfExists, PatchThread, SearchThreads, SortOrder, Thread,
};
use antler_store::ThreadQuery;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;

use crate::app::AppState;
use crate::app::thread_json;
use crate::error::{ApiResult, AppError};
use crate::extract::ApiJson;
use crate::params::{ThreadId, check_thread_id};

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
    ApiJson(body): ApiJson<CreateThread>,
) -> ApiResult<Json<Thread>> {
    let id = body
        .thread_id
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    check_thread_id(&id)?;
    let raise = body.if_exists == Some(IfExists::Raise);
    let created = app
        .store
        .threads
        .create(app.owner(), &id, body.metadata.unwrap_or_default())
        .await?;
    if !created.created && raise {
        return Err(AppError::conflict(format!("thread '{id}' already exists")));
    }
    app.create_thread_dirs(&id).await?;
    if created.created {
        tracing::info!(thread.id = %id, "thread created");
    }
    Ok(Json(thread_json(created.thread)?))
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
    ThreadId(id): ThreadId,
) -> ApiResult<Json<Thread>> {
    Ok(Json(thread_json(app.require_thread(&id).await?)?))
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
    ThreadId(id): ThreadId,
    ApiJson(body): ApiJson<PatchThread>,
) -> ApiResult<Json<Thread>> {
    let thread = app
        .store
        .threads
        .merge_metadata(app.owner(), &id, body.metadata)
        .await?
        .ok_or_else(|| AppError::not_found(format!("no thread '{id}'")))?;
    Ok(Json(thread_json(thread)?))
}

/// Deletes a thread and all its files.
#[utoipa::path(
    delete,
    path = "/api/threads/{thread_id}",
    tag = "threads",
    params(("thread_id" = String, Path, description = "Thread id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
    )
)]
pub async fn delete_thread(
    State(app): State<AppState>,
    ThreadId(id): ThreadId,
) -> ApiResult<StatusCode> {
    app.require_thread(&id).await?;
    app.runtime.cancel_thread(&id).await;
    app.store.runs.delete_for_thread(&id).await?;
    if !app.store.threads.delete(app.owner(), &id).await? {
        return Err(AppError::not_found(format!("no thread '{id}'")));
    }
    if let Err(error) = app.sandbox.destroy(&id).await {
        tracing::warn!(thread.id = %id, %error, "thread sandbox could not be removed");
    }
    let dirs = app.thread_dirs(&id);
    let data_dir = app.config.data_dir.clone();
    let removed = tokio::task::spawn_blocking(move || {
        antler_sandbox::storage::remove_thread(&dirs, &data_dir)
    })
    .await?;
    if let Err(error) = removed {
        // The record is gone, so the thread is deleted for every client; log the leftover.
        tracing::error!(thread.id = %id, %error, "thread files could not be removed");
    }
    tracing::info!(thread.id = %id, "thread deleted");
    Ok(StatusCode::NO_CONTENT)
}

/// Lists threads, newest first, filtered by metadata.
#[utoipa::path(
    post,
    path = "/api/threads/search",
    tag = "threads",
    request_body = SearchThreads,
    responses(
        (status = 200, description = "Matching threads", body = Vec<Thread>),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid limit, sort or body", body = ErrorEnvelope),
    )
)]
pub async fn search_threads(
    State(app): State<AppState>,
    ApiJson(body): ApiJson<SearchThreads>,
) -> ApiResult<Json<Vec<Thread>>> {
    let invalid = |m: String| AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", m);
    if !(1..=1000).contains(&body.limit) {
        return Err(invalid(format!("limit must be 1-1000, not {}", body.limit)));
    }
    let query = ThreadQuery {
        metadata: body.metadata.unwrap_or_default(),
        status: body.status,
        limit: body.limit,
        offset: body.offset,
        sort: body.sort_by.unwrap_or_default(),
        ascending: body.sort_order == Some(SortOrder::Asc),
    };
    let threads = app.store.threads.search(app.owner(), &query).await?;
    Ok(Json(
        threads
            .into_iter()
            .map(thread_json)
            .collect::<Result<_, _>>()?,
    ))
}
