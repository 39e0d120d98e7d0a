//! `/api/mcp/…`: the MCP servers whose tools the agent may call.

use antler_mcp::ServerStatus;
use antler_protocol::error::ErrorEnvelope;
use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::{ApiResult, AppError};
use crate::extract::ApiPath;
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
