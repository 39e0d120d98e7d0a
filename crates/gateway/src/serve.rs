//! The accept loop. It is axum's `serve` with hyper's own header limits raised above the
//! API's (see [`crate::limits`]), so an over-long URI or header block is answered by our
//! middleware in the JSON envelope rather than by hyper with an empty body.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use antler_app::App;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::ServiceExt;

use crate::router::router;
use crate::state::AppState;

/// Headers hyper reads before giving up with an empty 431 (the API's own limit is lower).
const HYPER_MAX_HEADERS: usize = 1024;
/// Bytes of request head hyper buffers before giving up with an empty 431.
const HYPER_MAX_HEAD_BYTES: usize = 1024 * 1024;
/// How long shutdown waits for open connections (streams) before leaving them.
const DRAIN: Duration = Duration::from_secs(10);

/// Serves the API on `listener` until `shutdown` completes, then drains open requests
/// (bounded) and stops the sandboxes.
pub async fn serve(
    app: App,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = Arc::new(app);
    let router = router(AppState::new(app.clone()));
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .max_headers(HYPER_MAX_HEADERS)
        .max_buf_size(HYPER_MAX_HEAD_BYTES);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!(%error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let service = router
            .clone()
            .map_request(move |mut request: hyper::Request<Incoming>| {
                request
                    .extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                request.map(Body::new)
            });
        let connection = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), TowerToHyperService::new(service))
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::trace!(%error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("open connections did not finish within {DRAIN:?}; leaving them");
    }
    app.shutdown().await;
    Ok(())
}
