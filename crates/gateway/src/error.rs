//! The one HTTP error type, and the one place where the app's domain errors become HTTP
//! statuses. Every failure becomes the JSON envelope `{"error":{"code","message","details"?}}`;
//! internal error text stays in the logs.

use antler_app::runs::RunError;
use antler_app::skills::{ImportError, InstallError};
use antler_app::{
    AccountError, AssistantError, FileError, RunOpError, SkillOpError, StoreError, ThreadError,
};
use antler_protocol::error::{ErrorBody, ErrorEnvelope};
use antler_protocol::skills::InstallFinding;
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An API error: status, stable code, safe message, optional details.
#[derive(Debug)]
pub struct AppError {
    status: StatusCode,
    code: &'static str,
    message: String,
    details: Option<serde_json::Value>,
    /// Seconds for a `Retry-After` header (a refusal that lifts at a known time).
    retry_after_secs: Option<u64>,
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
            retry_after_secs: None,
            source: None,
        }
    }

    /// Adds a `Retry-After` header of `secs` seconds.
    pub fn with_retry_after(mut self, secs: u64) -> Self {
        self.retry_after_secs = Some(secs);
        self
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

impl From<StoreError> for AppError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict(m) => AppError::conflict(m),
            StoreError::Unstorable(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "unstorable_value", m)
            }
            other => AppError::internal(other),
        }
    }
}

impl From<tokio::task::JoinError> for AppError {
    fn from(e: tokio::task::JoinError) -> Self {
        AppError::internal(e)
    }
}

impl From<AccountError> for AppError {
    fn from(e: AccountError) -> Self {
        let message = e.to_string();
        match e {
            AccountError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", m)
            }
            AccountError::BadCredentials => {
                AppError::new(StatusCode::UNAUTHORIZED, "bad_credentials", message)
            }
            AccountError::Throttled(wait) => {
                AppError::new(StatusCode::TOO_MANY_REQUESTS, "too_many_attempts", message)
                    .with_details(json!({"retry_after_secs": wait.as_secs().max(1)}))
            }
            AccountError::BadSetupToken => {
                AppError::new(StatusCode::FORBIDDEN, "bad_setup_token", message)
            }
            AccountError::SetupDone => AppError::new(StatusCode::CONFLICT, "setup_done", message),
            AccountError::EmailTaken => AppError::new(StatusCode::CONFLICT, "email_taken", message),
            AccountError::NotFound(m) => AppError::not_found(m),
            AccountError::LastAdmin(m) => AppError::conflict(m),
            AccountError::Store(e) => e.into(),
            AccountError::Internal(e) => AppError::internal(e),
        }
    }
}

impl From<ThreadError> for AppError {
    fn from(e: ThreadError) -> Self {
        match e {
            ThreadError::InvalidId(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_thread_id", m)
            }
            ThreadError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", m)
            }
            e @ ThreadError::NotFound(_) => AppError::not_found(e.to_string()),
            e @ ThreadError::Exists(_) => AppError::conflict(e.to_string()),
            e @ ThreadError::Unreadable(_) => AppError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "thread_state_unreadable",
                format!("{e}; it was left untouched"),
            ),
            ThreadError::Store(e) => e.into(),
            ThreadError::Io(e) => AppError::internal(e),
        }
    }
}

impl From<FileError> for AppError {
    fn from(e: FileError) -> Self {
        match e {
            FileError::Thread(e) => e.into(),
            e @ (FileError::BadName(_) | FileError::Directory(_)) => {
                AppError::bad_request(e.to_string())
            }
            e @ FileError::NotFound(_) => AppError::not_found(e.to_string()),
            FileError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", m)
            }
            FileError::TooLarge(m) => {
                AppError::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", m)
            }
            FileError::Io(e) => AppError::internal(e),
        }
    }
}

impl From<RunError> for AppError {
    fn from(e: RunError) -> Self {
        match e {
            RunError::NotFound(m) => AppError::not_found(m),
            RunError::Conflict(m) => AppError::conflict(m),
            RunError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", m)
            }
            RunError::Unreadable(m) => AppError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "thread_state_unreadable",
                m,
            ),
            RunError::Internal(m) => AppError::internal(anyhow::anyhow!(m)),
        }
    }
}

impl From<AssistantError> for AppError {
    fn from(e: AssistantError) -> Self {
        match e {
            e @ AssistantError::NotFound(_) => AppError::not_found(e.to_string()),
            AssistantError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", m)
            }
            AssistantError::Conflict(m) => AppError::conflict(m),
            AssistantError::Forbidden(m) => {
                AppError::new(StatusCode::FORBIDDEN, "admin_required", m)
            }
            AssistantError::Store(e) => e.into(),
        }
    }
}

impl From<antler_app::CronError> for AppError {
    fn from(e: antler_app::CronError) -> Self {
        use antler_app::CronError;
        match e {
            e @ CronError::NotFound(_) => AppError::not_found(e.to_string()),
            CronError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_cron", m)
            }
            CronError::Thread(e) => e.into(),
            CronError::Assistant(e) => e.into(),
            CronError::Run(e) => e.into(),
            CronError::Store(e) => e.into(),
        }
    }
}

impl From<RunOpError> for AppError {
    fn from(e: RunOpError) -> Self {
        match e {
            RunOpError::Thread(e) => e.into(),
            RunOpError::Run(e) => e.into(),
            RunOpError::Files(e) => e.into(),
            RunOpError::Assistant(e) => e.into(),
            e @ RunOpError::InvalidRunId(_) => AppError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_run_id",
                e.to_string(),
            ),
            e @ RunOpError::RunNotFound { .. } => AppError::not_found(e.to_string()),
            e @ RunOpError::Active(_) => {
                AppError::new(StatusCode::CONFLICT, "run_active", e.to_string())
            }
            RunOpError::Quota { used, limit } => AppError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "storage_quota_exceeded",
                RunOpError::Quota { used, limit }.to_string(),
            )
            .with_details(json!({ "used_bytes": used, "limit_bytes": limit })),
            RunOpError::UsageLimit(reached) => usage_limit(&reached),
            RunOpError::Store(e) => e.into(),
        }
    }
}

impl From<SkillOpError> for AppError {
    fn from(e: SkillOpError) -> Self {
        match e {
            e @ (SkillOpError::NotFound(_)
            | SkillOpError::NoCustom(_)
            | SkillOpError::NoPersonal(_)
            | SkillOpError::Vanished(_)) => AppError::not_found(e.to_string()),
            SkillOpError::Ambiguous(name, categories) => {
                let details = json!({ "name": name, "categories": categories });
                AppError::conflict(SkillOpError::Ambiguous(name, categories).to_string())
                    .with_details(details)
            }
            SkillOpError::Forbidden(m) => AppError::new(StatusCode::FORBIDDEN, "admin_required", m),
            SkillOpError::Invalid(m) => AppError::bad_request(m),
            e @ SkillOpError::ReadOnly(_) => AppError::forbidden(e.to_string()),
            SkillOpError::Conflict(m) => AppError::conflict(m),
            SkillOpError::Install(e) => install_error(e),
            SkillOpError::Import(e) => import_error(e),
            SkillOpError::UnknownImport { unknown, available } => {
                let details = json!({ "unknown": unknown, "available": available });
                let message = SkillOpError::UnknownImport { unknown, available }.to_string();
                AppError::new(StatusCode::BAD_REQUEST, "unknown_skill", message)
                    .with_details(details)
            }
            SkillOpError::Store(e) => e.into(),
            SkillOpError::Internal(m) => AppError::internal(anyhow::anyhow!(m)),
        }
    }
}

/// A run refused over a daily usage limit: 429 `usage_limit_exceeded` with the limit, what
/// was used, and when it resets (also as `Retry-After`).
fn usage_limit(reached: &antler_app::usage::LimitReached) -> AppError {
    use antler_app::usage::LimitKind;
    let (limit, used) = match reached.kind {
        LimitKind::Tokens { limit, used } => (json!(limit), json!(used)),
        LimitKind::Cost { limit, used } => (json!(limit), json!(used)),
    };
    AppError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "usage_limit_exceeded",
        reached.to_string(),
    )
    .with_details(json!({
        "limit": reached.limit_name(),
        "limit_value": limit,
        "used": used,
        "resets_at": antler_app::usage::rfc3339(reached.resets_at),
    }))
    .with_retry_after(reached.retry_after_secs())
}

/// Import failures: the source (400), the server (503), the repository (422, 413, 504).
fn import_error(e: ImportError) -> AppError {
    let (status, code) = match &e {
        ImportError::InvalidSource(_) => (StatusCode::BAD_REQUEST, "invalid_source"),
        ImportError::GitUnavailable => (StatusCode::SERVICE_UNAVAILABLE, "git_unavailable"),
        ImportError::CloneFailed(_) => (StatusCode::UNPROCESSABLE_ENTITY, "fetch_failed"),
        ImportError::TooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "repository_too_large"),
        ImportError::Timeout(_) => (StatusCode::GATEWAY_TIMEOUT, "fetch_timeout"),
        ImportError::Io(_) => return AppError::internal(e),
    };
    AppError::new(status, code, e.to_string())
}

/// Installer failures: 400 invalid, 413 too large, 409 conflicts.
fn install_error(e: InstallError) -> AppError {
    match e {
        InstallError::NotAZip(why) => AppError::new(
            StatusCode::BAD_REQUEST,
            "invalid_archive",
            "the file is not a zip archive",
        )
        .with_details(json!({ "findings": [InstallFinding {
            rule: "not-a-zip".into(),
            path: String::new(),
            message: why,
        }] })),
        InstallError::Refused {
            findings,
            too_large,
        } => {
            let (status, code) = if too_large {
                (StatusCode::PAYLOAD_TOO_LARGE, "archive_too_large")
            } else {
                (StatusCode::BAD_REQUEST, "invalid_archive")
            };
            let summary = findings
                .iter()
                .take(3)
                .map(|f| f.message.as_str())
                .collect::<Vec<_>>()
                .join("; ");
            AppError::new(
                status,
                code,
                format!(
                    "the archive was refused ({} problem(s)): {summary}",
                    findings.len()
                ),
            )
            .with_details(json!({ "findings": findings }))
        }
        InstallError::Exists(name) => AppError::new(
            StatusCode::CONFLICT,
            "skill_exists",
            format!(
                "a custom skill named '{name}' is already installed; pass overwrite to replace it"
            ),
        )
        .with_details(json!({ "name": name })),
        InstallError::Busy(name) => AppError::new(
            StatusCode::CONFLICT,
            "install_in_progress",
            format!("another install or delete of '{name}' is in progress; try again"),
        )
        .with_details(json!({ "name": name })),
        InstallError::NotFound(name) => {
            AppError::not_found(format!("no custom skill named '{name}'"))
        }
        InstallError::Io(e) => AppError::internal(e),
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
        if let Some(secs) = self.retry_after_secs {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(secs),
            );
        }
        if let Some(cause) = self.source {
            response
                .extensions_mut()
                .insert(InternalCause(format!("{cause:#}")));
        }
        response
    }
}
