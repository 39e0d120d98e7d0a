//! The `text/event-stream` answer of a run's events. Its body reads the run's events
//! straight from the follower (no task or channel per stream) and sends each event's SSE
//! frame as encoded once for every follower; `: ` comments keep an idle connection alive.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use antler_app::runs::{ActiveRun, Events};
use antler_protocol::runs::StopReason;
use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use bytes::Bytes;
use futures::StreamExt;
use hyper::body::Frame;
use tokio::time::{Instant, Sleep};

use super::runs::location;
use crate::state::AppState;

/// The keep-alive comment (what axum's `KeepAlive::text("")` sends).
const HEARTBEAT: &[u8] = b": \n\n";

/// Cancels the run when a streaming client goes away, unless it asked to continue; then
/// runs `then` (a stateless run's cleanup) either way.
pub(crate) struct DisconnectGuard {
    pub(crate) run: Option<Arc<ActiveRun>>,
    pub(crate) then: Option<Box<dyn FnOnce() + Send>>,
}

impl DisconnectGuard {
    /// The run is over: the client leaving must not cancel anything.
    fn disarm(&mut self) {
        self.run = None;
    }
}

impl Drop for DisconnectGuard {
    fn drop(&mut self) {
        if let Some(run) = self.run.take() {
            run.cancel(StopReason::Disconnected);
        }
        if let Some(then) = self.then.take() {
            then();
        }
    }
}

/// The body: events as they come, a heartbeat after `interval` without any.
struct EventBody {
    events: Events,
    heartbeat: Pin<Box<Sleep>>,
    interval: Duration,
    guard: DisconnectGuard,
    _active: crate::metrics::ActiveStream,
}

impl hyper::body::Body for EventBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        let frame = match this.events.poll_next_unpin(cx) {
            Poll::Ready(Some(event)) => {
                if event.is_end() {
                    this.guard.disarm();
                }
                event.sse_frame()
            }
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {
                std::task::ready!(this.heartbeat.as_mut().poll(cx));
                Bytes::from_static(HEARTBEAT)
            }
        };
        let next = Instant::now() + this.interval;
        this.heartbeat.as_mut().reset(next);
        Poll::Ready(Some(Ok(Frame::data(frame))))
    }
}

/// The SSE response for a run's `events`.
pub(crate) fn sse(
    app: &AppState,
    run_id: String,
    thread_id: &str,
    events: Events,
    guard: DisconnectGuard,
) -> Response {
    let interval = Duration::from_secs(app.config.agent.heartbeat_secs);
    let body = EventBody {
        events,
        heartbeat: Box::pin(tokio::time::sleep(interval)),
        interval,
        guard,
        _active: crate::metrics::ActiveStream::new(),
    };
    let mut response = Response::new(Body::new(body));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::CONTENT_LOCATION, location(thread_id, &run_id));
    // Where to rejoin after a dropped connection (with Last-Event-ID), relative to the API
    // root as LangGraph servers send it: the SDKs append it to their base URL (`…/api`).
    if let Ok(rejoin) = HeaderValue::from_str(&format!("/threads/{thread_id}/runs/{run_id}/stream"))
    {
        headers.insert(header::LOCATION, rejoin);
    }
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
