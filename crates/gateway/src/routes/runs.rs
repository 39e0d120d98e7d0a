//! `/api/threads/{thread_id}/runs…`: the LangGraph Agent Server compatible runs API.

use std::collections::HashSet;

use antler_protocol::error::ErrorEnvelope;
use antler_protocol::runs::{CancelAction, CancelQuery, Run, RunCreate, RunStatus};
use antler_protocol::stream::StreamMode;
use antler_protocol::threads::ThreadValues;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;

pub(crate) use super::event_stream::{DisconnectGuard, sse};
use crate::error::{ApiResult, AppError};
use crate::extract::{ApiListQuery, ApiPath, ApiQuery};
use crate::params::ThreadId;
use crate::state::{AppState, Identity};

/// Starts a run after storing the files its messages carry as the thread's uploads.
pub(crate) async fn start(
    app: &AppState,
    caller: &antler_app::Caller,
    thread_id: &str,
    body: RunCreate,
) -> ApiResult<antler_app::Started> {
    Ok(app.start_run(caller, thread_id, body).await?)
}

/// `{thread_id}` and `{run_id}` of a run's path.
#[derive(Debug, Deserialize)]
pub struct RunPath {
    /// The thread (validated by [`ThreadId`]).
    #[expect(dead_code, reason = "validated by the ThreadId extractor")]
    thread_id: String,
    /// The run.
    pub(crate) run_id: String,
}

pub(crate) fn location(thread_id: &str, run_id: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("/api/threads/{thread_id}/runs/{run_id}"))
        .unwrap_or_else(|_| HeaderValue::from_static("/api/threads"))
}

/// `body` as JSON, with `Content-Location` naming the run it came from.
pub(crate) fn located<T: serde::Serialize>(body: T, thread_id: &str, run_id: &str) -> Response {
    let mut response = Json(body).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_LOCATION, location(thread_id, run_id));
    response
}

/// Starts a run and streams its events (`text/event-stream`).
///
/// Events: `metadata` first, then `values`, `messages` (`[chunk, metadata]`), `updates`,
/// `custom` as asked by `stream_mode`, `error` on failure, `end` last. Every event has an id
/// for `Last-Event-ID` replay; `:` comments keep an idle connection alive.
#[utoipa::path(
    post,
    path = "/api/threads/{thread_id}/runs/stream",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id")),
    request_body = RunCreate,
    responses(
        (status = 200, description = "The event stream", content_type = "text/event-stream",
            headers(("Content-Location" = String, description = "/api/threads/{thread_id}/runs/{run_id}"))),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such thread, assistant or checkpoint", body = ErrorEnvelope),
        (status = 409, description = "A run is in progress and multitask_strategy is reject", body = ErrorEnvelope),
        (status = 413, description = "Files in the messages over the upload limits", body = ErrorEnvelope),
        (status = 429, description = "The caller's conversations are over their storage quota (`storage_quota_exceeded`), or the caller reached a daily usage limit (`usage_limit_exceeded`, with `Retry-After` and `details.resets_at`)", body = ErrorEnvelope),
        (status = 422, description = "Invalid input, stream mode, strategy or thread id", body = ErrorEnvelope),
    )
)]
pub async fn stream_run(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    crate::extract::RunBody(body): crate::extract::RunBody,
) -> ApiResult<Response> {
    let started = start(&app, &caller, &thread_id, body).await?;
    let run = started.run;
    let guard = DisconnectGuard {
        run: run.on_disconnect_cancel.then(|| run.clone()),
        then: None,
    };
    let events = app
        .runs
        .events(&thread_id, &run.run_id, 0, run.log.modes().clone());
    Ok(sse(&app, run.run_id.clone(), &thread_id, events, guard))
}

/// Starts a run in the background.
#[utoipa::path(
    post,
    path = "/api/threads/{thread_id}/runs",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id")),
    request_body = RunCreate,
    responses(
        (status = 200, description = "The run (pending)", body = Run),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such thread, assistant or checkpoint", body = ErrorEnvelope),
        (status = 409, description = "A run is in progress and multitask_strategy is reject", body = ErrorEnvelope),
        (status = 413, description = "Files in the messages over the upload limits", body = ErrorEnvelope),
        (status = 429, description = "The caller's conversations are over their storage quota (`storage_quota_exceeded`), or the caller reached a daily usage limit (`usage_limit_exceeded`, with `Retry-After` and `details.resets_at`)", body = ErrorEnvelope),
        (status = 422, description = "Invalid input, stream mode, strategy or thread id", body = ErrorEnvelope),
    )
)]
pub async fn create_run(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    crate::extract::RunBody(body): crate::extract::RunBody,
) -> ApiResult<Response> {
    let started = start(&app, &caller, &thread_id, body).await?;
    Ok(located(started.record, &thread_id, &started.run.run_id))
}

/// Starts a run and answers the thread's values when it has finished.
#[utoipa::path(
    post,
    path = "/api/threads/{thread_id}/runs/wait",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id")),
    request_body = RunCreate,
    responses(
        (status = 200, description = "The thread's values after the run", body = ThreadValues),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such thread, assistant or checkpoint", body = ErrorEnvelope),
        (status = 409, description = "A run is in progress and multitask_strategy is reject", body = ErrorEnvelope),
        (status = 413, description = "Files in the messages over the upload limits", body = ErrorEnvelope),
        (status = 429, description = "The caller's conversations are over their storage quota (`storage_quota_exceeded`), or the caller reached a daily usage limit (`usage_limit_exceeded`, with `Retry-After` and `details.resets_at`)", body = ErrorEnvelope),
        (status = 422, description = "Invalid input, stream mode, strategy or thread id", body = ErrorEnvelope),
    )
)]
pub async fn wait_run(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    crate::extract::RunBody(body): crate::extract::RunBody,
) -> ApiResult<Response> {
    let started = start(&app, &caller, &thread_id, body).await?;
    let values = app
        .runs
        .finished_values(&caller, &thread_id, &started.run)
        .await?;
    Ok(located(values, &thread_id, &started.run.run_id))
}

/// Paging for run lists.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Page size (default 10; larger pages are cut to 1000).
    #[param(format = Int64, maximum = 4294967295_u64)]
    pub limit: Option<u32>,
    /// Runs to skip.
    #[param(format = Int64, maximum = 4294967295_u64)]
    pub offset: Option<u32>,
    /// Only runs in this status.
    pub status: Option<RunStatus>,
}

/// A thread's runs, newest first.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/runs",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id"), ListQuery),
    responses(
        (status = 200, description = "Runs", body = Vec<Run>),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
    )
)]
pub async fn list_runs(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> ApiResult<Json<Vec<Run>>> {
    let runs = app
        .runs
        .list(
            &caller,
            &thread_id,
            q.status,
            q.limit.unwrap_or(10),
            q.offset.unwrap_or(0),
        )
        .await?;
    Ok(Json(runs))
}

/// One run.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/runs/{run_id}",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id"), ("run_id" = String, Path, description = "Run id")),
    responses(
        (status = 200, description = "The run", body = Run),
        (status = 404, description = "No such thread or run", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread or run id", body = ErrorEnvelope),
    )
)]
pub async fn get_run(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiPath(RunPath { run_id, .. }): ApiPath<RunPath>,
) -> ApiResult<Json<Run>> {
    Ok(Json(app.runs.get(&caller, &thread_id, &run_id).await?))
}

/// Cancels a run: its model stream and running command stop at once.
#[utoipa::path(
    post,
    path = "/api/threads/{thread_id}/runs/{run_id}/cancel",
    tag = "runs",
    params(
        ("thread_id" = String, Path, description = "Thread id"),
        ("run_id" = String, Path, description = "Run id"),
        ("wait" = Option<bool>, Query, description = "Answer once the run has stopped"),
        ("action" = Option<CancelAction>, Query, description = "interrupt (default), or rollback: the run is deleted with its input, checkpoints and events once stopped (files it wrote stay)"),
    ),
    responses(
        (status = 200, description = "The run", body = Run),
        (status = 404, description = "No such thread or run", body = ErrorEnvelope),
        (status = 409, description = "The run is not active", body = ErrorEnvelope),
        (status = 422, description = "Invalid id or action", body = ErrorEnvelope),
    )
)]
pub async fn cancel_run(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiPath(RunPath { run_id, .. }): ApiPath<RunPath>,
    ApiQuery(q): ApiQuery<CancelQuery>,
) -> ApiResult<Json<Run>> {
    if q.action == Some(CancelAction::Rollback) {
        return Ok(Json(
            app.runs
                .cancel_rollback(&caller, &thread_id, &run_id)
                .await?,
        ));
    }
    let run = app
        .runs
        .cancel(&caller, &thread_id, &run_id, q.wait.unwrap_or(false))
        .await?;
    Ok(Json(run))
}

/// Waits for a run to finish and answers the thread's values.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/runs/{run_id}/join",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id"), ("run_id" = String, Path, description = "Run id")),
    responses(
        (status = 200, description = "The thread's values after the run", body = ThreadValues),
        (status = 404, description = "No such thread or run", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread or run id", body = ErrorEnvelope),
    )
)]
pub async fn join_run(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiPath(RunPath { run_id, .. }): ApiPath<RunPath>,
) -> ApiResult<Json<ThreadValues>> {
    Ok(Json(app.runs.join(&caller, &thread_id, &run_id).await?))
}

/// Options of a join stream.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct JoinStreamQuery {
    /// Cancel the run if this client disconnects.
    #[serde(default, deserialize_with = "crate::params::query_flag")]
    #[param(value_type = Option<bool>)]
    pub cancel_on_disconnect: bool,
    /// Modes to receive (a subset of the run's); repeated for several.
    // Clients encode "no value" as `stream_mode=`: an empty value stands for no mode.
    // Names, checked by `modes`: an unknown one is refused with the supported ones listed.
    #[serde(default)]
    #[param(value_type = Option<Vec<StreamMode>>, style = Form, explode)]
    pub stream_mode: Vec<String>,
}

impl JoinStreamQuery {
    /// The modes asked for, canonical (empty: every mode the run streams); 422
    /// `invalid_query` naming the supported modes for an unknown one.
    fn modes(&self) -> Result<HashSet<StreamMode>, AppError> {
        parse_modes(&self.stream_mode)
    }
}

/// Stream mode names of a query, canonical (empty: every mode); 422 `invalid_query` naming
/// the supported modes for an unknown one.
pub(crate) fn parse_modes(names: &[String]) -> Result<HashSet<StreamMode>, AppError> {
    names
        .iter()
        .filter(|name| !name.is_empty())
        .map(|name| {
            StreamMode::parse_requested(name)
                .map(StreamMode::canonical)
                .map_err(|m| {
                    AppError::new(
                        axum::http::StatusCode::UNPROCESSABLE_ENTITY,
                        "invalid_query",
                        m,
                    )
                })
        })
        .collect()
}

/// Joins a run's event stream (a running run, or the replay of a finished one). Send
/// `Last-Event-ID` to resume after an event.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/runs/{run_id}/stream",
    tag = "runs",
    params(
        ("thread_id" = String, Path, description = "Thread id"),
        ("run_id" = String, Path, description = "Run id"),
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this event"),
        JoinStreamQuery,
    ),
    responses(
        (status = 200, description = "The event stream", content_type = "text/event-stream"),
        (status = 400, description = "Invalid Last-Event-ID", body = ErrorEnvelope),
        (status = 404, description = "No such thread or run", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread or run id, stream mode or cancel_on_disconnect", body = ErrorEnvelope),
    )
)]
pub async fn join_stream(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiPath(RunPath { run_id, .. }): ApiPath<RunPath>,
    ApiListQuery(query): ApiListQuery<JoinStreamQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let after = match headers
        .get("last-event-id")
        .map(|v| v.to_str().unwrap_or("x").trim())
    {
        None | Some("") => 0,
        // Past every event there can be: nothing is left to replay.
        Some(v) if v.bytes().all(|b| b.is_ascii_digit()) => v.parse::<u64>().unwrap_or(u64::MAX),
        Some(v) => {
            let shown: String = v.chars().take(40).collect();
            return Err(AppError::bad_request(format!(
                "Last-Event-ID {shown:?} is not an event id"
            )));
        }
    };
    let events = app
        .runs
        .follow(&caller, &thread_id, &run_id, after, query.modes()?)
        .await?;
    let guard = DisconnectGuard {
        run: if query.cancel_on_disconnect {
            app.runs.active(&run_id)
        } else {
            None
        },
        then: None,
    };
    Ok(sse(&app, run_id, &thread_id, events, guard))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::extract::FromRequestParts;
    use axum::http::StatusCode;

    async fn parse(query: &str) -> Result<JoinStreamQuery, AppError> {
        let (mut parts, ()) = axum::http::Request::builder()
            .uri(format!("/stream?{query}"))
            .body(())
            .unwrap()
            .into_parts();
        ApiListQuery::<JoinStreamQuery>::from_request_parts(&mut parts, &())
            .await
            .map(|q| q.0)
    }

    async fn modes(query: &str) -> Vec<StreamMode> {
        let mut modes: Vec<_> = parse(query)
            .await
            .unwrap()
            .modes()
            .unwrap()
            .into_iter()
            .collect();
        modes.sort();
        modes
    }

    #[tokio::test]
    async fn stream_modes_repeat_are_canonical_and_an_empty_one_means_none() {
        assert_eq!(modes("").await, []);
        assert_eq!(modes("stream_mode=").await, []);
        assert_eq!(modes("stream_mode=values").await, [StreamMode::Values]);
        assert_eq!(
            modes("stream_mode=values&stream_mode=messages-tuple&stream_mode=messages").await,
            [StreamMode::Values, StreamMode::Messages]
        );
        assert_eq!(
            modes("stream_mode=&stream_mode=upd%61tes&other=x").await,
            [StreamMode::Updates]
        );
    }

    #[tokio::test]
    async fn cancel_on_disconnect_is_true_or_1_and_false_when_absent_false_or_0() {
        for (query, want) in [
            ("", false),
            ("cancel_on_disconnect=0", false),
            ("cancel_on_disconnect=false", false),
            ("cancel_on_disconnect=1", true),
            ("cancel_on_disconnect=true", true),
        ] {
            assert_eq!(
                parse(query).await.unwrap().cancel_on_disconnect,
                want,
                "{query}"
            );
        }
    }

    #[tokio::test]
    async fn unknown_modes_comma_lists_and_other_flags_are_422_invalid_query() {
        for query in [
            "stream_mode=bogus",
            "stream_mode=values,updates",
            "stream_mode=values&stream_mode=nope",
            "cancel_on_disconnect=yes",
            // Empty is not a boolean (the SDKs send `1`/`0` or `true`/`false`).
            "cancel_on_disconnect=",
            "cancel_on_disconnect",
        ] {
            let error = match parse(query).await {
                Err(e) => e,
                Ok(q) => q.modes().err().unwrap(),
            };
            assert_eq!(error.status(), StatusCode::UNPROCESSABLE_ENTITY, "{query}");
            assert_eq!(error.code(), "invalid_query", "{query}");
        }
    }
}
