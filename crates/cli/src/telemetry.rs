//! Traces over OTLP/HTTP: the layer that turns the runtime's spans (target
//! [`antler_agent_runtime::telemetry::TARGET`]) into OpenTelemetry spans, and their exporter.

use std::fmt;

use antler_app::config::TelemetryConfig;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;

/// The tracer provider while traces are exported; flushes what is buffered when dropped.
pub(crate) struct Traces(SdkTracerProvider);

impl Drop for Traces {
    fn drop(&mut self) {
        if let Err(e) = self.0.shutdown() {
            eprintln!("antler: traces could not be flushed: {e}");
        }
    }
}

/// Where traces go: the configured endpoint (its `/v1/traces`), or the standard
/// `OTEL_EXPORTER_OTLP_*` variables; `None` when neither names one or `OTEL_SDK_DISABLED`
/// is true.
fn endpoint(cfg: &TelemetryConfig) -> Option<Option<String>> {
    let set = |var: &str| std::env::var(var).is_ok_and(|v| !v.trim().is_empty());
    if std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.eq_ignore_ascii_case("true")) {
        return None;
    }
    match &cfg.otlp.endpoint {
        Some(base) => {
            let base = base.trim_end_matches('/');
            Some(Some(if base.ends_with("/v1/traces") {
                base.to_string()
            } else {
                format!("{base}/v1/traces")
            }))
        }
        // The exporter reads the variables itself.
        None if set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") || set("OTEL_EXPORTER_OTLP_ENDPOINT") => {
            Some(None)
        }
        None => None,
    }
}

/// The layer that turns spans into OpenTelemetry spans.
pub(crate) type OtelLayer<S> =
    tracing_opentelemetry::OpenTelemetryLayer<S, opentelemetry_sdk::trace::Tracer>;

/// The OpenTelemetry layer and its provider when traces are configured. Must be called
/// inside the server's Tokio runtime (exports are sent from it).
pub(crate) fn layer<S>(cfg: &TelemetryConfig) -> Result<Option<(OtelLayer<S>, Traces)>, String>
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    let Some(endpoint) = endpoint(cfg) else {
        return Ok(None);
    };
    let client = Client {
        http: reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(10))
            .build()
            .map_err(|e| e.to_string())?,
        runtime: tokio::runtime::Handle::try_current().map_err(|e| e.to_string())?,
    };
    let mut exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(client)
        .with_protocol(opentelemetry_otlp::Protocol::HttpBinary);
    if let Some(endpoint) = endpoint {
        exporter = exporter.with_endpoint(endpoint);
    }
    let exporter = exporter.build().map_err(|e| e.to_string())?;
    let service = std::env::var("OTEL_SERVICE_NAME")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| cfg.otlp.service_name.clone());
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(
            Resource::builder()
                .with_service_name(service)
                .with_attribute(opentelemetry::KeyValue::new(
                    "service.version",
                    env!("CARGO_PKG_VERSION"),
                ))
                .build(),
        )
        .build();
    let tracer = provider.tracer("antler");
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        // Nothing else here reads OpenTelemetry's context: activating it on every poll of a
        // run (each streamed chunk) would cost every chunk for nothing; busy/idle timings too.
        .with_context_activation(false)
        .with_tracked_inactivity(false)
        .with_threads(false)
        .with_location(false);
    Ok(Some((layer, Traces(provider))))
}

/// Sends the exporter's requests with the server's own HTTP client (rustls) on its
/// runtime: the batch processor calls from a thread of its own, outside Tokio.
struct Client {
    http: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("otlp-http-client")
    }
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for Client {
    async fn send_bytes(
        &self,
        request: http::Request<bytes::Bytes>,
    ) -> Result<http::Response<bytes::Bytes>, opentelemetry_http::HttpError> {
        let http = self.http.clone();
        let send = async move {
            let request = reqwest::Request::try_from(request)?;
            let response = http.execute(request).await?;
            let status = response.status();
            let headers = response.headers().clone();
            let body = response.bytes().await?;
            let mut answer = http::Response::new(body);
            *answer.status_mut() = status;
            *answer.headers_mut() = headers;
            Ok::<_, reqwest::Error>(answer)
        };
        Ok(self.runtime.spawn(send).await??)
    }
}
