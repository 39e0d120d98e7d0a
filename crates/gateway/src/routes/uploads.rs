//! `/api/threads/{thread_id}/uploads`: files people add to a conversation.
//!
//! Every file of a request is streamed to a hidden temporary file in the uploads directory
//! and counted against the limits; only when the whole request is accepted are they renamed
//! into place (a rename replaces a symlink at the destination instead of following it). A
//! refused request leaves nothing behind.

use std::collections::HashSet;

use antler_protocol::error::ErrorEnvelope;
use antler_protocol::files::{UploadLimits, UploadList, UploadedFile};
use antler_sandbox::UserDataDir;
use antler_sandbox::paths::USER_DATA_ROOT;
use axum::Json;
use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::StatusCode;
use serde_json::json;

use crate::error::{ApiResult, AppError};
use crate::extract::ApiPath;
use crate::files::multipart::{field_to_temp, multipart_error};
use crate::files::names::{dedupe, safe_file_name};
use crate::files::walk::artifact_url;
use crate::params::ThreadId;
use crate::state::{AppState, Identity};

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
    let dirs = app.threads.files(&caller, &id).await?;
    let uploads = dirs.dir(UserDataDir::Uploads);
    let limits = &app.config.uploads;
    let too_large =
        |m: String| AppError::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", m);

    let mut staged: Vec<(tempfile::NamedTempFile, String, u64)> = Vec::new();
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
            &uploads,
            ".upload-",
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
        staged.push((temp, name, size));
    }
    if staged.is_empty() {
        return Err(AppError::bad_request(
            "no files: send them in the multipart field 'files'",
        ));
    }
    let mut files = Vec::with_capacity(staged.len());
    for (temp, name, size) in staged {
        let dest = uploads.join(&name);
        let file = temp
            .persist(&dest)
            .map_err(|e| AppError::internal(e.error))?;
        files.push(describe(&id, &name, size, file.metadata().ok()));
    }
    tracing::info!(thread.id = %id, files = files.len(), bytes = total, "files uploaded");
    Ok(Json(UploadList { files }))
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
) -> ApiResult<Json<UploadList>> {
    let dirs = app.threads.existing_dirs(&caller, &id).await?;
    let uploads = dirs.dir(UserDataDir::Uploads);
    let files = tokio::task::spawn_blocking(move || {
        let mut files = Vec::new();
        let read = match std::fs::read_dir(&uploads) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(files),
            other => other?,
        };
        for entry in read.filter_map(Result::ok) {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let meta = entry.metadata()?;
            if name.starts_with('.') || !entry.file_type()?.is_file() {
                continue;
            }
            files.push(describe(&id, &name, meta.len(), Some(meta)));
        }
        files.sort_by(|a, b| a.filename.cmp(&b.filename));
        std::io::Result::Ok(files)
    })
    .await?
    .map_err(AppError::internal)?;
    Ok(Json(UploadList { files }))
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
    if safe_file_name(&filename).as_deref() != Some(filename.as_str()) {
        return Err(AppError::bad_request(format!(
            "{filename:?} is not a plain file name"
        )));
    }
    let dirs = app.threads.existing_dirs(&caller, &id).await?;
    let path = dirs.dir(UserDataDir::Uploads).join(&filename);
    let meta = tokio::fs::symlink_metadata(&path)
        .await
        .map_err(|_| AppError::not_found(format!("no uploaded file '{filename}'")))?;
    if meta.is_dir() {
        return Err(AppError::bad_request(format!(
            "'{filename}' is a directory"
        )));
    }
    // Removes a symlink itself, never its target.
    tokio::fs::remove_file(&path)
        .await
        .map_err(AppError::internal)?;
    Ok(StatusCode::NO_CONTENT)
}

fn describe(
    thread_id: &str,
    name: &str,
    size: u64,
    meta: Option<std::fs::Metadata>,
) -> UploadedFile {
    let virtual_path = format!("{USER_DATA_ROOT}/uploads/{name}");
    UploadedFile {
        filename: name.to_string(),
        size,
        artifact_url: artifact_url(thread_id, &virtual_path),
        virtual_path,
        modified_at: meta
            .and_then(|m| m.modified().ok())
            .map(|t| antler_store::threads::timestamp(t.into()))
            .unwrap_or_default(),
    }
}
