//! `/api/preferences`: the caller's preferences the server acts on (follow-up suggestions).

use antler_protocol::error::ErrorEnvelope;
use antler_protocol::preferences::{Preferences, PreferencesPatch};
use axum::Json;
use axum::extract::State;

use crate::error::ApiResult;
use crate::extract::ApiJson;
use crate::state::{AppState, Identity};

/// The caller's preferences.
#[utoipa::path(get, path = "/api/preferences", tag = "users",
    responses((status = 200, description = "The preferences", body = Preferences)))]
pub async fn get_preferences(
    State(app): State<AppState>,
    Identity(caller): Identity,
) -> ApiResult<Json<Preferences>> {
    Ok(Json(app.preferences(&caller).await?))
}

/// Changes the caller's preferences (absent fields stay as they are).
#[utoipa::path(patch, path = "/api/preferences", tag = "users", request_body = PreferencesPatch,
    responses(
        (status = 200, description = "The preferences", body = Preferences),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Unknown field or a value of the wrong type", body = ErrorEnvelope),
    ))]
pub async fn patch_preferences(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(patch): ApiJson<PreferencesPatch>,
) -> ApiResult<Json<Preferences>> {
    Ok(Json(app.set_preferences(&caller, patch).await?))
}
