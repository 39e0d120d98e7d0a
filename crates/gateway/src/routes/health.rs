//! `GET /health`.

use antler_protocol::health::Health;
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
        warnings: app.warnings.clone(),
    })
}
