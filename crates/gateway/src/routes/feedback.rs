//! Feedback on answers: `PUT`/`DELETE /api/threads/{thread_id}/runs/{run_id}/feedback` (the
//! caller's thumbs up or down on a run of their thread), `GET /api/threads/{thread_id}/feedback`
//! (their ratings of a thread's runs, for the chat), and `GET /api/admin/feedback/export`
//! (everyone's, as JSON Lines streamed a page at a time; admins only).

use antler_app::FeedbackError;
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::feedback::{Feedback, FeedbackExportLine, FeedbackList, FeedbackRequest};
use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;

use super::runs::RunPath;
use crate::error::{ApiResult, AppError};
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::params::ThreadId;
use crate::state::{Admin, AppState, Identity};

impl From<FeedbackError> for AppError {
    fn from(e: FeedbackError) -> Self {
        match e {
            FeedbackError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_feedback", m)
            }
            FeedbackError::InvalidQuery(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_query", m)
            }
            FeedbackError::Forbidden(m) => {
                AppError::new(StatusCode::FORBIDDEN, "admin_required", m)
            }
            e @ FeedbackError::InvalidRunId(_) => AppError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_run_id",
                e.to_string(),
            ),
            FeedbackError::Thread(e) => e.into(),
            e @ FeedbackError::RunNotFound { .. } => AppError::not_found(e.to_string()),
            FeedbackError::Store(e) => e.into(),
        }
    }
}

/// Rates a run's answer: thumbs up or down with an optional comment, replacing the caller's
/// earlier rating of it.
#[utoipa::path(
    put,
    path = "/api/threads/{thread_id}/runs/{run_id}/feedback",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id"), ("run_id" = String, Path, description = "Run id")),
    request_body = FeedbackRequest,
    responses(
        (status = 200, description = "The feedback as stored", body = Feedback),
        (status = 404, description = "No such thread of the caller's, or no such run in it", body = ErrorEnvelope),
        (status = 422, description = "Invalid id, rating or comment", body = ErrorEnvelope),
    )
)]
pub async fn put_feedback(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiPath(RunPath { run_id, .. }): ApiPath<RunPath>,
    ApiJson(body): ApiJson<FeedbackRequest>,
) -> ApiResult<Json<Feedback>> {
    Ok(Json(
        app.feedback.put(&caller, &thread_id, &run_id, body).await?,
    ))
}

/// Takes back the caller's rating of a run's answer (answered alike when there was none).
#[utoipa::path(
    delete,
    path = "/api/threads/{thread_id}/runs/{run_id}/feedback",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id"), ("run_id" = String, Path, description = "Run id")),
    responses(
        (status = 204, description = "The caller has no feedback on the run now"),
        (status = 404, description = "No such thread of the caller's, or no such run in it", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread or run id", body = ErrorEnvelope),
    )
)]
pub async fn delete_feedback(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
    ApiPath(RunPath { run_id, .. }): ApiPath<RunPath>,
) -> ApiResult<StatusCode> {
    app.feedback.delete(&caller, &thread_id, &run_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The caller's ratings of the thread's runs, oldest run first.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/feedback",
    tag = "runs",
    params(("thread_id" = String, Path, description = "Thread id")),
    responses(
        (status = 200, description = "The caller's feedback on the thread's runs", body = FeedbackList),
        (status = 404, description = "No such thread of the caller's", body = ErrorEnvelope),
    )
)]
pub async fn list_thread_feedback(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(thread_id): ThreadId,
) -> ApiResult<Json<FeedbackList>> {
    Ok(Json(app.feedback.list(&caller, &thread_id).await?))
}

/// The query of `GET /api/admin/feedback/export`: bounds of the time feedback last changed,
/// as the runs console takes its `from` and `to` (an empty value is no bound).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// Feedback changed at or after this time: an RFC 3339 time, or a UTC day (`YYYY-MM-DD`,
    /// from its start).
    #[param(
        pattern = "^(([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])|[0-9]{4}-(0[13-9]|1[0-2])-(29|30)|[0-9]{4}-(0[13578]|1[02])-31|([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[048]|[2468][048]|[13579][26])00)-02-29)(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?)?$"
    )]
    since: Option<String>,
    /// Feedback changed before this time (an RFC 3339 time, excluded), or up to the end of a
    /// UTC day (`YYYY-MM-DD`, included).
    #[param(
        pattern = "^(([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])|[0-9]{4}-(0[13-9]|1[0-2])-(29|30)|[0-9]{4}-(0[13578]|1[02])-31|([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[048]|[2468][048]|[13579][26])00)-02-29)(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?)?$"
    )]
    until: Option<String>,
}

/// Everyone's feedback as JSON Lines (one `FeedbackExportLine` per line, oldest change
/// first), a download; read from the database a page at a time while it is sent (admins
/// only).
#[utoipa::path(
    get,
    path = "/api/admin/feedback/export",
    tag = "admin",
    params(ExportQuery),
    responses(
        (status = 200, description = "JSON Lines: the items, one JSON object per line", body = [FeedbackExportLine], content_type = "application/x-ndjson"),
        (status = 403, description = "Not an admin", body = ErrorEnvelope),
        (status = 422, description = "A bad since or until (the message names it)", body = ErrorEnvelope),
    )
)]
pub async fn export_feedback(
    State(app): State<AppState>,
    Admin(admin): Admin,
    ApiQuery(q): ApiQuery<ExportQuery>,
) -> ApiResult<Response> {
    let export = app
        .feedback
        .export(&admin, q.since.as_deref(), q.until.as_deref())?;
    let pages = futures::stream::try_unfold(export, |mut export| async move {
        match export.next_page().await {
            Ok(Some(lines)) => Ok(Some((jsonl(&lines), export))),
            Ok(None) => Ok(None),
            Err(error) => {
                // The status was sent: the download ends cut short, so it is not taken whole.
                tracing::error!(%error, "feedback export failed");
                Err(std::io::Error::other("the feedback export failed"))
            }
        }
    });
    let name = format!(
        "attachment; filename=\"feedback-{}.jsonl\"",
        chrono::Utc::now().format("%Y%m%d-%H%M%S")
    );
    let mut response = Body::from_stream(pages).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(value) = HeaderValue::from_str(&name) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// `lines` as JSON Lines.
fn jsonl(lines: &[FeedbackExportLine]) -> Bytes {
    let mut out = Vec::with_capacity(lines.len() * 256);
    for line in lines {
        // Plain data: serializing it cannot fail.
        if serde_json::to_writer(&mut out, line).is_ok() {
            out.push(b'\n');
        }
    }
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    use antler_app::console::TIME_PATTERN;
    use antler_protocol::feedback::{COMMENT_PATTERN, MAX_COMMENT_CHARS};

    #[test]
    fn the_document_publishes_the_limits_the_service_checks() {
        let doc = crate::router::openapi();
        let params = doc["paths"]["/api/admin/feedback/export"]["get"]["parameters"]
            .as_array()
            .unwrap();
        for name in ["since", "until"] {
            let param = params.iter().find(|p| p["name"] == name).unwrap();
            assert_eq!(param["schema"]["pattern"], TIME_PATTERN, "{name}");
        }
        let comment = &doc["components"]["schemas"]["FeedbackRequest"]["properties"]["comment"];
        assert_eq!(comment["maxLength"], MAX_COMMENT_CHARS, "{comment}");
        assert_eq!(comment["pattern"], COMMENT_PATTERN, "{comment}");
        let rating = &doc["components"]["schemas"]["Rating"]["enum"];
        assert_eq!(rating, &serde_json::json!(["up", "down"]));
    }
}
