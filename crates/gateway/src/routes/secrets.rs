//! `/api/secrets`: named secrets for skills and agents (admins only; values never shown).

use antler_app::secrets::SecretsError;
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::secrets::{SecretInfo, SecretList, SecretPut};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;

use crate::error::{ApiResult, AppError};
use crate::extract::{ApiJson, ApiPath};
use crate::state::{Admin, AppState};

/// `{name}` of a secret's path.
#[derive(Debug, Deserialize)]
pub struct SecretPath {
    /// The secret.
    name: String,
}

impl From<SecretsError> for AppError {
    fn from(e: SecretsError) -> Self {
        match e {
            SecretsError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", m)
            }
            SecretsError::NotFound(m) => AppError::not_found(m),
            SecretsError::Conflict(m) => AppError::conflict(m),
            SecretsError::Unavailable(m) => {
                AppError::new(StatusCode::SERVICE_UNAVAILABLE, "secrets_unavailable", m)
            }
            SecretsError::Store(e) => e.into(),
        }
    }
}

/// The stored secrets: names, what they are for, who gets them; never a value.
#[utoipa::path(
    get,
    path = "/api/secrets",
    tag = "secrets",
    responses(
        (status = 200, description = "The secrets", body = SecretList),
        (status = 403, description = "Not an admin", body = ErrorEnvelope),
    )
)]
pub async fn list_secrets(
    State(app): State<AppState>,
    Admin(_admin): Admin,
) -> ApiResult<Json<SecretList>> {
    Ok(Json(app.secrets.list().await?))
}

/// Stores a secret or changes one (a field left out stays as stored). Runs of the agents it
/// names, and runs using the skills it names, get it as the environment variable `name`;
/// its value is replaced by `[secret:NAME]` in everything that leaves the sandbox.
#[utoipa::path(
    put,
    path = "/api/secrets/{name}",
    tag = "secrets",
    params(("name" = String, Path, description = "Secret name (an environment variable name)")),
    request_body = SecretPut,
    responses(
        (status = 200, description = "The secret, without its value", body = SecretInfo),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 403, description = "Not an admin", body = ErrorEnvelope),
        (status = 404, description = "No such secret, and no value to create it", body = ErrorEnvelope),
        (status = 409, description = "A reserved name (PATH, LD_*, ANTLER_*, the proxy's), too many secrets, or a value sealed with another key", body = ErrorEnvelope),
        (status = 422, description = "A bad name, value or list", body = ErrorEnvelope),
        (status = 503, description = "The server has no ANTLER_SECRETS_KEY", body = ErrorEnvelope),
    )
)]
pub async fn put_secret(
    State(app): State<AppState>,
    Admin(admin): Admin,
    ApiPath(path): ApiPath<SecretPath>,
    ApiJson(body): ApiJson<SecretPut>,
) -> ApiResult<Json<SecretInfo>> {
    Ok(Json(
        app.secrets.put(admin.email(), &path.name, body).await?,
    ))
}

/// Removes a secret: later runs no longer get it.
#[utoipa::path(
    delete,
    path = "/api/secrets/{name}",
    tag = "secrets",
    params(("name" = String, Path, description = "Secret name")),
    responses(
        (status = 204, description = "Removed"),
        (status = 403, description = "Not an admin", body = ErrorEnvelope),
        (status = 404, description = "No such secret", body = ErrorEnvelope),
    )
)]
pub async fn delete_secret(
    State(app): State<AppState>,
    Admin(_admin): Admin,
    ApiPath(path): ApiPath<SecretPath>,
) -> ApiResult<StatusCode> {
    app.secrets.delete(&path.name).await?;
    Ok(StatusCode::NO_CONTENT)
}
