//! Antler's HTTP layer: the axum router with its OpenAPI document, the handlers (thin: they
//! parse, call a service of [`antler_app::App`] and answer), and the JSON error envelope.

pub mod error;
pub mod extract;
pub mod files;
pub mod params;
pub mod router;
pub mod routes;
pub mod state;

pub use router::{openapi, router};
pub use state::{AppState, Identity};

use antler_app::App;

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
    let router = router(AppState::new(app.clone()));
    let served = axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await;
    app.shutdown().await;
    served
}
