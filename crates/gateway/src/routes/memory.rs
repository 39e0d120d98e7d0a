//! `/api/memory…`: what the agent remembers about the caller — list and search, add,
//! correct, delete, forget everything, the on/off switch, export and import.

use antler_app::MemoryError;
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::memory::{
    Fact, FactCategory, FactCreate, FactPatch, MemoryExport, MemoryImported, MemoryList,
    MemorySettingsBody,
};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::{ApiResult, AppError};
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::state::{AppState, Identity};

impl From<MemoryError> for AppError {
    fn from(e: MemoryError) -> Self {
        match e {
            e @ MemoryError::NotFound(_) => AppError::not_found(e.to_string()),
            MemoryError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", m)
            }
            MemoryError::Store(e) => e.into(),
        }
    }
}

/// `GET /api/memory` query.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct MemoryQuery {
    /// Words to search for (facts ranked by relevance).
    pub q: Option<String>,
    /// Only this category.
    pub category: Option<FactCategory>,
    /// Page size (default 100, at most 1000).
    #[param(format = Int64, maximum = 4294967295_u64)]
    pub limit: Option<u32>,
    /// Facts to skip.
    #[param(format = Int64, maximum = 4294967295_u64)]
    pub offset: Option<u32>,
}

/// `DELETE /api/memory` query.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ForgetQuery {
    /// Must be `true`: forgetting everything cannot be undone.
    pub confirm: Option<bool>,
}

/// How many facts an operation affected.
#[derive(Debug, Serialize, ToSchema)]
pub struct FactCount {
    /// The number.
    pub count: u64,
}

/// `{fact_id}` of a fact's path.
#[derive(Debug, Deserialize)]
pub struct FactPath {
    /// The fact.
    fact_id: String,
}

/// The caller's facts (searched with `q`), how many, the summary and whether memory is on.
#[utoipa::path(get, path = "/api/memory", tag = "memory", params(MemoryQuery),
    responses(
        (status = 200, description = "The memory", body = MemoryList),
        (status = 400, description = "Invalid query", body = ErrorEnvelope),
    ))]
pub async fn list_memory(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiQuery(q): ApiQuery<MemoryQuery>,
) -> ApiResult<Json<MemoryList>> {
    let list = app
        .memory
        .list(
            &caller,
            q.q,
            q.category,
            q.limit.unwrap_or(100),
            q.offset.unwrap_or(0),
        )
        .await?;
    Ok(Json(list))
}

/// Forgets everything the agent remembers about the caller (`?confirm=true`).
#[utoipa::path(delete, path = "/api/memory", tag = "memory", params(ForgetQuery),
    responses(
        (status = 200, description = "How many facts were forgotten", body = FactCount),
        (status = 400, description = "Invalid query", body = ErrorEnvelope),
        (status = 422, description = "Not confirmed", body = ErrorEnvelope),
    ))]
pub async fn forget_memory(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiQuery(q): ApiQuery<ForgetQuery>,
) -> ApiResult<Json<FactCount>> {
    if q.confirm != Some(true) {
        return Err(AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "confirmation_required",
            "forgetting everything cannot be undone: send confirm=true",
        ));
    }
    let count = app.memory.forget_all(&caller).await?;
    Ok(Json(FactCount { count }))
}

/// Remembers a fact the caller gives (secrets are refused).
#[utoipa::path(post, path = "/api/memory/facts", tag = "memory", request_body = FactCreate,
    responses(
        (status = 200, description = "The fact", body = Fact),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid fact, or one that looks like a secret", body = ErrorEnvelope),
    ))]
pub async fn add_fact(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<FactCreate>,
) -> ApiResult<Json<Fact>> {
    Ok(Json(app.memory.add(&caller, body).await?))
}

/// A corrected version of a fact (the old one is kept as its history).
#[utoipa::path(patch, path = "/api/memory/facts/{fact_id}", tag = "memory",
    params(("fact_id" = String, Path, description = "Fact id")), request_body = FactPatch,
    responses(
        (status = 200, description = "The new version", body = Fact),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such fact", body = ErrorEnvelope),
        (status = 422, description = "Invalid change", body = ErrorEnvelope),
    ))]
pub async fn update_fact(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<FactPath>,
    ApiJson(body): ApiJson<FactPatch>,
) -> ApiResult<Json<Fact>> {
    Ok(Json(app.memory.update(&caller, &path.fact_id, body).await?))
}

/// Forgets a fact with its history.
#[utoipa::path(delete, path = "/api/memory/facts/{fact_id}", tag = "memory",
    params(("fact_id" = String, Path, description = "Fact id")),
    responses(
        (status = 204, description = "Forgotten"),
        (status = 404, description = "No such fact", body = ErrorEnvelope),
    ))]
pub async fn delete_fact(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<FactPath>,
) -> ApiResult<StatusCode> {
    app.memory.delete(&caller, &path.fact_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Whether memory is on for the caller, and their summary.
#[utoipa::path(get, path = "/api/memory/settings", tag = "memory",
    responses((status = 200, description = "The settings", body = MemorySettingsBody)))]
pub async fn get_memory_settings(
    State(app): State<AppState>,
    Identity(caller): Identity,
) -> ApiResult<Json<MemorySettingsBody>> {
    Ok(Json(app.memory.settings(&caller).await?))
}

/// Switches memory on or off for the caller and sets their summary.
#[utoipa::path(put, path = "/api/memory/settings", tag = "memory", request_body = MemorySettingsBody,
    responses(
        (status = 200, description = "The settings", body = MemorySettingsBody),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid summary", body = ErrorEnvelope),
    ))]
pub async fn put_memory_settings(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<MemorySettingsBody>,
) -> ApiResult<Json<MemorySettingsBody>> {
    Ok(Json(app.memory.set_settings(&caller, body).await?))
}

/// Everything remembered about the caller, as JSON to keep or import elsewhere.
#[utoipa::path(get, path = "/api/memory/export", tag = "memory",
    responses((status = 200, description = "The memory", body = MemoryExport)))]
pub async fn export_memory(
    State(app): State<AppState>,
    Identity(caller): Identity,
) -> ApiResult<Json<MemoryExport>> {
    Ok(Json(app.memory.export(&caller).await?))
}

/// Adds exported facts in one transaction (all checked first: one invalid fact refuses the
/// import); facts already remembered are skipped, and the answer says what was kept.
#[utoipa::path(post, path = "/api/memory/import", tag = "memory", request_body = MemoryExport,
    responses(
        (status = 200, description = "What was added, skipped as already remembered, not kept and forgotten to make room", body = MemoryImported),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "An invalid fact", body = ErrorEnvelope),
    ))]
pub async fn import_memory(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<MemoryExport>,
) -> ApiResult<Json<MemoryImported>> {
    Ok(Json(app.memory.import(&caller, body).await?))
}
