//! `GET /api/models`: what the UI needs to know about the configured models.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::state::AppState;

/// One configured model (no secrets).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ModelInfo {
    /// The name runs select it by.
    pub name: String,
    /// The model id at the provider.
    pub model: String,
    /// Streams reasoning.
    pub supports_reasoning: bool,
    /// Takes images; other models are told an image was attached.
    pub supports_vision: bool,
    /// A scripted demo model.
    pub demo: bool,
}

/// The configured models.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ModelList {
    /// Models, the default first unless `default` says otherwise.
    pub models: Vec<ModelInfo>,
    /// The default model's name (`null` when none is configured).
    pub default: Option<String>,
}

/// The configured models; an empty list means runs cannot start.
#[utoipa::path(
    get,
    path = "/api/models",
    tag = "system",
    responses((status = 200, description = "Configured models", body = ModelList))
)]
pub async fn list_models(State(app): State<AppState>) -> Json<ModelList> {
    let models: Vec<ModelInfo> = app
        .config
        .models
        .iter()
        .map(|m| ModelInfo {
            name: m.name.clone(),
            model: m.model.clone(),
            supports_reasoning: m.supports_reasoning,
            supports_vision: m.supports_vision,
            demo: m.demo,
        })
        .collect();
    let default = app
        .config
        .agent
        .default_model_in(&app.config.models)
        .map(|m| m.name.clone());
    Json(ModelList { models, default })
}
