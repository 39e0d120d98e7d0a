//! Receiving files in multipart form bodies: each part streamed to a temporary file.

use std::path::Path;

use axum::extract::multipart::{Field, MultipartError, MultipartRejection};
use axum::http::StatusCode;
use serde_json::json;
use tokio::io::AsyncWriteExt;

use crate::error::AppError;

impl From<MultipartRejection> for AppError {
    fn from(e: MultipartRejection) -> Self {
        AppError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            e.body_text(),
        )
    }
}

/// A broken or oversized body: 413 naming the request limit (and the file), else 400.
pub(crate) fn multipart_error(e: &MultipartError, file: Option<&str>, limit: u64) -> AppError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        let at = file
            .map(|f| format!(" (at file '{f}')"))
            .unwrap_or_default();
        return AppError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("the upload is larger than the limit of {limit} bytes per request{at}"),
        )
        .with_details(json!({ "limit": limit, "file": file }));
    }
    AppError::bad_request(format!("malformed multipart body: {}", e.body_text()))
}

/// Streams `field` into a new temporary file in `dir` (same filesystem as its destination,
/// so it can be renamed into place). `admit` sees the size so far before each chunk is
/// written and refuses what is too large; `name` and `request_limit` word body errors.
pub(crate) async fn field_to_temp(
    field: &mut Field<'_>,
    dir: &Path,
    prefix: &str,
    name: &str,
    request_limit: u64,
    mut admit: impl FnMut(u64, usize) -> Result<(), AppError>,
) -> Result<(tempfile::NamedTempFile, u64), AppError> {
    let temp = tempfile::Builder::new()
        .prefix(prefix)
        .tempfile_in(dir)
        .map_err(AppError::internal)?;
    let mut out =
        tokio::fs::File::from_std(temp.as_file().try_clone().map_err(AppError::internal)?);
    let mut size: u64 = 0;
    while let Some(chunk) = field
        .chunk()
        .await
        .map_err(|e| multipart_error(&e, Some(name), request_limit))?
    {
        admit(size, chunk.len())?;
        size += chunk.len() as u64;
        out.write_all(&chunk).await.map_err(AppError::internal)?;
    }
    out.flush().await.map_err(AppError::internal)?;
    Ok((temp, size))
}

/// The text of a small form field (a flag), with body errors reported.
pub(crate) async fn field_text(field: Field<'_>, request_limit: u64) -> Result<String, AppError> {
    let name = field.name().unwrap_or("").to_string();
    field
        .text()
        .await
        .map_err(|e| multipart_error(&e, Some(&name), request_limit))
}
