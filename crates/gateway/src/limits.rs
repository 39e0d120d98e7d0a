//! Limits on the request line and headers, answered in the JSON envelope (414, 431).
//! hyper's own limits are set higher ([`crate::serve`]); only a URI over hyper's fixed
//! 64 KiB still gets hyper's empty 414.

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::AppError;

/// Longest request target (path and query) accepted.
pub const MAX_URI_BYTES: usize = 16 * 1024;
/// Most headers in one request.
pub const MAX_HEADERS: usize = 100;
/// Most bytes of header names and values in one request.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

/// Refuses requests over the limits before any handler runs.
pub async fn request_limits(request: Request, next: Next) -> Response {
    let uri = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if uri > MAX_URI_BYTES {
        return AppError::new(
            StatusCode::URI_TOO_LONG,
            "uri_too_long",
            format!("the request URI is {uri} bytes; at most {MAX_URI_BYTES} are accepted"),
        )
        .into_response();
    }
    let headers = request.headers();
    let bytes: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if headers.len() > MAX_HEADERS || bytes > MAX_HEADER_BYTES {
        return AppError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "headers_too_large",
            format!(
                "{} headers of {bytes} bytes; at most {MAX_HEADERS} headers and {MAX_HEADER_BYTES} bytes are accepted",
                headers.len()
            ),
        )
        .into_response();
    }
    next.run(request).await
}
