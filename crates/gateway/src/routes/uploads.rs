//! `/api/threads/{thread_id}/uploads`: files people add to a conversation.
//!
//! Every file of a request is streamed to a temporary file in the instance's scratch
//! directory (outside the thread's files: the agent never sees half an upload) and counted
//! against the limits; only when the whole request is accepted are they moved into place by
//! the files service. A refused request leaves nothing behind.

use std::collections::HashSet;

use antler_app::files::Staged;
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::files::{UploadLimits, UploadList};
use axum::Json;
use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::StatusCode;
use serde_json::json;

use crate::error::{ApiResult, AppError};
use crate::extract::ApiPath;
use crate::files::multipart::{field_to_temp, multipart_error};
use crate::params::ThreadId;
use crate::state::{AppState, Identity};
use antler_app::files::names::{dedupe, safe_file_name};

/// The form of `POST …/uploads` (documentation only: parts are streamed).
#[derive(utoipa::ToSchema)]
#[expect(
    dead_code,
    reason = "describes the multipart form in the OpenAPI document"
)]
struct UploadForm {
    /// The files, each a part named `files` with a file name.
    #[schema(value_type = Vec<String>, format = Binary, min_items = 1)]
    files: Vec<Vec<u8>>,
}

/// Uploads files (multipart field `files`, several at once).
#[utoipa::path(
    post,
    path = "/api/threads/{thread_id}/uploads",
    tag = "uploads",
    params(("thread_id" = String, Path, description = "Thread id")),
    request_body(content = UploadForm, content_type = "multipart/form-data", description = "One or more files"),
    responses(
        (status = 200, description = "The stored files", body = UploadList),
        (status = 400, description = "No files, a part that is not a file, or an unusable name", body = ErrorEnvelope),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 413, description = "Too many files, a file or the request too large", body = ErrorEnvelope),
        (status = 415, description = "Not multipart/form-data", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
    )
)]
pub async fn upload_files(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(id): ThreadId,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<UploadList>> {
    let mut multipart = multipart?;
    // Checked before reading the body: a missing thread is refused at once.
    app.threads.record(&caller, &id).await?;
    let limits = &app.config.uploads;
    let too_large =
        |m: String| AppError::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", m);

    let mut staged: Vec<Staged> = Vec::new();
    let mut names = HashSet::new();
    let mut total: u64 = 0;
    while let Some(mut field) = multipart
        .next_field()
        .await
        .map_err(|e| multipart_error(&e, None, limits.max_request_bytes))?
    {
        if field.name() != Some("files") {
            return Err(AppError::bad_request(format!(
                "unexpected form field {:?}; send files in the field 'files'",
                field.name().unwrap_or("")
            )));
        }
        let original = field.file_name().map(str::to_owned).ok_or_else(|| {
            AppError::bad_request("every 'files' part must be a file with a file name")
        })?;
        if staged.len() == limits.max_files {
            return Err(too_large(format!(
                "too many files: at most {} per request ('{original}' is one too many)",
                limits.max_files
            ))
            .with_details(json!({ "limit": limits.max_files, "file": original })));
        }
        let name = safe_file_name(&original).ok_or_else(|| {
            AppError::bad_request(format!("file name {original:?} has no usable characters"))
        })?;
        let name = dedupe(&name, &names);
        names.insert(name.clone());
        let before = total;
        let (temp, size) = field_to_temp(
            &mut field,
            app.files.scratch(),
            "upload-",
            &name,
            limits.max_request_bytes,
            |size, chunk| {
                let size = size + chunk as u64;
                if size > limits.max_file_bytes {
                    return Err(too_large(format!(
                        "file '{name}' is larger than the limit of {} bytes per file",
                        limits.max_file_bytes
                    ))
                    .with_details(json!({ "limit": limits.max_file_bytes, "file": name })));
                }
                if before + size > limits.max_request_bytes {
                    return Err(too_large(format!(
                        "the upload is larger than the limit of {} bytes per request (at file '{name}')",
                        limits.max_request_bytes
                    ))
                    .with_details(json!({ "limit": limits.max_request_bytes, "file": name })));
                }
                Ok(())
            },
        )
        .await?;
        total += size;
        staged.push(Staged {
            file: temp,
            name,
            size,
        });
    }
    if staged.is_empty() {
        return Err(AppError::bad_request(
            "no files: send them in the multipart field 'files'",
        ));
    }
    let list = app
        .files
        .store_uploads(&app.threads, &caller, &id, staged)
        .await?;
    tracing::info!(thread.id = %id, files = list.files.len(), bytes = total, "files uploaded");
    Ok(Json(list))
}

/// Lists the thread's uploads.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/uploads",
    tag = "uploads",
    params(("thread_id" = String, Path, description = "Thread id")),
    responses(
        (status = 200, description = "The uploaded files, by name", body = UploadList),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
    )
)]
pub async fn list_uploads(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(id): ThreadId,
) -> ApiResult<Json<serde_json::Value>> {
    let list = app.files.list_uploads(&app.threads, &caller, &id).await?;
    let mut shown = serde_json::to_value(list).map_err(AppError::internal)?;
    // Commands write here too: a file named after a secret's value is not listed by it.
    app.secrets.cached().redact_json(&mut shown);
    Ok(Json(shown))
}

/// The upload limits in force.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/uploads/limits",
    tag = "uploads",
    params(("thread_id" = String, Path, description = "Thread id")),
    responses(
        (status = 200, description = "Limits", body = UploadLimits),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
    )
)]
pub async fn get_upload_limits(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(id): ThreadId,
) -> ApiResult<Json<UploadLimits>> {
    // The limits are the same for every thread, but only a thread that exists has any.
    app.threads.record(&caller, &id).await?;
    let l = &app.config.uploads;
    Ok(Json(UploadLimits {
        max_files: l.max_files,
        max_file_bytes: l.max_file_bytes,
        max_request_bytes: l.max_request_bytes,
    }))
}

/// Deletes one uploaded file.
#[utoipa::path(
    delete,
    path = "/api/threads/{thread_id}/uploads/{filename}",
    tag = "uploads",
    params(
        ("thread_id" = String, Path, description = "Thread id"),
        ("filename" = String, Path, description = "Stored file name"),
    ),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, description = "Not a plain file name, or a directory", body = ErrorEnvelope),
        (status = 404, description = "No such thread or file", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
    )
)]
pub async fn delete_upload(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(id): ThreadId,
    ApiPath(params): ApiPath<(String, String)>,
) -> ApiResult<StatusCode> {
    let filename = params.1;
    let plain = safe_file_name(&filename).as_deref() == Some(filename.as_str());
    app.files
        .delete_upload(&app.threads, &caller, &id, &filename, plain)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
