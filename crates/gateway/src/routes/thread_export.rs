//! `GET /api/threads/{thread_id}/export`: a conversation as a Markdown or JSON file.

use antler_protocol::error::ErrorEnvelope;
use antler_protocol::thread_search::ExportFormat;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::error::{ApiResult, AppError};
use crate::extract::ApiQuery;
use crate::files::names::content_disposition;
use crate::params::ThreadId;
use crate::state::{AppState, Identity};

/// `GET /api/threads/{thread_id}/export` query.
#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// `markdown` (the default) or `json`. Read as text so that an empty value is refused
    /// like any other unknown one.
    #[param(inline, value_type = Option<ExportFormat>)]
    pub format: Option<String>,
}

/// Downloads a conversation. `markdown`: the title and dates, each message with its role,
/// reasoning and tool calls folded in `<details>` (arguments, and results cut at 2,000
/// characters), artifacts as links to their downloads. `json`: `{thread, state, history}`
/// as `GET /api/threads/{id}`, `…/state` and `…/history` answer them.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/export",
    tag = "threads",
    params(("thread_id" = String, Path, description = "Thread id"), ExportQuery),
    responses(
        (status = 200, description = "The file, as an attachment named after the title",
            content((String = "text/markdown"), (Object = "application/json"))),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id, or a format other than markdown or json", body = ErrorEnvelope),
    )
)]
pub async fn export_thread(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(id): ThreadId,
    ApiQuery(q): ApiQuery<ExportQuery>,
) -> ApiResult<Response> {
    let format = match q.format.as_deref() {
        None => ExportFormat::default(),
        Some(text) => text.parse().map_err(|_| {
            AppError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_query",
                format!(
                    "format must be markdown or json, not {:?}",
                    text.chars().take(40).collect::<String>()
                ),
            )
        })?,
    };
    let export = app.export_thread(&caller, &id, format).await?;
    let mut response = export.body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(export.content_type),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(value) = HeaderValue::from_str(&content_disposition(true, &export.filename)) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}
