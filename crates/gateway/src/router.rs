//! The central router: every route, the OpenAPI document built from the same list, and the
//! layers every request passes through.

use std::any::Any;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;

use crate::openapi::{ApiDoc, complete};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use utoipa_swagger_ui::SwaggerUi;

use antler_app::Config;

use crate::error::{AppError, InternalCause};
use crate::routes::{
    artifacts, assistants, auth, console, crons, health, mcp, memory, models, run_batch, runs,
    secrets, skill_import, skill_install, skills, state, stateless, store_items, thread_stream,
    threads, uploads, usage, users,
};
use crate::state::AppState;

/// Every documented route, before state is attached. Routes that take files get their own
/// body limit.
fn api_router(config: &Config) -> OpenApiRouter<AppState> {
    // Multipart framing adds a little to the files themselves.
    let slack = 64 * 1024;
    let uploads = OpenApiRouter::new()
        .routes(routes!(uploads::upload_files, uploads::list_uploads))
        .layer(DefaultBodyLimit::max(
            usize::try_from(config.uploads.max_request_bytes + slack).unwrap_or(usize::MAX),
        ));
    let skill_upload = OpenApiRouter::new()
        .routes(routes!(skill_install::upload_skill))
        .routes(routes!(skill_install::preview_skill))
        .layer(DefaultBodyLimit::max(
            usize::try_from(config.skills.install.max_upload_bytes + slack).unwrap_or(usize::MAX),
        ));
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(health::get_health))
        .routes(routes!(health::get_info))
        .routes(routes!(health::get_ok))
        .routes(routes!(auth::get_auth_status))
        .routes(routes!(auth::create_first_admin))
        .routes(routes!(auth::create_session))
        .routes(routes!(auth::delete_session))
        .routes(routes!(auth::get_me))
        .routes(routes!(auth::change_password))
        .routes(routes!(auth::list_tokens, auth::create_token))
        .routes(routes!(auth::revoke_token))
        .routes(routes!(users::list_users, users::create_user))
        .routes(routes!(users::update_user))
        .routes(routes!(models::list_models))
        .routes(routes!(runs::stream_run))
        .routes(routes!(runs::create_run, runs::list_runs))
        .routes(routes!(runs::wait_run))
        .routes(routes!(runs::get_run, stateless::delete_run))
        .routes(routes!(stateless::create_stateless))
        .routes(routes!(stateless::stream_stateless))
        .routes(routes!(stateless::wait_stateless))
        .routes(routes!(run_batch::cancel_runs))
        .routes(routes!(run_batch::create_batch))
        .routes(routes!(crons::create_cron))
        .routes(routes!(crons::create_thread_cron))
        .routes(routes!(crons::search_crons))
        .routes(routes!(crons::count_crons))
        .routes(routes!(
            crons::get_cron,
            crons::update_cron,
            crons::delete_cron
        ))
        .routes(routes!(crons::run_cron_now))
        .routes(routes!(runs::cancel_run))
        .routes(routes!(runs::join_run))
        .routes(routes!(runs::join_stream))
        .routes(routes!(assistants::create_assistant))
        .routes(routes!(assistants::search_assistants))
        .routes(routes!(assistants::count_assistants))
        .routes(routes!(
            assistants::get_assistant,
            assistants::update_assistant,
            assistants::delete_assistant
        ))
        .routes(routes!(assistants::assistant_versions))
        .routes(routes!(assistants::set_latest_assistant))
        .routes(routes!(assistants::assistant_schemas))
        .routes(routes!(assistants::assistant_graph))
        .routes(routes!(assistants::assistant_subgraphs))
        .routes(routes!(assistants::assistant_subgraphs_at))
        .routes(routes!(memory::list_memory, memory::forget_memory))
        .routes(routes!(memory::add_fact))
        .routes(routes!(memory::update_fact, memory::delete_fact))
        .routes(routes!(
            memory::get_memory_settings,
            memory::put_memory_settings
        ))
        .routes(routes!(
            crate::routes::preferences::get_preferences,
            crate::routes::preferences::patch_preferences
        ))
        .routes(routes!(memory::export_memory))
        .routes(routes!(memory::import_memory))
        .routes(routes!(mcp::list_servers))
        .routes(routes!(mcp::get_config, mcp::put_config))
        .routes(routes!(mcp::restart_server))
        .routes(routes!(usage::get_usage))
        .routes(routes!(usage::list_limits))
        .routes(routes!(usage::put_limits))
        .routes(routes!(console::list_console_runs))
        .routes(routes!(console::get_console_run))
        .routes(routes!(
            crate::routes::feedback::put_feedback,
            crate::routes::feedback::delete_feedback
        ))
        .routes(routes!(crate::routes::feedback::list_thread_feedback))
        .routes(routes!(crate::routes::feedback::export_feedback))
        .routes(routes!(secrets::list_secrets))
        .routes(routes!(secrets::put_secret, secrets::delete_secret))
        .routes(routes!(
            store_items::put_item,
            store_items::get_item,
            store_items::delete_item
        ))
        .routes(routes!(store_items::search_items))
        .routes(routes!(store_items::list_namespaces))
        .routes(routes!(
            state::get_state,
            state::update_state,
            state::patch_state
        ))
        .routes(routes!(thread_stream::join_thread_stream))
        .routes(routes!(state::get_state_at))
        .routes(routes!(state::post_state_at))
        .routes(routes!(state::get_history, state::get_history_query))
        .routes(routes!(skills::list_skills))
        .routes(routes!(skills::reload_skills))
        .routes(routes!(skill_install::install_skill))
        .routes(routes!(skill_import::import_skills))
        .routes(routes!(
            skills::get_skill,
            skills::set_skill,
            skill_install::delete_skill
        ))
        .routes(routes!(threads::create_thread))
        .routes(routes!(threads::search_threads))
        .routes(routes!(threads::count_threads))
        .routes(routes!(threads::prune_threads))
        .routes(routes!(threads::copy_thread))
        .routes(routes!(crate::routes::thread_export::export_thread))
        .routes(routes!(
            threads::get_thread,
            threads::patch_thread,
            threads::delete_thread
        ))
        .routes(routes!(uploads::get_upload_limits))
        .routes(routes!(uploads::delete_upload))
        .routes(routes!(artifacts::list_artifacts))
        .merge(uploads)
        .merge(skill_upload)
}

/// The OpenAPI 3.1 document of the whole API (with default limits).
pub fn openapi() -> serde_json::Value {
    complete(&api_router(&Config::default()).split_for_parts().1)
}

/// The full application router.
pub fn router(state: AppState) -> Router {
    crate::metrics::install();
    let body_limit = state.config.http.max_body_bytes;
    let (api, doc) = api_router(&state.config).split_for_parts();
    let doc = axum::body::Bytes::from(complete(&doc).to_string());
    let web = state.config.web.dir.clone();
    let policy = crate::origin::OriginPolicy::new(&state.config.http);
    let cors = policy.cors();
    api.route(
        "/api/threads/{thread_id}/artifacts/{*path}",
        axum::routing::get(artifacts::get_artifact),
    )
    .route("/metrics", axum::routing::get(crate::metrics::scrape_admin))
    .route(
        "/api/openapi.json",
        axum::routing::get(move || {
            let doc = doc.clone();
            async move { ([(header::CONTENT_TYPE, "application/json")], doc) }
        }),
    )
    .merge(SwaggerUi::new("/api/docs").config(utoipa_swagger_ui::Config::from("/api/openapi.json")))
    .fallback(move |request: Request| web_or_not_found(web.clone(), request))
    .method_not_allowed_fallback(method_not_allowed)
    // Inner to outer, as axum's error-handling example orders them: a panic becomes a 500
    // inside the failure logger (so its cause is logged, once); the limits answer before
    // anything reads the request, then hosts and origins are checked (CORS preflights
    // answered) before any route; the trace layer records requests but not failures, which
    // `log_failures` already reported.
    .layer(DefaultBodyLimit::max(body_limit))
    .layer(CatchPanicLayer::custom(panic_response))
    .layer(middleware::from_fn_with_state(
        state.clone(),
        crate::auth::authenticate,
    ))
    .layer(middleware::from_fn(log_failures))
    .layer(middleware::from_fn(crate::trace_context::continue_trace))
    .layer(middleware::from_fn(move |request, next| {
        crate::origin::guard(policy.clone(), request, next)
    }))
    .layer(tower::util::option_layer(cors))
    .layer(middleware::from_fn(crate::limits::request_limits))
    .layer(SetResponseHeaderLayer::overriding(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    ))
    .layer(TraceLayer::new_for_http().on_failure(()))
    .with_state(state)
}

async fn not_found(uri: Uri) -> AppError {
    AppError::not_found(format!("no route for {}", uri.path()))
}

/// Outside `/api`, GET and HEAD are the web UI's: a file of the build, or `index.html` for
/// client-side routes. Everything else is a JSON 404.
async fn web_or_not_found(dir: std::path::PathBuf, request: Request) -> Response {
    let path = request.uri().path();
    let ui = !(path == "/api" || path.starts_with("/api/"))
        && matches!(*request.method(), Method::GET | Method::HEAD)
        && dir.join("index.html").is_file();
    if !ui {
        return not_found(request.uri().clone()).await.into_response();
    }
    let index = tower_http::services::ServeFile::new(dir.join("index.html"));
    let files = tower_http::services::ServeDir::new(&dir).fallback(index);
    match tower::ServiceExt::oneshot(files, request).await {
        Ok(response) => response.map(axum::body::Body::new),
        Err(never) => match never {},
    }
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

/// The router of the separate metrics address (`telemetry.metrics.bind`): `/metrics`
/// without sign-in, nothing else.
pub fn metrics_router(state: AppState) -> Router {
    crate::metrics::install();
    Router::new()
        .route("/metrics", axum::routing::get(crate::metrics::scrape))
        .with_state(state)
}
