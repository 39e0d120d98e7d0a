//! `/api/auth`: first-run setup, sign-in and sign-out, the caller, password, tokens.

use antler_app::accounts::NewSession;
use antler_protocol::auth::{
    AuthStatus, CreatedToken, LoginRequest, Me, PasswordChange, SessionInfo, SetupRequest,
    TokenInfo, TokenRequest,
};
use antler_protocol::error::ErrorEnvelope;
use axum::Json;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::auth::{Authed, client_ip, session_cookies};
use crate::error::{ApiResult, AppError};
use crate::extract::ApiJson;
use crate::params::RecordId;
use crate::state::{AppState, Identity};

/// The answer of a new session: the cookies and the CSRF token.
fn signed_in(state: &AppState, parts: &axum::http::request::Parts, s: NewSession) -> Response {
    let max_age = (s.expires_at - chrono::Utc::now()).num_seconds().max(0);
    let cookies = session_cookies(state, parts, Some((&s.secret, &s.csrf_token, max_age)));
    let body = SessionInfo {
        user: Me {
            id: s.user.user_id.clone(),
            email: s.user.email.clone(),
            role: s.user.role,
            csrf_token: None,
        },
        csrf_token: s.csrf_token,
    };
    let mut headers = HeaderMap::new();
    for c in cookies {
        headers.append(header::SET_COOKIE, c);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    (headers, Json(body)).into_response()
}

/// Whether sign-in is on and whether the first admin still has to be created.
#[utoipa::path(
    get,
    path = "/api/auth/status",
    tag = "auth",
    responses((status = 200, description = "The authentication mode", body = AuthStatus))
)]
pub async fn get_auth_status(State(app): State<AppState>) -> ApiResult<Json<AuthStatus>> {
    Ok(Json(app.accounts.status().await?))
}

/// Creates the first admin with the one-time token of the setup URL the server printed,
/// and signs them in.
#[utoipa::path(
    post,
    path = "/api/auth/setup",
    tag = "auth",
    request_body = SetupRequest,
    responses(
        (status = 200, description = "The first admin, signed in (session cookie set)", body = SessionInfo),
        (status = 403, description = "The setup token is not valid", body = ErrorEnvelope),
        (status = 409, description = "An admin exists already", body = ErrorEnvelope),
        (status = 422, description = "Invalid email or too short a password", body = ErrorEnvelope),
    )
)]
pub async fn create_first_admin(
    State(app): State<AppState>,
    parts: Parts,
    ApiJson(body): ApiJson<SetupRequest>,
) -> ApiResult<Response> {
    let user = app
        .accounts
        .setup(&body.token, &body.email, &body.password)
        .await?;
    let session = app.accounts.new_session(user).await?;
    Ok(signed_in(&app, &parts, session))
}

/// Signs in with email and password: a session cookie, and the CSRF token unsafe requests
/// echo in `X-CSRF-Token`.
#[utoipa::path(
    post,
    path = "/api/auth/login",
    tag = "auth",
    request_body = LoginRequest,
    responses(
        (status = 200, description = "Signed in (session cookie set)", body = SessionInfo),
        (status = 401, description = "Wrong email or password, or a disabled account", body = ErrorEnvelope),
        (status = 429, description = "Too many failed sign-ins for this account or address", body = ErrorEnvelope),
    )
)]
pub async fn create_session(
    State(app): State<AppState>,
    parts: Parts,
    ApiJson(body): ApiJson<LoginRequest>,
) -> ApiResult<Response> {
    let client = client_ip(&app, &parts);
    match app
        .accounts
        .login(&body.email, &body.password, client)
        .await
    {
        Ok(session) => Ok(signed_in(&app, &parts, session)),
        Err(antler_app::AccountError::Throttled(wait)) => {
            let secs = wait.as_secs().max(1);
            let mut response =
                AppError::from(antler_app::AccountError::Throttled(wait)).into_response();
            if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, v);
            }
            Ok(response)
        }
        Err(e) => Err(e.into()),
    }
}

/// Ends the current session (its cookie stops working on every replica).
#[utoipa::path(
    post,
    path = "/api/auth/logout",
    tag = "auth",
    responses((status = 204, description = "Signed out (cookies cleared)"))
)]
pub async fn delete_session(
    State(app): State<AppState>,
    authed: Authed,
    parts: Parts,
) -> ApiResult<Response> {
    if let Some(hash) = &authed.session_hash {
        app.accounts.logout(hash).await?;
    }
    let mut headers = HeaderMap::new();
    for c in session_cookies(&app, &parts, None) {
        headers.append(header::SET_COOKIE, c);
    }
    Ok((StatusCode::NO_CONTENT, headers).into_response())
}

/// The caller.
#[utoipa::path(
    get,
    path = "/api/auth/me",
    tag = "auth",
    responses((status = 200, description = "Who is signed in", body = Me))
)]
pub async fn get_me(authed: Authed) -> Json<Me> {
    Json(Me {
        id: authed.caller.owner().to_string(),
        email: authed.caller.email().to_string(),
        role: authed.caller.role(),
        csrf_token: authed.csrf_token,
    })
}

/// Changes the caller's password; their other sessions end.
#[utoipa::path(
    post,
    path = "/api/auth/password",
    tag = "auth",
    request_body = PasswordChange,
    responses(
        (status = 204, description = "Changed"),
        (status = 422, description = "The current password is wrong, or the new one too short", body = ErrorEnvelope),
    )
)]
pub async fn change_password(
    State(app): State<AppState>,
    authed: Authed,
    ApiJson(body): ApiJson<PasswordChange>,
) -> ApiResult<StatusCode> {
    app.accounts
        .change_password(
            &authed.caller,
            &body.current,
            &body.new,
            authed.session_hash.as_deref(),
        )
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The caller's personal access tokens (never their secrets).
#[utoipa::path(
    get,
    path = "/api/auth/tokens",
    tag = "auth",
    responses((status = 200, description = "The tokens, newest first", body = Vec<TokenInfo>))
)]
pub async fn list_tokens(
    State(app): State<AppState>,
    Identity(caller): Identity,
) -> ApiResult<Json<Vec<TokenInfo>>> {
    Ok(Json(app.accounts.tokens(&caller).await?))
}

/// Creates a personal access token; its secret is in this answer only.
#[utoipa::path(
    post,
    path = "/api/auth/tokens",
    tag = "auth",
    request_body = TokenRequest,
    responses(
        (status = 200, description = "The token, with its secret (shown once)", body = CreatedToken),
        (status = 422, description = "Invalid name or expiry", body = ErrorEnvelope),
    )
)]
pub async fn create_token(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<TokenRequest>,
) -> ApiResult<Json<CreatedToken>> {
    Ok(Json(
        app.accounts
            .create_token(&caller, &body.name, body.expires_in_days)
            .await?,
    ))
}

/// Revokes one of the caller's tokens.
#[utoipa::path(
    delete,
    path = "/api/auth/tokens/{id}",
    tag = "auth",
    params(("id" = String, Path, description = "Token id")),
    responses(
        (status = 204, description = "Revoked"),
        (status = 404, description = "The caller has no such token", body = ErrorEnvelope),
    )
)]
pub async fn revoke_token(
    State(app): State<AppState>,
    Identity(caller): Identity,
    RecordId(id): RecordId,
) -> ApiResult<StatusCode> {
    app.accounts.revoke_token(&caller, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
