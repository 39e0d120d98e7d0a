//! `/api/threads/{thread_id}/artifacts`: every file of a thread, served safely, and a look
//! inside `.skill` archives.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use antler_app::files::preview::PreviewError;
use antler_app::files::{ThreadDirs, VirtualPath, beneath};
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::files::{ArtifactList, PreviewFormat};
use antler_protocol::skills::ArchivePreview;
use axum::Json;
use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use percent_encoding::percent_decode_str;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::{ApiResult, AppError};
use crate::extract::ApiQuery;
use crate::files::archive::{MemberError, read_member};
use crate::files::etag::{FileVersion, sha256_etag};
use crate::files::serve::{FileBody, FileInfo, bytes_response, content_type, file_response};
use crate::files::walk;
use crate::params::ThreadId;
use crate::state::{AppState, Identity};

/// Lists every file under the thread's `/mnt/user-data`.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/artifacts",
    tag = "artifacts",
    params(("thread_id" = String, Path, description = "Thread id")),
    responses(
        (status = 200, description = "Files sorted by path", body = ArtifactList),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id", body = ErrorEnvelope),
    )
)]
pub async fn list_artifacts(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(id): ThreadId,
) -> ApiResult<Json<ArtifactList>> {
    let dirs = app.threads.existing_dirs(&caller, &id).await?;
    let (mut artifacts, truncated) =
        tokio::task::spawn_blocking(move || walk::list_artifacts(&id, &dirs)).await?;
    // A file named after a secret's value (a command's way to show it) is not listed by it.
    let secrets = app.secrets.cached();
    if !secrets.is_empty() {
        for a in &mut artifacts {
            a.virtual_path = secrets.redact(&a.virtual_path).into_owned();
            a.artifact_url = secrets.redact(&a.artifact_url).into_owned();
        }
    }
    Ok(Json(ArtifactList {
        artifacts,
        truncated,
    }))
}

/// `?download=true` forces `Content-Disposition: attachment`; `?preview=pdf` answers an
/// office file's PDF rendering instead of the file.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DownloadQuery {
    /// Send as a download.
    #[serde(default)]
    pub download: bool,
    /// `pdf`: a Word, Excel, PowerPoint or OpenDocument file rendered as PDF (made in the
    /// thread's sandbox with LibreOffice on first request, then cached by content).
    #[serde(default)]
    pub preview: Option<PreviewFormat>,
}

/// Serves one file by its container path, e.g. `…/artifacts/mnt/user-data/outputs/report.md`.
///
/// A path continuing past a `.skill` file serves that member from inside the archive; a
/// `.skill` path ending in `/` answers the member list with the validation result.
#[utoipa::path(
    get,
    path = "/api/threads/{thread_id}/artifacts/{path}",
    tag = "artifacts",
    params(
        ("thread_id" = String, Path, description = "Thread id"),
        ("path" = String, Path, example = "mnt/user-data/outputs/report.md",
            description = "Container path without the leading '/' (its slashes literal or percent-encoded)"),
        DownloadQuery,
    ),
    responses(
        (status = 200, description = "The file (or archive member) with its own content type, or `ArchivePreview` for `.skill/`",
            content((ArchivePreview = "application/json"), (String = "*/*"))),
        (status = 206, description = "The requested byte range"),
        (status = 304, description = "Matches If-None-Match"),
        (status = 400, description = "Not under /mnt/user-data, a traversal attempt, or a directory", body = ErrorEnvelope),
        (status = 403, description = "Resolves outside the thread's files", body = ErrorEnvelope),
        (status = 404, description = "No such thread, file or archive member", body = ErrorEnvelope),
        (status = 413, description = "Archive member over 16 MiB", body = ErrorEnvelope),
        (status = 416, description = "Range not satisfiable", body = ErrorEnvelope),
        (status = 422, description = "Invalid thread id, or `preview_failed`: the file could not be rendered (the reason in the message)", body = ErrorEnvelope),
        (status = 503, description = "`preview_unavailable`: no Docker sandbox to render previews in", body = ErrorEnvelope),
    )
)]
pub async fn get_artifact(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ThreadId(id): ThreadId,
    OriginalUri(uri): OriginalUri,
    ApiQuery(query): ApiQuery<DownloadQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let prefix = format!("/api/threads/{id}/artifacts");
    let raw = uri.path().strip_prefix(&prefix).unwrap_or("");
    let path = VirtualPath::parse_user_data(&decode(raw)?)
        .map_err(|e| AppError::new(StatusCode::BAD_REQUEST, "invalid_path", e.to_string()))?;
    let dirs = app.threads.existing_dirs(&caller, &id).await?;
    let etags = app.etags.clone();
    let shown = path.display();
    let held = dirs.clone();
    let resolved = {
        // A revalidation or a range needs at most part of the file: never read it whole.
        let preload =
            !headers.contains_key(header::IF_NONE_MATCH) && !headers.contains_key(header::RANGE);
        tokio::task::spawn_blocking(move || resolve(&dirs, &path, &etags, preload)).await??
    };
    if query.preview == Some(PreviewFormat::Pdf) {
        let Resolved::File(_, info) = resolved else {
            return Err(preview_error(PreviewError::NotOffice));
        };
        let hash = info.etag.trim_matches('"');
        let pdf = app
            .files
            .office_preview(&held, &id, caller.owner(), &shown, hash)
            .await
            .map_err(preview_error)?;
        return pdf_response(pdf, &info, &headers, query.download).await;
    }
    Ok(match resolved {
        Resolved::File(file, info) => file_response(file, &info, &headers, query.download).await,
        Resolved::Member(bytes, info) => bytes_response(bytes, &info, &headers, query.download),
        Resolved::Archive(file) => Json(app.skills.preview(file).await?).into_response(),
    })
}

fn preview_error(e: PreviewError) -> AppError {
    match e {
        PreviewError::NotOffice => AppError::bad_request(e.to_string()),
        PreviewError::Unavailable(m) => {
            AppError::new(StatusCode::SERVICE_UNAVAILABLE, "preview_unavailable", m)
        }
        PreviewError::Failed(m) => {
            AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "preview_failed", m)
        }
    }
}

/// Serves a cached PDF rendering of the office file described by `source`.
async fn pdf_response(
    pdf: std::path::PathBuf,
    source: &FileInfo,
    headers: &HeaderMap,
    download: bool,
) -> ApiResult<Response> {
    let (file, meta) = tokio::task::spawn_blocking(move || {
        let file = File::open(&pdf)?;
        let meta = file.metadata()?;
        std::io::Result::Ok((file, meta))
    })
    .await?
    .map_err(AppError::internal)?;
    let info = FileInfo {
        name: format!("{}.pdf", source.name),
        content_type: "application/pdf".into(),
        len: meta.len(),
        modified: meta.modified().ok(),
        // The rendering of one content is one content.
        etag: format!("\"{}-pdf\"", source.etag.trim_matches('"')),
    };
    Ok(file_response(FileBody::Open(file), &info, headers, download).await)
}

/// Percent-decodes the path once. Slashes may be sent literally (as `artifact_url`s have
/// them) or encoded, as OpenAPI clients encode a path parameter: the segments are checked
/// after decoding, so an encoded `..` or separator is refused all the same, and a segment
/// still encoded after this decode (`%252e`) is refused as a disguise.
fn decode(raw: &str) -> Result<String, AppError> {
    percent_decode_str(raw)
        .decode_utf8()
        .map(|path| path.into_owned())
        .map_err(|_| {
            AppError::new(
                StatusCode::BAD_REQUEST,
                "invalid_path",
                "path is not valid UTF-8",
            )
        })
}

enum Resolved {
    File(FileBody, FileInfo),
    Member(Vec<u8>, FileInfo),
    Archive(File),
}

fn resolve(
    dirs: &ThreadDirs,
    path: &VirtualPath,
    etags: &crate::files::etag::EtagCache,
    preload: bool,
) -> Result<Resolved, AppError> {
    let root = dirs.user_data();
    // A `.skill` file followed by more segments (or a trailing slash) is looked into.
    for (i, segment) in path.segments.iter().enumerate() {
        let inside = i + 1 < path.segments.len() || path.trailing_slash;
        if !inside || !segment.to_ascii_lowercase().ends_with(".skill") {
            continue;
        }
        let rel: std::path::PathBuf = path.segments[..=i].iter().collect();
        let Ok(file) = beneath::open(root, &rel) else {
            continue;
        };
        if !file.metadata().map(|m| m.is_file()).unwrap_or(false) {
            continue;
        }
        let member = path.segments[i + 1..].join("/");
        if member.is_empty() {
            return Ok(Resolved::Archive(file));
        }
        let (name, bytes) = read_member(file, &member).map_err(member_error)?;
        let etag = sha256_etag(&mut bytes.as_slice()).map_err(AppError::internal)?;
        let info = FileInfo {
            content_type: content_type(&name, &bytes[..bytes.len().min(512)]),
            name: name.rsplit('/').next().unwrap_or(&name).to_string(),
            len: bytes.len() as u64,
            modified: None,
            etag,
        };
        return Ok(Resolved::Member(bytes, info));
    }
    let mut file = crate::files::open_beneath(root, path)?;
    let meta = file.metadata().map_err(AppError::internal)?;
    if meta.is_dir() {
        return Err(AppError::bad_request(format!(
            "{} is a directory; list files with GET /api/threads/{{id}}/artifacts",
            path.display()
        )));
    }
    if !meta.is_file() {
        return Err(AppError::bad_request(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    let version = FileVersion::of(&meta);
    let etag = match etags.get(&version) {
        Some(tag) => tag,
        None => etags
            .compute(version, &mut file)
            .map_err(AppError::internal)?,
    };
    let mut head = [0u8; 512];
    file.seek(SeekFrom::Start(0)).map_err(AppError::internal)?;
    let n = file.read(&mut head).map_err(AppError::internal)?;
    file.seek(SeekFrom::Start(0)).map_err(AppError::internal)?;
    let name = path.segments.last().cloned().unwrap_or_default();
    let info = FileInfo {
        content_type: content_type(&name, &head[..n]),
        name,
        len: meta.len(),
        modified: meta.modified().ok(),
        etag,
    };
    let body = if preload {
        FileBody::from_file(file, info.len).map_err(AppError::internal)?
    } else {
        FileBody::Open(file)
    };
    Ok(Resolved::File(body, info))
}

fn member_error(e: MemberError) -> AppError {
    match e {
        MemberError::NotAZip => {
            AppError::new(StatusCode::BAD_REQUEST, "invalid_archive", e.to_string())
        }
        MemberError::Missing(_) => AppError::not_found(e.to_string()),
        MemberError::Directory(_) => AppError::bad_request(e.to_string()),
        MemberError::TooLarge(_) => AppError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            e.to_string(),
        ),
        MemberError::Unreadable(_) => {
            AppError::new(StatusCode::BAD_REQUEST, "invalid_archive", e.to_string())
        }
    }
}
