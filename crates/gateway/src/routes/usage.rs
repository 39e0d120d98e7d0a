//! `/api/usage`: what model calls used and cost per day, model and person, and the daily
//! limits admins set.

use antler_app::UsageError;
use antler_app::usage::ReportParams;
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::usage::{UsageLimitList, UsageLimits, UsageReport, UserUsageLimits};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::{ApiResult, AppError};
use crate::extract::{ApiJson, ApiListQuery, ApiPath};
use crate::state::{Admin, AppState, Identity};

impl From<UsageError> for AppError {
    fn from(e: UsageError) -> Self {
        match e {
            UsageError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_query", m)
            }
            UsageError::Forbidden(m) => AppError::forbidden(m),
            e @ UsageError::UnknownUser(_) => AppError::not_found(e.to_string()),
            UsageError::Store(e) => e.into(),
        }
    }
}

/// The query of `GET /api/usage`. An empty `user` or `group_by` is as if it were left out,
/// as in every query of the API; an empty day is not a day.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct UsageQuery {
    /// First UTC day included (`YYYY-MM-DD`); default: 29 days before `to`.
    #[param(format = Date, pattern = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$")]
    #[serde(default, deserialize_with = "given")]
    from: Option<String>,
    /// Last UTC day included (`YYYY-MM-DD`); default: today. Before `from`: an empty report.
    #[param(format = Date, pattern = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$")]
    #[serde(default, deserialize_with = "given")]
    to: Option<String>,
    /// Whose usage: the caller's by default; another user id or `all` (everyone) for
    /// admins only.
    #[param(
        pattern = r"^(all|local|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$"
    )]
    user: Option<String>,
    /// Group rows by `day`, `model` and/or `user`, comma-separated; default `day,model`.
    #[param(pattern = r"^((day|model|user)(,(day|model|user))*)?$")]
    group_by: Option<String>,
}

/// Refuses a user id that is neither an account's UUID nor `local` (the one user of
/// `auth.mode: none`).
/// A parameter's value as given, empty included (the query decoder answers an empty value
/// as a missing one otherwise).
fn given<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

fn check_user_id(id: &str, all_allowed: bool) -> Result<(), AppError> {
    let ok = (all_allowed && id == antler_app::usage::ALL_USERS)
        || id == "local"
        || uuid::Uuid::parse_str(id).is_ok_and(|u| u.hyphenated().to_string() == id.to_lowercase());
    if ok {
        return Ok(());
    }
    let shown: String = id.chars().take(80).collect();
    let others = if all_allowed { ", `all`" } else { "" };
    Err(AppError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_user_id",
        format!("{shown:?} is not a user id (an account's UUID, `local`{others})"),
    ))
}

/// What the caller's runs used per UTC day and model (admins: anyone's or everyone's), with
/// their daily limits.
#[utoipa::path(
    get,
    path = "/api/usage",
    tag = "usage",
    params(UsageQuery),
    responses(
        (status = 200, description = "The usage, summed per group, and the limits of the person reported on", body = UsageReport),
        (status = 403, description = "A non-admin asked for someone else's usage or everyone's", body = ErrorEnvelope),
        (status = 404, description = "No such user", body = ErrorEnvelope),
        (status = 422, description = "A bad day, user id or grouping", body = ErrorEnvelope),
    )
)]
pub async fn get_usage(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiListQuery(q): ApiListQuery<UsageQuery>,
) -> ApiResult<Json<UsageReport>> {
    if let Some(user) = &q.user {
        check_user_id(user, true)?;
    }
    let params = ReportParams {
        from: q.from,
        to: q.to,
        user: q.user,
        group_by: q.group_by,
    };
    Ok(Json(app.usage.report(&caller, &params).await?))
}

/// The configured default limits and every person's own (admins only).
#[utoipa::path(
    get,
    path = "/api/usage/limits",
    tag = "usage",
    responses(
        (status = 200, description = "The defaults and the people with their own limits", body = UsageLimitList),
        (status = 403, description = "Not an admin", body = ErrorEnvelope),
    )
)]
pub async fn list_limits(
    State(app): State<AppState>,
    Admin(admin): Admin,
) -> ApiResult<Json<UsageLimitList>> {
    Ok(Json(app.usage.limits(&admin).await?))
}

/// `{user_id}` of a person's limits.
#[derive(Debug, Deserialize)]
pub struct LimitPath {
    /// The person.
    user_id: String,
}

/// Sets a person's daily limits (admins only); `null` falls back to the configured default.
/// A run they start once today's usage reached a limit is refused with 429
/// `usage_limit_exceeded`.
#[utoipa::path(
    put,
    path = "/api/usage/limits/{user_id}",
    tag = "usage",
    params(("user_id" = String, Path, description = "The person: an account's id, or `local` when accounts are off", pattern = "^(local|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$")),
    request_body = UsageLimits,
    responses(
        (status = 200, description = "The person's limits as stored (`updated_at` null when both were cleared)", body = UserUsageLimits),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 403, description = "Not an admin", body = ErrorEnvelope),
        (status = 404, description = "No such user", body = ErrorEnvelope),
        (status = 422, description = "A bad user id, a negative or unknown limit", body = ErrorEnvelope),
    )
)]
pub async fn put_limits(
    State(app): State<AppState>,
    Admin(admin): Admin,
    ApiPath(path): ApiPath<LimitPath>,
    ApiJson(body): ApiJson<UsageLimits>,
) -> ApiResult<Json<UserUsageLimits>> {
    check_user_id(&path.user_id, false)?;
    Ok(Json(
        app.usage
            .set_limits(&admin, &path.user_id.to_lowercase(), body)
            .await?,
    ))
}
