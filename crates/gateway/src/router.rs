//! The central router: every route, the OpenAPI document built from the same list, and the
//! layers every request passes through.

use std::any::Any;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use utoipa_swagger_ui::SwaggerUi;

use crate::app::AppState;
use crate::error::{AppError, InternalCause};
use crate::routes::{health, skills};

/// Top-level OpenAPI metadata; paths are added by [`api_router`].
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Antler API",
        description = "Skills-driven agent backend: skills catalog and management.",
        license(name = "Apache-2.0")
    ),
    tags(
        (name = "system", description = "Health and documentation"),
        (name = "skills", description = "List, inspect, enable and disable skills"),
    ),
    components(schemas(antler_protocol::error::ErrorEnvelope))
)]
struct ApiDoc;

/// Every documented route, before state is attached.
fn api_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(health::health))
        .routes(routes!(skills::list_skills))
        .routes(routes!(skills::reload_skills))
        .routes(routes!(skills::get_skill, skills::set_skill))
}

/// The OpenAPI 3.1 document of the whole API.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api_router().split_for_parts().1
}

/// The full application router.
pub fn router(state: AppState) -> Router {
    let body_limit = state.config.http.max_body_bytes;
    let (api, doc) = api_router().split_for_parts();
    api.merge(SwaggerUi::new("/api/docs").url("/api/openapi.json", doc))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(middleware::from_fn(log_failures))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

async fn not_found(uri: Uri) -> AppError {
    AppError::not_found(format!("no route for {}", uri.path()))
}

async fn method_not_allowed(method: Method, uri: Uri) -> AppError {
    AppError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{method} is not allowed on {}", uri.path()),
    )
}

/// Logs each internal error once, where the response leaves the server.
async fn log_failures(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    if let Some(InternalCause(cause)) = response.extensions().get::<InternalCause>() {
        tracing::error!(http.method = %method, http.path = %path, status = response.status().as_u16(), error = %cause, "request failed");
    } else if response.status().is_server_error() {
        tracing::error!(http.method = %method, http.path = %path, status = response.status().as_u16(), "request failed");
    }
    response
}

fn panic_response(panic: Box<dyn Any + Send + 'static>) -> Response {
    let detail = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    AppError::internal(anyhow::anyhow!("handler panicked: {detail}")).into_response()
}
