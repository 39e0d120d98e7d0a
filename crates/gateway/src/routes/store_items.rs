//! `/api/store/…`: LangGraph's long-term store, as the official SDKs call it — the caller's
//! JSON documents under hierarchical namespaces (put, get, delete, search, namespaces).
//! Every item is the caller's own; admins see only theirs too.

use antler_app::ItemError;
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::store_items::{
    DeleteItem, Item, ListNamespaces, ListNamespacesResponse, PutItem, SearchItems,
    SearchItemsResponse,
};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::{ApiResult, AppError};
use crate::extract::{ApiJson, ApiQuery};
use crate::state::{AppState, Identity};

impl From<ItemError> for AppError {
    fn from(e: ItemError) -> Self {
        match e {
            ItemError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", m)
            }
            ItemError::Store(e) => e.into(),
        }
    }
}

/// `GET /api/store/items` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GetItemQuery {
    /// The namespace's labels joined by `.` (`memories.preferences`).
    pub namespace: String,
    /// The key.
    pub key: String,
    /// Whether reading starts the item's time to live again (default true).
    pub refresh_ttl: Option<bool>,
}

/// Stores an item (replacing one with the same namespace and key).
#[utoipa::path(put, path = "/api/store/items", tag = "store", request_body = PutItem,
    responses(
        (status = 204, description = "Stored"),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid namespace, key, value, index or ttl", body = ErrorEnvelope),
    ))]
pub async fn put_item(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<PutItem>,
) -> ApiResult<StatusCode> {
    app.items.put(&caller, body).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// One item, or `null` when there is none (or it expired): what LangGraph's Agent Server
/// answers, and what both SDKs turn into `null` / `None`.
#[utoipa::path(get, path = "/api/store/items", tag = "store", params(GetItemQuery),
    responses(
        (status = 200, description = "The item, or null", body = Option<Item>),
        (status = 400, description = "Invalid query", body = ErrorEnvelope),
        (status = 422, description = "Invalid namespace or key", body = ErrorEnvelope),
    ))]
pub async fn get_item(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiQuery(q): ApiQuery<GetItemQuery>,
) -> ApiResult<Json<Option<Item>>> {
    let found = app
        .items
        .get(&caller, &q.namespace, &q.key, q.refresh_ttl)
        .await
        .map_err(|e| match e {
            ItemError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_query", m)
            }
            other => other.into(),
        })?;
    Ok(Json(found))
}

/// Deletes an item (204 whether or not it existed).
#[utoipa::path(delete, path = "/api/store/items", tag = "store", request_body = DeleteItem,
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid namespace or key", body = ErrorEnvelope),
    ))]
pub async fn delete_item(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<DeleteItem>,
) -> ApiResult<StatusCode> {
    app.items.delete(&caller, body).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Items under a namespace prefix, filtered, ranked by full-text relevance to `query` (the
/// `score`) or else most recently updated first.
#[utoipa::path(post, path = "/api/store/items/search", tag = "store", request_body = SearchItems,
    responses(
        (status = 200, description = "A page of items", body = SearchItemsResponse),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid prefix, filter (an unknown operator), query or page", body = ErrorEnvelope),
    ))]
pub async fn search_items(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<SearchItems>,
) -> ApiResult<Json<SearchItemsResponse>> {
    Ok(Json(app.items.search(&caller, body).await?))
}

/// The caller's namespaces, sorted, matching a prefix and a suffix (`*` matches any one
/// label), cut to `max_depth`.
#[utoipa::path(post, path = "/api/store/namespaces", tag = "store", request_body = ListNamespaces,
    responses(
        (status = 200, description = "A page of namespaces", body = ListNamespacesResponse),
        (status = 400, description = "Malformed JSON", body = ErrorEnvelope),
        (status = 422, description = "Invalid prefix, suffix, depth or page", body = ErrorEnvelope),
    ))]
pub async fn list_namespaces(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<ListNamespaces>,
) -> ApiResult<Json<ListNamespacesResponse>> {
    Ok(Json(app.items.list_namespaces(&caller, body).await?))
}
