//! `GET /health`.

use antler_protocol::health::{Health, Liveness, ServerFlags, ServerInfo};
use axum::Json;
use axum::extract::State;

use crate::state::AppState;

/// Liveness and degradations.
#[utoipa::path(
    get,
    path = "/health",
    tag = "system",
    responses((status = 200, description = "The server is up", body = Health))
)]
pub async fn get_health(State(app): State<AppState>) -> Json<Health> {
    Json(Health {
        status: "ok".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        sandbox: app.sandbox.kind().into(),
        sandbox_image: app.sandbox.image(),
        warnings: app.warnings(),
    })
}

/// The server's version and optional features, as LangGraph clients ask for them.
#[utoipa::path(
    get,
    path = "/api/info",
    tag = "system",
    responses((status = 200, description = "Version and feature flags", body = ServerInfo))
)]
pub async fn get_info() -> Json<ServerInfo> {
    Json(ServerInfo {
        version: env!("CARGO_PKG_VERSION").into(),
        flags: ServerFlags {
            assistants: true,
            crons: false,
            langsmith: false,
        },
    })
}

/// Liveness, as LangGraph clients check it.
#[utoipa::path(
    get,
    path = "/api/ok",
    tag = "system",
    responses((status = 200, description = "The server is up", body = Liveness))
)]
pub async fn get_ok() -> Json<Liveness> {
    Json(Liveness { ok: true })
}
