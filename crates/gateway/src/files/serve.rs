//! Building file responses: content type, disposition, ETag/304, single ranges (206/416).

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::time::SystemTime;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_range_header::{RangeUnsatisfiableError, parse_range_header};
use tokio::io::AsyncReadExt;
use tokio_util::io::ReaderStream;

use super::etag::matches;
use super::names::content_disposition;

/// What a response needs to know about the file it sends.
#[derive(Debug, Clone)]
pub struct FileInfo {
    /// The name shown in `Content-Disposition`.
    pub name: String,
    /// The `Content-Type`.
    pub content_type: String,
    /// Size in bytes.
    pub len: u64,
    /// Last modification.
    pub modified: Option<SystemTime>,
    /// Strong ETag, quoted.
    pub etag: String,
}

/// Types a browser would render actively (scripts): always sent as downloads.
pub fn is_active_content(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    matches!(
        essence,
        "text/html" | "application/xhtml+xml" | "image/svg+xml" | "text/xml" | "application/xml"
    )
}

/// The content type of `name`, using `head` (the first bytes) when the extension says nothing.
pub fn content_type(name: &str, head: &[u8]) -> String {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".skill") {
        return "application/zip".into();
    }
    if let Some(mime) = mime_guess::from_path(name).first() {
        let text = mime.type_() == mime_guess::mime::TEXT
            || matches!(
                mime.essence_str(),
                "application/json" | "application/javascript"
            );
        return if text {
            format!("{}; charset=utf-8", mime.essence_str())
        } else {
            mime.essence_str().to_string()
        };
    }
    if looks_like_text(head) {
        "text/plain; charset=utf-8".into()
    } else {
        "application/octet-stream".into()
    }
}

/// UTF-8 without NUL bytes (a character cut at the end of the sample is fine).
fn looks_like_text(head: &[u8]) -> bool {
    if head.contains(&0) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && head.len() - e.valid_up_to() < 4,
    }
}

fn disposition(info: &FileInfo, download: bool) -> String {
    content_disposition(
        download || is_active_content(&info.content_type),
        &info.name,
    )
}

/// A conditional, range-aware response streaming `file`.
pub async fn file_response(
    file: FileBody,
    info: &FileInfo,
    request: &HeaderMap,
    download: bool,
) -> Response {
    let mut headers = match headers_or_not_modified(info, request, download) {
        Ok(headers) => headers,
        Err(not_modified) => return (StatusCode::NOT_MODIFIED, not_modified).into_response(),
    };
    insert(&mut headers, header::ACCEPT_RANGES, "bytes");
    let range = request
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .filter(|_| if_range_allows(request, &info.etag));
    let (status, start, len) = match range.map(|r| select_range(r, info.len)) {
        Some(RangeChoice::Single(start, end)) => {
            insert(
                &mut headers,
                header::CONTENT_RANGE,
                &format!("bytes {start}-{end}/{}", info.len),
            );
            (StatusCode::PARTIAL_CONTENT, start, end - start + 1)
        }
        Some(RangeChoice::Unsatisfiable) => {
            insert(
                &mut headers,
                header::CONTENT_RANGE,
                &format!("bytes */{}", info.len),
            );
            headers.remove(header::CONTENT_DISPOSITION);
            headers.remove(header::CONTENT_TYPE);
            let error = crate::error::AppError::new(
                StatusCode::RANGE_NOT_SATISFIABLE,
                "range_not_satisfiable",
                format!(
                    "the requested range is outside the file's {} bytes",
                    info.len
                ),
            );
            return (headers, error).into_response();
        }
        Some(RangeChoice::Whole) | None => (StatusCode::OK, 0, info.len),
    };
    insert(&mut headers, header::CONTENT_LENGTH, &len.to_string());
    let body = match file {
        FileBody::Loaded(bytes) => {
            let end = usize::try_from(start + len)
                .unwrap_or(usize::MAX)
                .min(bytes.len());
            let begin = usize::try_from(start).unwrap_or(usize::MAX).min(end);
            Body::from(bytes.slice(begin..end))
        }
        FileBody::Open(mut file) => {
            if start > 0
                && let Err(e) = file.seek(SeekFrom::Start(start))
            {
                return crate::error::AppError::internal(e).into_response();
            }
            let reader = tokio::fs::File::from_std(file).take(len);
            Body::from_stream(ReaderStream::with_capacity(reader, 256 * 1024))
        }
    };
    (status, headers, body).into_response()
}

/// Files up to this size are read in one go while the request is already on a blocking
/// thread; larger ones are streamed.
pub const LOAD_LIMIT: u64 = 4 * 1024 * 1024;

/// The content of a file response.
#[derive(Debug)]
pub enum FileBody {
    /// Small files, read whole (one blocking hop per request instead of one per chunk).
    Loaded(bytes::Bytes),
    /// Large files, streamed.
    Open(File),
}

impl FileBody {
    /// Reads `file` (positioned at its start) whole when it is small.
    pub fn from_file(mut file: File, len: u64) -> std::io::Result<Self> {
        if len > LOAD_LIMIT {
            return Ok(FileBody::Open(file));
        }
        let mut buf = Vec::with_capacity(len as usize);
        std::io::Read::read_to_end(&mut file, &mut buf)?;
        Ok(FileBody::Loaded(buf.into()))
    }
}

/// A fully buffered response (archive members), with the same header policy.
pub fn bytes_response(
    bytes: Vec<u8>,
    info: &FileInfo,
    request: &HeaderMap,
    download: bool,
) -> Response {
    match headers_or_not_modified(info, request, download) {
        Ok(headers) => (StatusCode::OK, headers, Body::from(bytes)).into_response(),
        Err(not_modified) => (StatusCode::NOT_MODIFIED, not_modified).into_response(),
    }
}

/// The validators and content headers every file response carries, or (as the error) the
/// headers of a 304 when the client's `If-None-Match` matches.
fn headers_or_not_modified(
    info: &FileInfo,
    request: &HeaderMap,
    download: bool,
) -> Result<HeaderMap, HeaderMap> {
    let mut headers = HeaderMap::new();
    insert(&mut headers, header::ETAG, &info.etag);
    insert(&mut headers, header::CACHE_CONTROL, "no-cache");
    if let Some(modified) = info.modified {
        insert(
            &mut headers,
            header::LAST_MODIFIED,
            &httpdate::fmt_http_date(modified),
        );
    }
    if request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| matches(v, &info.etag))
    {
        return Err(headers);
    }
    insert(&mut headers, header::CONTENT_TYPE, &info.content_type);
    insert(
        &mut headers,
        header::CONTENT_DISPOSITION,
        &disposition(info, download),
    );
    Ok(headers)
}

enum RangeChoice {
    Single(u64, u64),
    Whole,
    Unsatisfiable,
}

/// One satisfiable range → 206; a malformed header or several ranges → the whole file (RFC
/// 9110 lets a server ignore them); a valid but unsatisfiable range → 416.
fn select_range(header: &str, len: u64) -> RangeChoice {
    let Ok(parsed) = parse_range_header(header) else {
        return RangeChoice::Whole;
    };
    match parsed.validate(len) {
        Ok(ranges) if ranges.len() == 1 && len > 0 => {
            RangeChoice::Single(*ranges[0].start(), *ranges[0].end())
        }
        Ok(_) if len == 0 => RangeChoice::Unsatisfiable,
        Ok(_) => RangeChoice::Whole,
        // A suffix longer than the file means the whole file.
        Err(RangeUnsatisfiableError::FileSuffixOutOfBounds) if len > 0 => {
            RangeChoice::Single(0, len - 1)
        }
        Err(_) => RangeChoice::Unsatisfiable,
    }
}

/// `If-Range` with a different ETag (or any date) means "send everything".
fn if_range_allows(request: &HeaderMap, etag: &str) -> bool {
    match request.get(header::IF_RANGE).and_then(|v| v.to_str().ok()) {
        None => true,
        Some(v) => v.trim() == etag,
    }
}

fn insert(headers: &mut HeaderMap, name: header::HeaderName, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        headers.insert(name, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_come_from_extensions_then_from_content() {
        assert_eq!(content_type("a.md", b""), "text/markdown; charset=utf-8");
        assert_eq!(content_type("a.png", b""), "image/png");
        assert_eq!(
            content_type("a.json", b""),
            "application/json; charset=utf-8"
        );
        assert_eq!(content_type("x.skill", b"PK"), "application/zip");
        assert_eq!(
            content_type("notes", b"plain words"),
            "text/plain; charset=utf-8"
        );
        assert_eq!(
            content_type("blob", b"\x00\x01\x02"),
            "application/octet-stream"
        );
        assert_eq!(
            content_type("cut", "é".as_bytes()[..1].as_ref()),
            "text/plain; charset=utf-8"
        );
    }

    #[test]
    fn html_xhtml_and_svg_are_active() {
        assert!(is_active_content("text/html; charset=utf-8"));
        assert!(is_active_content("image/svg+xml"));
        assert!(is_active_content("application/xhtml+xml"));
        assert!(!is_active_content("text/plain; charset=utf-8"));
    }

    #[test]
    fn ranges_are_chosen_per_rfc_9110() {
        assert!(matches!(
            select_range("bytes=0-9", 100),
            RangeChoice::Single(0, 9)
        ));
        assert!(matches!(
            select_range("bytes=90-", 100),
            RangeChoice::Single(90, 99)
        ));
        assert!(matches!(
            select_range("bytes=-10", 100),
            RangeChoice::Single(90, 99)
        ));
        assert!(matches!(
            select_range("bytes=-500", 100),
            RangeChoice::Single(0, 99)
        ));
        assert!(matches!(
            select_range("bytes=0-9,20-29", 100),
            RangeChoice::Whole
        ));
        assert!(matches!(select_range("items=0-9", 100), RangeChoice::Whole));
        assert!(matches!(
            select_range("bytes=200-300", 100),
            RangeChoice::Unsatisfiable
        ));
        assert!(matches!(
            select_range("bytes=0-0", 0),
            RangeChoice::Unsatisfiable
        ));
    }
}
