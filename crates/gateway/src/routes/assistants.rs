//! `/api/assistants…`: the LangGraph assistants API. An assistant is a custom agent; the
//! built-in one (graph `agent`) is every caller's, the others their creator's.

use antler_protocol::assistants::{
    Assistant, AssistantCreate, AssistantGraph, AssistantLatest, AssistantPatch, AssistantSchemas,
    AssistantSearch, AssistantVersionsQuery,
};
use antler_protocol::error::ErrorEnvelope;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;

use crate::error::ApiResult;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::state::{AppState, Identity};

/// `{assistant_id}` of an assistant's path.
#[derive(Debug, Deserialize)]
pub struct AssistantPath {
    /// The assistant (a UUID, or `agent` for the built-in one).
    assistant_id: String,
}

/// Creates an assistant (a custom agent).
#[utoipa::path(
    post,
    path = "/api/assistants",
    tag = "assistants",
    request_body = AssistantCreate,
    responses(
        (status = 200, description = "The assistant", body = Assistant),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 409, description = "The id exists", body = ErrorEnvelope),
        (status = 422, description = "Invalid body, graph, model or tools", body = ErrorEnvelope),
    )
)]
pub async fn create_assistant(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<AssistantCreate>,
) -> ApiResult<Json<Assistant>> {
    Ok(Json(app.assistants.create(&caller, body).await?))
}

/// The caller's assistants and the built-in one.
#[utoipa::path(
    post,
    path = "/api/assistants/search",
    tag = "assistants",
    request_body = AssistantSearch,
    responses(
        (status = 200, description = "Assistants", body = Vec<Assistant>),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid body", body = ErrorEnvelope),
    )
)]
pub async fn search_assistants(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<AssistantSearch>,
) -> ApiResult<Json<Vec<Assistant>>> {
    Ok(Json(app.assistants.search(&caller, &body).await?))
}

/// How many assistants a search finds.
#[utoipa::path(
    post,
    path = "/api/assistants/count",
    tag = "assistants",
    request_body = AssistantSearch,
    responses(
        (status = 200, description = "The count", body = u64, content_type = "application/json"),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid body", body = ErrorEnvelope),
    )
)]
pub async fn count_assistants(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<AssistantSearch>,
) -> ApiResult<Json<u64>> {
    Ok(Json(app.assistants.count(&caller, &body).await?))
}

/// One assistant.
#[utoipa::path(
    get,
    path = "/api/assistants/{assistant_id}",
    tag = "assistants",
    params(("assistant_id" = String, Path, description = "Assistant id")),
    responses(
        (status = 200, description = "The assistant", body = Assistant),
        (status = 404, description = "No such assistant", body = ErrorEnvelope),
    )
)]
pub async fn get_assistant(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<AssistantPath>,
) -> ApiResult<Json<Assistant>> {
    Ok(Json(app.assistants.get(&caller, &path.assistant_id).await?))
}

/// A new version of an assistant.
#[utoipa::path(
    patch,
    path = "/api/assistants/{assistant_id}",
    tag = "assistants",
    params(("assistant_id" = String, Path, description = "Assistant id")),
    request_body = AssistantPatch,
    responses(
        (status = 200, description = "The assistant at its new version", body = Assistant),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such assistant", body = ErrorEnvelope),
        (status = 409, description = "The built-in assistant cannot change", body = ErrorEnvelope),
        (status = 422, description = "Invalid body, graph, model or tools", body = ErrorEnvelope),
    )
)]
pub async fn update_assistant(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<AssistantPath>,
    ApiJson(body): ApiJson<AssistantPatch>,
) -> ApiResult<Json<Assistant>> {
    Ok(Json(
        app.assistants
            .update(&caller, &path.assistant_id, body)
            .await?,
    ))
}

/// Deletes an assistant with its versions (its threads stay).
#[utoipa::path(
    delete,
    path = "/api/assistants/{assistant_id}",
    tag = "assistants",
    params(("assistant_id" = String, Path, description = "Assistant id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such assistant", body = ErrorEnvelope),
        (status = 409, description = "The built-in assistant cannot be deleted", body = ErrorEnvelope),
    )
)]
pub async fn delete_assistant(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<AssistantPath>,
) -> ApiResult<StatusCode> {
    app.assistants.delete(&caller, &path.assistant_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// An assistant's versions, newest first.
#[utoipa::path(
    post,
    path = "/api/assistants/{assistant_id}/versions",
    tag = "assistants",
    params(("assistant_id" = String, Path, description = "Assistant id")),
    request_body = AssistantVersionsQuery,
    responses(
        (status = 200, description = "Versions", body = Vec<Assistant>),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such assistant", body = ErrorEnvelope),
        (status = 422, description = "Invalid body", body = ErrorEnvelope),
    )
)]
pub async fn assistant_versions(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<AssistantPath>,
    ApiJson(body): ApiJson<AssistantVersionsQuery>,
) -> ApiResult<Json<Vec<Assistant>>> {
    Ok(Json(
        app.assistants
            .versions(&caller, &path.assistant_id, &body)
            .await?,
    ))
}

/// Makes an earlier version current again.
#[utoipa::path(
    post,
    path = "/api/assistants/{assistant_id}/latest",
    tag = "assistants",
    params(("assistant_id" = String, Path, description = "Assistant id")),
    request_body = AssistantLatest,
    responses(
        (status = 200, description = "The assistant at that version", body = Assistant),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such assistant or version", body = ErrorEnvelope),
        (status = 409, description = "The built-in assistant cannot change", body = ErrorEnvelope),
        (status = 422, description = "Invalid body", body = ErrorEnvelope),
    )
)]
pub async fn set_latest_assistant(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<AssistantPath>,
    ApiJson(body): ApiJson<AssistantLatest>,
) -> ApiResult<Json<Assistant>> {
    Ok(Json(
        app.assistants
            .set_latest(&caller, &path.assistant_id, body.version)
            .await?,
    ))
}

/// The JSON Schemas of an assistant's graph.
#[utoipa::path(
    get,
    path = "/api/assistants/{assistant_id}/schemas",
    tag = "assistants",
    params(("assistant_id" = String, Path, description = "Assistant id")),
    responses(
        (status = 200, description = "Schemas", body = AssistantSchemas),
        (status = 404, description = "No such assistant", body = ErrorEnvelope),
    )
)]
pub async fn assistant_schemas(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<AssistantPath>,
) -> ApiResult<Json<AssistantSchemas>> {
    Ok(Json(
        app.assistants.schemas(&caller, &path.assistant_id).await?,
    ))
}

/// An assistant's graph: the agent loop's nodes and edges.
#[utoipa::path(
    get,
    path = "/api/assistants/{assistant_id}/graph",
    tag = "assistants",
    params(("assistant_id" = String, Path, description = "Assistant id")),
    responses(
        (status = 200, description = "The graph", body = AssistantGraph),
        (status = 404, description = "No such assistant", body = ErrorEnvelope),
    )
)]
pub async fn assistant_graph(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<AssistantPath>,
) -> ApiResult<Json<AssistantGraph>> {
    Ok(Json(
        app.assistants.graph(&caller, &path.assistant_id).await?,
    ))
}

/// `?recurse=` of the subgraphs routes.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SubgraphsQuery {
    /// Include the subgraphs of subgraphs (there are none either way).
    #[serde(default)]
    pub recurse: bool,
}

/// `{assistant_id}/subgraphs/{namespace}`.
#[derive(Debug, Deserialize)]
pub struct SubgraphPath {
    /// The assistant.
    assistant_id: String,
    /// The subgraph namespace asked for.
    #[expect(dead_code, reason = "the agent has no subgraphs under any namespace")]
    namespace: String,
}

/// An assistant's subgraphs by namespace, with their schemas: always none, since the agent
/// is one graph (subagents run as separate runs of it, not as nested graphs). Answers 404 for
/// an unknown assistant, so the SDK's `getSubgraphs` tells the two apart.
#[utoipa::path(
    get,
    path = "/api/assistants/{assistant_id}/subgraphs",
    tag = "assistants",
    params(("assistant_id" = String, Path, description = "Assistant id"), SubgraphsQuery),
    responses(
        (status = 200, description = "Subgraph schemas by namespace (none)", body = std::collections::BTreeMap<String, AssistantSchemas>),
        (status = 400, description = "Invalid query", body = ErrorEnvelope),
        (status = 404, description = "No such assistant", body = ErrorEnvelope),
    )
)]
pub async fn assistant_subgraphs(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<AssistantPath>,
    ApiQuery(_query): ApiQuery<SubgraphsQuery>,
) -> ApiResult<Json<std::collections::BTreeMap<String, AssistantSchemas>>> {
    app.assistants.graph(&caller, &path.assistant_id).await?;
    Ok(Json(Default::default()))
}

/// The subgraphs of an assistant under one namespace: none (see [`assistant_subgraphs`]).
#[utoipa::path(
    get,
    path = "/api/assistants/{assistant_id}/subgraphs/{namespace}",
    tag = "assistants",
    params(
        ("assistant_id" = String, Path, description = "Assistant id"),
        ("namespace" = String, Path, description = "Subgraph namespace"),
        SubgraphsQuery
    ),
    responses(
        (status = 200, description = "Subgraph schemas by namespace (none)", body = std::collections::BTreeMap<String, AssistantSchemas>),
        (status = 400, description = "Invalid query", body = ErrorEnvelope),
        (status = 404, description = "No such assistant", body = ErrorEnvelope),
    )
)]
pub async fn assistant_subgraphs_at(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(path): ApiPath<SubgraphPath>,
    ApiQuery(_query): ApiQuery<SubgraphsQuery>,
) -> ApiResult<Json<std::collections::BTreeMap<String, AssistantSchemas>>> {
    app.assistants.graph(&caller, &path.assistant_id).await?;
    Ok(Json(Default::default()))
}
