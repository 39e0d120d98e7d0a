//! `/api/runs/crons…` and `/api/threads/{thread_id}/runs/crons`: LangGraph's crons API
//! (scheduled runs), plus Antler's `GET` of one cron and "run now". A cron is its creator's;
//! for anyone else it does not exist.

use antler_protocol::crons::{Cron, CronCount, CronCreate, CronPatch, CronSearch};
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::runs::Run;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

use super::runs::located;
use crate::error::ApiResult;
use crate::extract::{ApiJson, ApiPath};
use crate::params::ThreadId;
use crate::state::{AppState, Identity};

/// `{cron_id}` of a cron's path.
#[derive(Debug, Deserialize)]
pub struct CronPath {
    /// The cron.
    cron_id: String,
}

/// Creates a cron whose every run starts on a new thread of the caller's (deleted after the
/// run unless `on_run_completed` is `keep`).
///
/// `schedule` is a cron expression (5 fields, or 6 with leading seconds) read in
/// `timezone` (IANA, default UTC). Missed ticks (every server was down when one was due)
/// run once when a server is back, and the next date is computed from then.
#[utoipa::path(
    post,
    path = "/api/runs/crons",
    tag = "crons",
    request_body = CronCreate,
    responses(
        (status = 200, description = "The cron", body = Cron),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such assistant", body = ErrorEnvelope),
        (status = 422, description = "Invalid schedule, timezone, end_time (in the past) or body; the message names the field", body = ErrorEnvelope),
    )
)]
pub async fn create_cron(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<CronCreate>,
) -> ApiResult<Json<Cron>> {
    Ok(Json(app.crons.create(&caller, None, body).await?))
}

/// Creates a cron whose runs go to one of the caller's threads (`multitask_strategy`
/// `enqueue` by default, so a busy thread still gets its tick).
#[utoipa::path(
    post,
    path = "/api/threads/{thread_id}/runs/crons",
    tag = "crons",
    params(("thread_id" = String, Path, description = "Thread id")),
    request_body = CronCreate,
    responses(
        (status = 200, description = "The cron", body = Cron),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such thread or assistant", body = ErrorEnvelope),
        (status = 422, description = "Invalid schedule, timezone, end_time (in the past), thread id or body; the message names the field", body = ErrorEnvelope),
    )
)]
pub async fn create_thread_cron(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiJson(body): ApiJson<CronCreate>,
) -> ApiResult<Json<Cron>> {
    Ok(Json(
        app.crons.create(&caller, Some(&thread_id), body).await?,
    ))
}

/// The caller's crons.
#[utoipa::path(
    post,
    path = "/api/runs/crons/search",
    tag = "crons",
    request_body = CronSearch,
    responses(
        (status = 200, description = "Crons (only the `select`ed fields when given)", body = Vec<Cron>),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid body, limit or select field", body = ErrorEnvelope),
    )
)]
pub async fn search_crons(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<CronSearch>,
) -> ApiResult<Json<Vec<serde_json::Value>>> {
    Ok(Json(app.crons.search(&caller, &body).await?))
}

/// How many of the caller's crons a filter finds.
#[utoipa::path(
    post,
    path = "/api/runs/crons/count",
    tag = "crons",
    request_body = CronCount,
    responses(
        (status = 200, description = "The count", body = u64, content_type = "application/json"),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid body", body = ErrorEnvelope),
    )
)]
pub async fn count_crons(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<CronCount>,
) -> ApiResult<Json<u64>> {
    Ok(Json(app.crons.count(&caller, &body).await?))
}

/// One cron (an Antler extension).
#[utoipa::path(
    get,
    path = "/api/runs/crons/{cron_id}",
    tag = "crons",
    params(("cron_id" = String, Path, description = "Cron id")),
    responses(
        (status = 200, description = "The cron", body = Cron),
        (status = 404, description = "No such cron", body = ErrorEnvelope),
    )
)]
pub async fn get_cron(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<CronPath>,
) -> ApiResult<Json<Cron>> {
    Ok(Json(app.crons.get(&caller, &path.cron_id).await?))
}

/// Changes a cron; a new `schedule`, `timezone` or `enabled` computes `next_run_date` from
/// now.
#[utoipa::path(
    patch,
    path = "/api/runs/crons/{cron_id}",
    tag = "crons",
    params(("cron_id" = String, Path, description = "Cron id")),
    request_body = CronPatch,
    responses(
        (status = 200, description = "The cron", body = Cron),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such cron", body = ErrorEnvelope),
        (status = 422, description = "Invalid schedule, timezone, end_time (in the past) or body; the message names the field", body = ErrorEnvelope),
    )
)]
pub async fn update_cron(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<CronPath>,
    ApiJson(body): ApiJson<CronPatch>,
) -> ApiResult<Json<Cron>> {
    Ok(Json(app.crons.update(&caller, &path.cron_id, body).await?))
}

/// Deletes a cron (the runs it started and their threads stay).
#[utoipa::path(
    delete,
    path = "/api/runs/crons/{cron_id}",
    tag = "crons",
    params(("cron_id" = String, Path, description = "Cron id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such cron", body = ErrorEnvelope),
    )
)]
pub async fn delete_cron(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<CronPath>,
) -> ApiResult<StatusCode> {
    app.crons.delete(&caller, &path.cron_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Starts the cron's run now (an Antler extension); `next_run_date` does not change.
#[utoipa::path(
    post,
    path = "/api/runs/crons/{cron_id}/run",
    tag = "crons",
    params(("cron_id" = String, Path, description = "Cron id")),
    responses(
        (status = 200, description = "The run (pending)", body = Run,
            headers(("Content-Location" = String, description = "/api/threads/{thread_id}/runs/{run_id}"))),
        (status = 404, description = "No such cron, or its assistant or thread is gone", body = ErrorEnvelope),
        (status = 409, description = "Its thread is busy and its multitask_strategy is reject", body = ErrorEnvelope),
        (status = 422, description = "Its run request is invalid", body = ErrorEnvelope),
        (status = 429, description = "The caller's conversations are over their storage quota (`storage_quota_exceeded`), or the caller reached a daily usage limit (`usage_limit_exceeded`, with `Retry-After` and `details.resets_at`)", body = ErrorEnvelope),
    )
)]
pub async fn run_cron_now(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<CronPath>,
) -> ApiResult<Response> {
    let run = app.crons.run_now(&caller, &path.cron_id).await?;
    let (thread_id, run_id) = (run.thread_id.clone(), run.run_id.clone());
    Ok(located(run, &thread_id, &run_id))
}
