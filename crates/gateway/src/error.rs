//! The one HTTP error type. Every failure becomes the JSON envelope
//! `{"error":{"code","message","details"?}}`; internal error text stays in the logs.

use antler_protocol::error::{ErrorBody, ErrorEnvelope};
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// An API error: status, stable code, safe message, optional details.
#[derive(Debug)]
pub struct AppError {
    status: StatusCode,
    code: &'static str,
    message: String,
    details: Option<serde_json::Value>,
    /// The internal cause, logged by middleware and never sent.
    source: Option<anyhow::Error>,
}

/// Carried in response extensions so the logging middleware can report the cause once.
#[derive(Debug, Clone)]
pub(crate) struct InternalCause(pub(crate) String);

/// Result alias for handlers.
pub type ApiResult<T> = Result<T, AppError>;

impl AppError {
    /// An error with an explicit status and code.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        AppError {
            status,
            code,
            message: message.into(),
            details: None,
            source: None,
        }
    }

    /// Adds structured details.
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = Some(details);
        self
    }

    /// 400 `invalid_request`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_request", message)
    }

    /// 404 `not_found`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 409 `conflict`.
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "conflict", message)
    }

    /// 403 `forbidden`.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    /// 500 `internal`; the cause is logged, not sent.
    pub fn internal(cause: impl Into<anyhow::Error>) -> Self {
        let mut e = Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal server error",
        );
        e.source = Some(cause.into());
        e
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The stable code.
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The message sent to clients.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The structured details, when any.
    pub fn details(&self) -> Option<&serde_json::Value> {
        self.details.as_ref()
    }
}

impl From<antler_store::StoreError> for AppError {
    fn from(e: antler_store::StoreError) -> Self {
        match e {
            antler_store::StoreError::Conflict(m) => AppError::conflict(m),
            other => AppError::internal(other),
        }
    }
}

impl From<tokio::task::JoinError> for AppError {
    fn from(e: tokio::task::JoinError) -> Self {
        AppError::internal(e)
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let envelope = ErrorEnvelope {
            error: ErrorBody {
                code: self.code.to_string(),
                message: self.message,
                details: self.details,
            },
        };
        let mut response = (self.status, Json(envelope)).into_response();
        if let Some(cause) = self.source {
            response
                .extensions_mut()
                .insert(InternalCause(format!("{cause:#}")));
        }
        response
    }
}
