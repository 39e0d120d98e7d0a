//! `/api/mcp/…`: the MCP servers whose tools the agent may call.

use antler_app::McpConfigError;
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::mcp::{McpConfigView, ServerStatus};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::error::{ApiResult, AppError};
use crate::extract::{ApiJson, ApiPath};
use crate::state::{Admin, AppState, Identity};

/// `GET /api/mcp/servers`.
#[derive(Debug, Serialize, ToSchema)]
pub struct McpServers {
    /// Every configured server, by name.
    pub servers: Vec<ServerStatus>,
}

/// `{name}` of a server's path.
#[derive(Debug, Deserialize)]
pub struct ServerPath {
    /// The server.
    name: String,
}

/// The MCP servers: state (connected, failed with the last error, disabled, idle until
/// first use), tools and call counts. Nothing is started by asking.
#[utoipa::path(
    get,
    path = "/api/mcp/servers",
    tag = "mcp",
    responses((status = 200, description = "The servers", body = McpServers))
)]
pub async fn list_servers(
    State(app): State<AppState>,
    Identity(_caller): Identity,
) -> ApiResult<Json<McpServers>> {
    Ok(Json(McpServers {
        servers: app.mcp.servers(),
    }))
}

/// Stops a server and starts it again (admins).
#[utoipa::path(
    post,
    path = "/api/mcp/servers/{name}/restart",
    tag = "mcp",
    params(("name" = String, Path, description = "Server name")),
    responses(
        (status = 200, description = "The server after the restart (failed, with why, if it did not start)", body = ServerStatus),
        (status = 403, description = "Not an admin", body = ErrorEnvelope),
        (status = 404, description = "No such server", body = ErrorEnvelope),
    )
)]
pub async fn restart_server(
    State(app): State<AppState>,
    Admin(_admin): Admin,
    ApiPath(path): ApiPath<ServerPath>,
) -> ApiResult<Json<ServerStatus>> {
    app.mcp
        .restart(&path.name)
        .await
        .map(Json)
        .map_err(|e| AppError::not_found(e.to_string()))
}

/// `PUT /api/mcp/config` body.
#[derive(Debug, Deserialize, ToSchema)]
pub struct McpConfigUpdate {
    /// The whole set of servers by name, each as in `mcp.servers` of the configuration
    /// (`transport`, `command`, `args`, `env`, `url`, `headers`, `enabled`, …). An `env` or
    /// `headers` value of `null` keeps the current one.
    #[schema(value_type = Object)]
    pub servers: Map<String, Value>,
}

impl From<McpConfigError> for AppError {
    fn from(e: McpConfigError) -> Self {
        match e {
            McpConfigError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", m)
            }
            McpConfigError::Store(e) => e.into(),
        }
    }
}

/// The MCP servers' configuration (admins): variables and headers show only the variables
/// they name.
#[utoipa::path(
    get,
    path = "/api/mcp/config",
    tag = "mcp",
    responses(
        (status = 200, description = "The configuration", body = McpConfigView),
        (status = 403, description = "Not an admin", body = ErrorEnvelope),
    )
)]
pub async fn get_config(
    State(app): State<AppState>,
    Admin(_admin): Admin,
) -> ApiResult<Json<McpConfigView>> {
    Ok(Json(app.mcp.config().await?))
}

/// Replaces the MCP servers' configuration (admins): stored for every replica; changed
/// servers are stopped and start again on next use.
#[utoipa::path(
    put,
    path = "/api/mcp/config",
    tag = "mcp",
    request_body = McpConfigUpdate,
    responses(
        (status = 200, description = "The new configuration", body = McpConfigView),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 403, description = "Not an admin", body = ErrorEnvelope),
        (status = 422, description = "An invalid server", body = ErrorEnvelope),
    )
)]
pub async fn put_config(
    State(app): State<AppState>,
    Admin(_admin): Admin,
    ApiJson(body): ApiJson<McpConfigUpdate>,
) -> ApiResult<Json<McpConfigView>> {
    Ok(Json(app.mcp.replace(body.servers).await?))
}
