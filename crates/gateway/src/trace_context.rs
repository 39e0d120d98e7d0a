//! W3C trace context: a request that carries `traceparent` gets a server span continuing
//! the caller's trace, so the runs it starts join that trace. Without one, nothing is made
//! here and each run's trace starts at the run.

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use opentelemetry::propagation::TextMapPropagator as _;
use opentelemetry_http::HeaderExtractor;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing::Instrument as _;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// The target of the request spans (exported with the runs' spans, kept out of the log).
const TARGET: &str = "antler::http";

/// Continues the caller's trace for requests with a `traceparent` header.
pub(crate) async fn continue_trace(request: Request, next: Next) -> Response {
    if !request.headers().contains_key("traceparent") {
        return next.run(request).await;
    }
    let route = request.extensions().get::<MatchedPath>().map_or_else(
        || request.uri().path().to_string(),
        |p| p.as_str().to_string(),
    );
    let span = tracing::info_span!(
        target: TARGET,
        "http",
        otel.name = format!("{} {route}", request.method()),
        otel.kind = "server",
        http.request.method = request.method().as_str(),
        http.route = route.as_str(),
        http.response.status_code = tracing::field::Empty,
    );
    if span.is_disabled() {
        return next.run(request).await;
    }
    let parent = TraceContextPropagator::new().extract(&HeaderExtractor(request.headers()));
    let _ = span.set_parent(parent);
    let response = next.run(request).instrument(span.clone()).await;
    span.record("http.response.status_code", response.status().as_u16());
    response
}
