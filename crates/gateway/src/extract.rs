//! Extractors whose rejections use the error envelope instead of axum's plain text.

use axum::body::Bytes;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::{HeaderMap, StatusCode, header};
use serde::de::{DeserializeOwned, IgnoredAny};

use crate::error::AppError;

/// A JSON object body: not JSON 400, not an object or the wrong shape 422, a content type
/// other than JSON (or `text/plain`, which LangGraph clients behind a proxy send for JSON, and
/// which unsafe cross-site requests cannot use here: the origin check refuses them) 415, too
/// large 413. Every request body of the API is an object, so an array or a
/// scalar that serde would happily read into a struct (`[true]` for `{"enabled": true}`) is
/// refused instead of being taken field by field.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiJson<T>(pub T);

impl<T, S> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
        if !is_json(req.headers()) {
            return Err(AppError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "expected a body with content type application/json",
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                AppError::new(e.status(), "payload_too_large", "request body is too large")
            } else {
                AppError::bad_request(format!("the body could not be read: {}", e.body_text()))
            }
        })?;
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            if serde_json::from_slice::<IgnoredAny>(&bytes).is_err() {
                return Err(AppError::new(
                    StatusCode::BAD_REQUEST,
                    "malformed_json",
                    "the body is not valid JSON",
                ));
            }
            return Err(AppError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_body",
                "the body must be a JSON object",
            ));
        }
        let axum::Json(value) = axum::Json::<T>::from_bytes(&bytes)?;
        Ok(ApiJson(value))
    }
}

/// `application/json` or `application/<something>+json`, any parameters.
fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let essence = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || essence == "text/plain"
        || essence
            .strip_prefix("application/")
            .is_some_and(|sub| sub.ends_with("+json"))
}

/// `axum::extract::Path` with enveloped rejections (400).
#[derive(Debug, Clone, Copy, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(AppError))]
pub struct ApiPath<T>(pub T);

/// `axum::extract::Query` with enveloped rejections (400).
#[derive(Debug, Clone, Copy, Default, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(AppError))]
pub struct ApiQuery<T>(pub T);

/// `axum_extra::extract::Query`, which reads a repeated key (`stream_mode=a&stream_mode=b`)
/// into a `Vec` where axum's own refuses it, with enveloped rejections: 422
/// `invalid_query`, what the run stream has always answered for a stream mode it does not
/// know.
#[derive(Debug, Clone, Copy, Default, FromRequestParts)]
#[from_request(via(axum_extra::extract::Query), rejection(AppError))]
pub struct ApiListQuery<T>(pub T);

impl From<JsonRejection> for AppError {
    fn from(rejection: JsonRejection) -> Self {
        let status = rejection.status();
        let code = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
            StatusCode::UNPROCESSABLE_ENTITY => "invalid_body",
            _ => "malformed_json",
        };
        let message = match &rejection {
            JsonRejection::BytesRejection(_) if status == StatusCode::PAYLOAD_TOO_LARGE => {
                "request body is too large".to_string()
            }
            _ => rejection.body_text(),
        };
        AppError::new(status, code, message)
    }
}

impl From<PathRejection> for AppError {
    fn from(rejection: PathRejection) -> Self {
        match rejection {
            PathRejection::FailedToDeserializePathParams(e) => {
                AppError::new(StatusCode::BAD_REQUEST, "invalid_path", e.body_text())
            }
            other => AppError::internal(anyhow::anyhow!(other.body_text())),
        }
    }
}

impl From<QueryRejection> for AppError {
    fn from(rejection: QueryRejection) -> Self {
        AppError::new(
            StatusCode::BAD_REQUEST,
            "invalid_query",
            rejection.body_text(),
        )
    }
}

impl From<axum_extra::extract::QueryRejection> for AppError {
    fn from(rejection: axum_extra::extract::QueryRejection) -> Self {
        AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_query",
            rejection.body_text(),
        )
    }
}

/// A run request body ([`ApiJson`] of a `RunCreate`), whose unknown `stream_mode` is a 422
/// `invalid_stream_mode` listing the supported modes instead of the deserializer's account
/// of an untagged enum.
#[derive(Debug, Clone)]
pub struct RunBody(pub antler_protocol::runs::RunCreate);

impl<S: Send + Sync> FromRequest<S> for RunBody {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
        let (parts, body) = req.into_parts();
        // Read once, kept for a second look when the body is refused.
        let bytes = Bytes::from_request(Request::from_parts(parts.clone(), body), state)
            .await
            .map_err(|e| {
                if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    AppError::new(e.status(), "payload_too_large", "request body is too large")
                } else {
                    AppError::bad_request(format!("the body could not be read: {}", e.body_text()))
                }
            })?;
        let again = Request::from_parts(parts, axum::body::Body::from(bytes.clone()));
        match ApiJson::from_request(again, state).await {
            Ok(ApiJson(body)) => Ok(RunBody(body)),
            Err(e) if e.status() == StatusCode::UNPROCESSABLE_ENTITY => {
                Err(stream_mode_error(&bytes).unwrap_or(e))
            }
            Err(e) => Err(e),
        }
    }
}

/// The 422 for a `stream_mode` naming a mode that is not supported, if the body has one.
fn stream_mode_error(bytes: &[u8]) -> Option<AppError> {
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    stream_modes_error(value.get("stream_mode")?)
}

/// The 422 for a `stream_mode` value (a name or a list of names) that names an unsupported
/// mode or is not text.
pub(crate) fn stream_modes_error(modes: &serde_json::Value) -> Option<AppError> {
    use antler_protocol::stream::StreamMode;
    let names: Vec<&serde_json::Value> = match modes {
        serde_json::Value::Array(list) => list.iter().collect(),
        serde_json::Value::Null => Vec::new(),
        one => vec![one],
    };
    let message = names.into_iter().find_map(|name| match name.as_str() {
        Some(name) => StreamMode::parse_requested(name).err(),
        None => Some(format!(
            "stream_mode must be a mode name or a list of them; supported modes: {}",
            StreamMode::supported_list()
        )),
    })?;
    Some(AppError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_stream_mode",
        message,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

    #[derive(Debug, serde::Deserialize)]
    struct Toggle {
        #[expect(dead_code, reason = "only its shape matters here")]
        enabled: bool,
    }

    async fn extract(content_type: &str, body: &'static str) -> Result<(), (u16, &'static str)> {
        let request = Request::builder()
            .header(header::CONTENT_TYPE, content_type)
            .body(Body::from(body))
            .map_err(|_| (0, "request"))?;
        ApiJson::<Toggle>::from_request(request, &())
            .await
            .map(|_| ())
            .map_err(|e| (e.status().as_u16(), e.code()))
    }

    #[tokio::test]
    async fn only_a_json_object_of_the_right_shape_is_taken() {
        assert_eq!(
            extract("application/json", r#"{"enabled": true}"#).await,
            Ok(())
        );
        assert_eq!(
            extract(
                "application/merge-patch+json; charset=utf-8",
                r#" {"enabled": false}"#
            )
            .await,
            Ok(())
        );
        assert_eq!(
            extract("application/json", "[true]").await,
            Err((422, "invalid_body")),
            "serde reads a sequence into a struct; the API must not"
        );
        assert_eq!(
            extract("application/json", "true").await,
            Err((422, "invalid_body"))
        );
        assert_eq!(
            extract("application/json", "[tru").await,
            Err((400, "malformed_json"))
        );
        assert_eq!(
            extract("application/json", "{").await,
            Err((400, "malformed_json"))
        );
        assert_eq!(
            extract("application/json", r#"{"enabled": "yes"}"#).await,
            Err((422, "invalid_body"))
        );
        assert_eq!(
            extract("text/plain;charset=UTF-8", r#"{"enabled": true}"#).await,
            Ok(()),
            "LangGraph clients behind a proxy send JSON as text/plain"
        );
        assert_eq!(
            extract("application/x-www-form-urlencoded", r#"{"enabled": true}"#).await,
            Err((415, "unsupported_media_type"))
        );
    }
}
