//! `/api/users`: admins list, create and change accounts.

use antler_protocol::auth::{NewUser, Role, UserInfo, UserPatch};
use antler_protocol::error::ErrorEnvelope;
use axum::Json;
use axum::extract::State;

use crate::error::ApiResult;
use crate::extract::ApiJson;
use crate::params::RecordId;
use crate::state::{Admin, AppState};

/// Every account.
#[utoipa::path(
    get,
    path = "/api/users",
    tag = "users",
    responses(
        (status = 200, description = "The accounts, oldest first", body = Vec<UserInfo>),
        (status = 403, description = "The caller is not an admin", body = ErrorEnvelope),
    )
)]
pub async fn list_users(
    State(app): State<AppState>,
    Admin(_admin): Admin,
) -> ApiResult<Json<Vec<UserInfo>>> {
    Ok(Json(app.accounts.users().await?))
}

/// Creates an account.
#[utoipa::path(
    post,
    path = "/api/users",
    tag = "users",
    request_body = NewUser,
    responses(
        (status = 200, description = "The account", body = UserInfo),
        (status = 403, description = "The caller is not an admin", body = ErrorEnvelope),
        (status = 409, description = "The email is taken", body = ErrorEnvelope),
        (status = 422, description = "Invalid email or too short a password", body = ErrorEnvelope),
    )
)]
pub async fn create_user(
    State(app): State<AppState>,
    Admin(_admin): Admin,
    ApiJson(body): ApiJson<NewUser>,
) -> ApiResult<Json<UserInfo>> {
    let user = app
        .accounts
        .create_user(&body.email, &body.password, body.role.unwrap_or(Role::User))
        .await?;
    Ok(Json(antler_app::accounts::user_info(&user)))
}

/// Disables or re-enables an account, changes its role, or sets a new password (which ends
/// its sessions).
#[utoipa::path(
    patch,
    path = "/api/users/{id}",
    tag = "users",
    params(("id" = String, Path, description = "Account id")),
    request_body = UserPatch,
    responses(
        (status = 200, description = "The account", body = UserInfo),
        (status = 403, description = "The caller is not an admin", body = ErrorEnvelope),
        (status = 404, description = "No such account", body = ErrorEnvelope),
        (status = 409, description = "Admins cannot disable or demote themselves", body = ErrorEnvelope),
        (status = 422, description = "Too short a password", body = ErrorEnvelope),
    )
)]
pub async fn update_user(
    State(app): State<AppState>,
    Admin(caller): Admin,
    RecordId(id): RecordId,
    ApiJson(body): ApiJson<UserPatch>,
) -> ApiResult<Json<UserInfo>> {
    Ok(Json(
        app.accounts
            .update_user(
                &caller,
                &id,
                body.disabled,
                body.role,
                body.password.as_deref(),
            )
            .await?,
    ))
}
