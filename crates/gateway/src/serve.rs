//! The accept loop. It is axum's `serve` with hyper's own header limits raised above the
//! API's (see [`crate::limits`]), so an over-long URI or header block is answered by our
//! middleware in the JSON envelope rather than by hyper with an empty body; and with the
//! HTTP version told from a peek at the connection's first bytes, so that hyper reads the
//! request from the socket into a buffer of its initial size (hyper-util's own detection
//! hands it bytes read ahead, which doubles every connection's buffer to 16 KiB).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use antler_app::App;
use axum::body::Body;
use hyper::body::Incoming;
use hyper::server::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

use crate::router::router;
use crate::state::AppState;

/// Headers hyper reads before giving up with an empty 431 (the API's own limit is lower).
const HYPER_MAX_HEADERS: usize = 1024;
/// Bytes of request head hyper buffers before giving up with an empty 431.
const HYPER_MAX_HEAD_BYTES: usize = 1024 * 1024;
/// How long shutdown waits for open connections (streams) before leaving them.
const DRAIN: Duration = Duration::from_secs(10);
/// What a client speaking HTTP/2 without TLS (prior knowledge) opens with.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Whether the client opens with the HTTP/2 preface, peeked at rather than read.
async fn speaks_http2(stream: &TcpStream) -> bool {
    let mut buf = [0u8; H2_PREFACE.len()];
    for _ in 0..100 {
        let n = match stream.peek(&mut buf).await {
            Ok(n) => n,
            Err(_) => return false,
        };
        if n == 0 || buf[..n] != H2_PREFACE[..n] {
            return false;
        }
        if n == H2_PREFACE.len() {
            return true;
        }
        // Part of the preface so far: the rest is on its way (a peek would not wait for it).
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// Accepts a connection with Nagle's algorithm off: a response or an SSE event written in
/// small pieces goes out at once instead of waiting for the client to acknowledge the
/// previous piece (a delayed ACK holds it ~40 ms on a reused connection).
async fn accept(listener: &TcpListener) -> std::io::Result<(TcpStream, std::net::SocketAddr)> {
    let (stream, peer) = listener.accept().await?;
    if let Err(error) = stream.set_nodelay(true) {
        tracing::debug!(%error, "TCP_NODELAY could not be set on a connection");
    }
    Ok((stream, peer))
}

/// Serves the API on `listener` until `shutdown` completes, then drains open requests
/// (bounded) and stops the sandboxes.
pub async fn serve(
    app: App,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = Arc::new(app);
    let router = router(AppState::new(app.clone()));
    if let Some(bind) = app.config.telemetry.metrics.bind.clone() {
        let metrics = TcpListener::bind(&bind).await.map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("cannot listen on {bind} for metrics: {e}"),
            )
        })?;
        tracing::info!(addr = %metrics.local_addr()?, "/metrics served without sign-in");
        let router = crate::metrics_router(AppState::new(app.clone()));
        tokio::spawn(async move {
            if let Err(error) = axum::serve(metrics, router).await {
                tracing::warn!(%error, "the metrics address stopped");
            }
        });
    }
    let mut h1 = http1::Builder::new();
    h1.max_headers(HYPER_MAX_HEADERS)
        .max_buf_size(HYPER_MAX_HEAD_BYTES);
    let h1 = Arc::new(h1);
    let h2 = Arc::new(http2::Builder::new(TokioExecutor::new()));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = accept(&listener) => match accepted {
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
        let service = TowerToHyperService::new(service);
        let (h1, h2, watcher) = (h1.clone(), h2.clone(), graceful.watcher());
        tokio::spawn(async move {
            let ended = if speaks_http2(&stream).await {
                // Boxed: the rare HTTP/2 connection's state does not size every task.
                Box::pin(watcher.watch(h2.serve_connection(TokioIo::new(stream), service))).await
            } else {
                watcher
                    .watch(h1.serve_connection(TokioIo::new(stream), service))
                    .await
            };
            if let Err(error) = ended {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accepted_connections_have_nagles_algorithm_off() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::spawn(TcpStream::connect(addr));
        let (server_side, _) = accept(&listener).await.unwrap();
        assert!(server_side.nodelay().unwrap());
        drop(client.await.unwrap().unwrap());
    }
}
