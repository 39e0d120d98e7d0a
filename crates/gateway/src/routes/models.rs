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
    /// The wire format: `openai` (Chat Completions and compatible APIs) or `anthropic`.
    #[schema(pattern = "^(openai|anthropic)$")]
    pub provider: String,
    /// Can think before answering (the thinking control is offered).
    pub supports_thinking: bool,
    /// Thinking takes an effort: the control offers low, medium and high instead of on.
    pub supports_reasoning_effort: bool,
    /// Tokens the model reads at most (prompt and answer), when known.
    pub context_window: Option<u64>,
    /// Tokens the model writes at most per call, when known.
    pub max_output_tokens: Option<u32>,
    /// Prices in US dollars per million tokens, when known.
    pub pricing: Option<ModelPricing>,
}

/// A model's prices in US dollars per million tokens.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ModelPricing {
    /// Prompt tokens not read from the cache.
    pub input: f64,
    /// Prompt tokens read from the cache (`input` when the configuration gives none).
    pub cached_input: f64,
    /// Completion tokens, reasoning included.
    pub output: f64,
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
            // The configuration's own spelling (`openai`, `anthropic`).
            provider: serde_json::to_value(m.provider)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            supports_thinking: m.supports_thinking,
            supports_reasoning_effort: m.supports_reasoning_effort,
            context_window: m.context_window,
            max_output_tokens: m.max_output_tokens,
            pricing: m.pricing.map(|p| ModelPricing {
                input: p.input,
                cached_input: p.cached_input.unwrap_or(p.input),
                output: p.output,
            }),
        })
        .collect();
    let default = app
        .config
        .agent
        .default_model_in(&app.config.models)
        .map(|m| m.name.clone());
    Json(ModelList { models, default })
}
