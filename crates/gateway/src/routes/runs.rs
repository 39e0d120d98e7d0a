//! `/api/threads/{thread_id}/runs…`, `…/state` and `…/history`: the LangGraph Agent Server
//! compatible runs API.

use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use antler_agent_runtime::runs::log::RunEvent;
use antler_agent_runtime::runs::{ActiveRun, RunError, Runtime, stream::follow};
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::runs::{
    CancelAction, CancelQuery, Checkpoint, HistoryRequest, Run, RunCreate, RunStatus, StopReason,
    ThreadState,
};
use antler_protocol::stream::StreamMode;
use antler_protocol::threads::ThreadValues;
use antler_store::threads::timestamp;
use antler_store::{CheckpointRecord, RunRecord};
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use utoipa::IntoParams;

use crate::app::{AppState, stored_values};
use crate::error::{ApiResult, AppError};
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::params::ThreadId;

fn run_error(e: RunError) -> AppError {
    match e {
        RunError::NotFound(m) => AppError::not_found(m),
        RunError::Conflict(m) => AppError::conflict(m),
        RunError::Invalid(m) => AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", m),
        RunError::Unreadable(m) => AppError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "thread_state_unreadable",
            m,
        ),
        RunError::Internal(m) => AppError::internal(anyhow::anyhow!(m)),
    }
}

/// The wire shape of a stored run.
pub(crate) fn run_json(r: RunRecord) -> Run {
    Run {
        usage: Runtime::usage(&r),
        run_id: r.run_id,
        thread_id: r.thread_id,
        assistant_id: r.assistant_id,
        created_at: timestamp(r.created_at),
        updated_at: timestamp(r.updated_at),
        status: r.status,
        stop_reason: r.stop_reason,
        error: r.error,
        metadata: r.metadata,
        multitask_strategy: r.multitask_strategy,
        kwargs: r.kwargs,
    }
}

/// `{thread_id}` and `{run_id}` of a run's path.
#[derive(Debug, Deserialize)]
pub struct RunPath {
    /// The thread (validated by [`ThreadId`]).
    #[expect(dead_code, reason = "validated by the ThreadId extractor")]
    thread_id: String,
    /// The run.
    run_id: String,
}

fn check_run_id(run_id: &str) -> Result<(), AppError> {
    if uuid::Uuid::parse_str(run_id).is_err() {
        return Err(AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_run_id",
            format!("run id {run_id:?} is not a UUID"),
        ));
    }
    Ok(())
}

async fn runtime(app: &AppState) -> Arc<Runtime> {
    app.runtime.clone()
}

fn location(thread_id: &str, run_id: &str) -> HeaderValue {
    HeaderValue::from_str(&format!("/api/threads/{thread_id}/runs/{run_id}"))
        .unwrap_or_else(|_| HeaderValue::from_static("/api/threads"))
}

/// Cancels the run when a streaming client goes away, unless it asked to continue.
struct DisconnectGuard {
    run: Option<Arc<ActiveRun>>,
}

impl Drop for DisconnectGuard {
    fn drop(&mut self) {
        if let Some(run) = self.run.take() {
            run.cancel(StopReason::Disconnected);
        }
    }
}

/// The SSE response for a run's events after `after`.
fn sse(
    app: &AppState,
    run_id: String,
    thread_id: &str,
    after: u64,
    modes: HashSet<StreamMode>,
    guard: DisconnectGuard,
) -> Response {
    let rx = follow(
        app.runtime.clone(),
        thread_id.to_string(),
        run_id.clone(),
        after,
        modes,
    );
    let heartbeat = Duration::from_secs(app.config.agent.heartbeat_secs);
    let stream = futures::stream::unfold((rx, guard), |(mut rx, mut guard)| async move {
        let event: Arc<RunEvent> = rx.recv().await?;
        if event.is_end() {
            // The run is over: leaving now must not cancel anything.
            guard.run = None;
        }
        let sse = Event::default()
            .event(&event.event)
            .id(event.seq.to_string())
            .data(&event.data);
        Some((Ok::<Event, Infallible>(sse), (rx, guard)))
    });
    let mut response = Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(heartbeat).text(""))
        .into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_LOCATION, location(thread_id, &run_id));
    // Where to rejoin after a dropped connection (with Last-Event-ID), relative to the API
    // root as LangGraph servers send it: the SDKs append it to their base URL (`…/api`).
    if let Ok(rejoin) = HeaderValue::from_str(&format!("/threads/{thread_id}/runs/{run_id}/stream"))
    {
        headers.insert(header::LOCATION, rejoin);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
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
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = "A run is in progress and multitask_strategy is reject", body = ErrorEnvelope),
        (status = 422, description = "Invalid input, stream mode, strategy or thread id", body = ErrorEnvelope),
    )
)]
pub async fn stream_run(
    State(app): State<AppState>,
    ThreadId(thread_id): ThreadId,
    ApiJson(body): ApiJson<RunCreate>,
) -> ApiResult<Response> {
    let (run, _) = runtime(&app)
        .await
        .create(app.owner(), &thread_id, body)
        .await
        .map_err(run_error)?;
    let guard = DisconnectGuard {
        run: run.on_disconnect_cancel.then(|| run.clone()),
    };
    let modes = run.log.modes().clone();
    Ok(sse(&app, run.run_id.clone(), &thread_id, 0, modes, guard))
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
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = "A run is in progress and multitask_strategy is reject", body = ErrorEnvelope),
        (status = 422, description = "Invalid input, stream mode, strategy or thread id", body = ErrorEnvelope),
    )
)]
pub async fn create_run(
    State(app): State<AppState>,
    ThreadId(thread_id): ThreadId,
    ApiJson(body): ApiJson<RunCreate>,
) -> ApiResult<Response> {
    let (run, record) = app
        .runtime
        .create(app.owner(), &thread_id, body)
        .await
        .map_err(run_error)?;
    let mut response = Json(run_json(record)).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_LOCATION, location(&thread_id, &run.run_id));
    Ok(response)
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
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = "A run is in progress and multitask_strategy is reject", body = ErrorEnvelope),
        (status = 422, description = "Invalid input, stream mode, strategy or thread id", body = ErrorEnvelope),
    )
)]
pub async fn wait_run(
    State(app): State<AppState>,
    ThreadId(thread_id): ThreadId,
    ApiJson(body): ApiJson<RunCreate>,
) -> ApiResult<Response> {
    let (run, _) = app
        .runtime
        .create(app.owner(), &thread_id, body)
        .await
        .map_err(run_error)?;
    run.finished().await;
    let mut response = Json(thread_values(&app, &thread_id).await?).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_LOCATION, location(&thread_id, &run.run_id));
    Ok(response)
}

async fn thread_values(app: &AppState, thread_id: &str) -> Result<ThreadValues, AppError> {
    stored_values(&app.require_thread(thread_id).await?.values)
}

/// Paging for run lists.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Page size (default 10, at most 1000).
    pub limit: Option<u32>,
    /// Runs to skip.
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
    ThreadId(thread_id): ThreadId,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> ApiResult<Json<Vec<Run>>> {
    app.require_thread(&thread_id).await?;
    let limit = q.limit.unwrap_or(10).clamp(1, 1000);
    let runs = app
        .store
        .runs
        .list(&thread_id, q.status, limit, q.offset.unwrap_or(0))
        .await?;
    Ok(Json(runs.into_iter().map(run_json).collect()))
}

async fn stored_run(app: &AppState, thread_id: &str, run_id: &str) -> Result<RunRecord, AppError> {
    check_run_id(run_id)?;
    app.require_thread(thread_id).await?;
    app.store
        .runs
        .get(thread_id, run_id)
        .await?
        .ok_or_else(|| AppError::not_found(format!("no run '{run_id}' in thread '{thread_id}'")))
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
    ThreadId(thread_id): ThreadId,
    ApiPath(RunPath { run_id, .. }): ApiPath<RunPath>,
) -> ApiResult<Json<Run>> {
    Ok(Json(run_json(stored_run(&app, &thread_id, &run_id).await?)))
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
        ("action" = Option<CancelAction>, Query, description = "interrupt (the only action supported)"),
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
    ThreadId(thread_id): ThreadId,
    ApiPath(RunPath { run_id, .. }): ApiPath<RunPath>,
    ApiQuery(q): ApiQuery<CancelQuery>,
) -> ApiResult<Json<Run>> {
    stored_run(&app, &thread_id, &run_id).await?;
    let record = app
        .runtime
        .cancel(&thread_id, &run_id, q.wait.unwrap_or(false))
        .await
        .map_err(run_error)?;
    Ok(Json(run_json(record)))
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
    ThreadId(thread_id): ThreadId,
    ApiPath(RunPath { run_id, .. }): ApiPath<RunPath>,
) -> ApiResult<Json<ThreadValues>> {
    stored_run(&app, &thread_id, &run_id).await?;
    app.runtime.wait_finished(&thread_id, &run_id).await;
    Ok(Json(thread_values(&app, &thread_id).await?))
}

/// Options of a join stream.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct JoinStreamQuery {
    /// Cancel the run if this client disconnects.
    #[serde(default)]
    pub cancel_on_disconnect: Option<bool>,
    /// Modes to receive (a subset of the run's); repeated or one value.
    #[serde(default)]
    pub stream_mode: Option<String>,
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
        (status = 422, description = "Invalid thread or run id, or stream mode", body = ErrorEnvelope),
    )
)]
pub async fn join_stream(
    State(app): State<AppState>,
    ThreadId(thread_id): ThreadId,
    ApiPath(RunPath { run_id, .. }): ApiPath<RunPath>,
    axum::extract::RawQuery(raw): axum::extract::RawQuery,
    headers: HeaderMap,
) -> ApiResult<Response> {
    stored_run(&app, &thread_id, &run_id).await?;
    let after = match headers
        .get("last-event-id")
        .map(|v| v.to_str().unwrap_or("x").trim())
    {
        None | Some("") => 0,
        Some(v) => v.parse::<u64>().map_err(|_| {
            AppError::bad_request(format!("Last-Event-ID {v:?} is not an event id"))
        })?,
    };
    // `stream_mode` may repeat; `cancel_on_disconnect` is a flag.
    let mut modes = Vec::new();
    let mut cancel_on_disconnect = false;
    for (k, v) in url_pairs(raw.as_deref().unwrap_or("")) {
        match k.as_str() {
            // Clients encode "no value" as `stream_mode=`.
            "stream_mode" if !v.is_empty() => modes.push(v.parse::<StreamMode>().map_err(|e| {
                AppError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "invalid_query",
                    format!("stream_mode: {e}"),
                )
            })?),
            "cancel_on_disconnect" => cancel_on_disconnect = matches!(v.as_str(), "true" | "1"),
            _ => {}
        }
    }
    let modes: HashSet<StreamMode> = modes.into_iter().map(StreamMode::canonical).collect();
    let guard = DisconnectGuard {
        run: if cancel_on_disconnect {
            app.runtime.active(&run_id)
        } else {
            None
        },
    };
    Ok(sse(&app, run_id, &thread_id, after, modes, guard))
}

fn url_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let decode = |s: &str| {
                percent_encoding::percent_decode_str(&s.replace('+', " "))
                    .decode_utf8_lossy()
                    .into_owned()
            };
            (decode(k), decode(v))
        })
        .collect()
}

fn checkpoint_ref(thread_id: &str, id: Option<&str>) -> Option<Checkpoint> {
    id.map(|id| Checkpoint {
        thread_id: thread_id.to_string(),
        checkpoint_ns: String::new(),
        checkpoint_id: id.to_string(),
    })
}

fn state_json(c: CheckpointRecord) -> Result<ThreadState, AppError> {
    let mut metadata = Map::new();
    metadata.insert("step".into(), json!(c.step));
    metadata.insert("run_id".into(), json!(c.run_id));
    Ok(ThreadState {
        values: stored_values(&c.state)?,
        next: Vec::new(),
        tasks: Vec::new(),
        metadata,
        created_at: Some(timestamp(c.created_at)),
        checkpoint: checkpoint_ref(&c.thread_id, Some(&c.checkpoint_id)),
        parent_checkpoint: checkpoint_ref(&c.thread_id, c.parent_id.as_deref()),
    })
}

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
    ThreadId(thread_id): ThreadId,
) -> ApiResult<Json<ThreadState>> {
    let thread = app.require_thread(&thread_id).await?;
    Ok(Json(match app.store.state.latest(&thread_id).await? {
        Some(c) => state_json(c)?,
        None => ThreadState {
            values: stored_values(&thread.values)?,
            next: Vec::new(),
            tasks: Vec::new(),
            metadata: Map::new(),
            created_at: None,
            checkpoint: None,
            parent_checkpoint: None,
        },
    }))
}

/// Earlier states of the thread, newest first.
#[utoipa::path(
    post,
    path = "/api/threads/{thread_id}/history",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id")),
    request_body = HistoryRequest,
    responses(
        (status = 200, description = "States", body = Vec<ThreadState>),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id or body", body = ErrorEnvelope),
    )
)]
pub async fn history(
    State(app): State<AppState>,
    ThreadId(thread_id): ThreadId,
    ApiJson(body): ApiJson<HistoryRequest>,
) -> ApiResult<Json<Vec<ThreadState>>> {
    app.require_thread(&thread_id).await?;
    let limit = body.limit.unwrap_or(10).clamp(1, 1000);
    let before = body
        .before
        .as_ref()
        .and_then(|b| {
            b.get("checkpoint_id")
                .or_else(|| b.get("configurable")?.get("checkpoint_id"))
        })
        .and_then(Value::as_str);
    let states = app.store.state.history(&thread_id, limit, before).await?;
    Ok(Json(
        states
            .into_iter()
            .map(state_json)
            .collect::<Result<_, _>>()?,
    ))
}
