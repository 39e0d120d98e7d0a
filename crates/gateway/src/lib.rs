//! Antler's HTTP layer: configuration, application state, the axum router with its OpenAPI
//! document, and the JSON error envelope.

pub mod app;
pub mod config;
pub mod error;
pub mod extract;
pub mod files;
pub mod params;
pub mod router;
pub mod routes;

pub use app::{App, AppState};
pub use config::Config;
pub use router::{openapi, router};

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;

/// Serves the API on `listener` until `shutdown` completes, then drains open requests.
pub async fn serve(
    app: App,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = Arc::new(app);
    let router = router(AppState(app.clone()));
    let served = axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await;
    app.shutdown().await;
    served
}
