//! Stateless runs (`POST /api/runs`, `/api/runs/stream`, `/api/runs/wait`): each runs on a
//! temporary thread of the caller that is deleted when the run has ended (unless
//! `on_completion` is `keep`), as LangGraph servers do; and deleting a finished run.

use antler_app::Caller;
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::runs::{Run, RunCreate};
use antler_protocol::threads::ThreadValues;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;

use super::runs::{DisconnectGuard, RunPath, located, sse};
use crate::error::ApiResult;
use crate::extract::ApiPath;
use crate::params::ThreadId;
use crate::state::{AppState, Identity};

/// Starts `body` on a new temporary thread; answers the thread id, the run, and the
/// cleanup to run once the answer is out (none when the thread is kept).
async fn start(
    app: &AppState,
    caller: &Caller,
    body: RunCreate,
) -> ApiResult<(
    String,
    antler_app::Started,
    Option<Box<dyn FnOnce() + Send>>,
)> {
    let run = app.start_stateless(caller, body).await?;
    let then = run
        .cleanup
        .map(|c| Box::new(move || c.after_run()) as Box<dyn FnOnce() + Send>);
    Ok((run.thread_id, run.started, then))
}

/// Starts a stateless run and streams its events (`text/event-stream`), as
/// `/api/threads/{thread_id}/runs/stream` does. Its temporary thread is deleted when the run
/// has ended unless `on_completion` is `keep`.
#[utoipa::path(
    post,
    path = "/api/runs/stream",
    tag = "runs",
    request_body = RunCreate,
    responses(
        (status = 200, description = "The event stream", content_type = "text/event-stream",
            headers(("Content-Location" = String, description = "/api/threads/{thread_id}/runs/{run_id}"))),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such assistant or checkpoint", body = ErrorEnvelope),
        (status = 413, description = "Files in the messages over the upload limits", body = ErrorEnvelope),
        (status = 429, description = "The caller's conversations are over their storage quota (`storage_quota_exceeded`), or the caller reached a daily usage limit (`usage_limit_exceeded`, with `Retry-After` and `details.resets_at`)", body = ErrorEnvelope),
        (status = 422, description = "Invalid input or stream mode", body = ErrorEnvelope),
    )
)]
pub async fn stream_stateless(
    State(app): State<AppState>,
    Identity(caller): Identity,
    crate::extract::RunBody(body): crate::extract::RunBody,
) -> ApiResult<Response> {
    let (thread_id, started, then) = start(&app, &caller, body).await?;
    let run = started.run;
    let guard = DisconnectGuard {
        run: run.on_disconnect_cancel.then(|| run.clone()),
        then,
    };
    let events = app
        .runs
        .events(&thread_id, &run.run_id, 0, run.log.modes().clone());
    Ok(sse(&app, run.run_id.clone(), &thread_id, events, guard))
}

/// Starts a stateless run and answers its thread's values when it has finished.
#[utoipa::path(
    post,
    path = "/api/runs/wait",
    tag = "runs",
    request_body = RunCreate,
    responses(
        (status = 200, description = "The temporary thread's values after the run", body = ThreadValues),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such assistant or checkpoint", body = ErrorEnvelope),
        (status = 413, description = "Files in the messages over the upload limits", body = ErrorEnvelope),
        (status = 429, description = "The caller's conversations are over their storage quota (`storage_quota_exceeded`), or the caller reached a daily usage limit (`usage_limit_exceeded`, with `Retry-After` and `details.resets_at`)", body = ErrorEnvelope),
        (status = 422, description = "Invalid input or stream mode", body = ErrorEnvelope),
    )
)]
pub async fn wait_stateless(
    State(app): State<AppState>,
    Identity(caller): Identity,
    crate::extract::RunBody(body): crate::extract::RunBody,
) -> ApiResult<Response> {
    let (thread_id, started, then) = start(&app, &caller, body).await?;
    // Cleans up after the answer, or when the client went away first.
    let _cleanup = DisconnectGuard { run: None, then };
    let values = app
        .runs
        .finished_values(&caller, &thread_id, &started.run)
        .await?;
    Ok(located(values, &thread_id, &started.run.run_id))
}

/// Starts a stateless run in the background.
#[utoipa::path(
    post,
    path = "/api/runs",
    tag = "runs",
    request_body = RunCreate,
    responses(
        (status = 200, description = "The run (pending)", body = Run),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such assistant or checkpoint", body = ErrorEnvelope),
        (status = 413, description = "Files in the messages over the upload limits", body = ErrorEnvelope),
        (status = 429, description = "The caller's conversations are over their storage quota (`storage_quota_exceeded`), or the caller reached a daily usage limit (`usage_limit_exceeded`, with `Retry-After` and `details.resets_at`)", body = ErrorEnvelope),
        (status = 422, description = "Invalid input or stream mode", body = ErrorEnvelope),
    )
)]
pub async fn create_stateless(
    State(app): State<AppState>,
    Identity(caller): Identity,
    crate::extract::RunBody(body): crate::extract::RunBody,
) -> ApiResult<Response> {
    let (thread_id, started, then) = start(&app, &caller, body).await?;
    drop(DisconnectGuard { run: None, then });
    Ok(located(started.record, &thread_id, &started.run.run_id))
}

/// Deletes a finished run with its events (its messages stay in the thread).
#[utoipa::path(
    delete,
    path = "/api/threads/{thread_id}/runs/{run_id}",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id"), ("run_id" = String, Path, description = "Run id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such thread or run", body = ErrorEnvelope),
        (status = 409, description = "The run is still pending or running", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread or run id", body = ErrorEnvelope),
    )
)]
pub async fn delete_run(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiPath(RunPath { run_id, .. }): ApiPath<RunPath>,
) -> ApiResult<StatusCode> {
    app.runs.delete(&caller, &thread_id, &run_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
