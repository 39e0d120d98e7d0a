//! `telemetry.*`: where traces go and how metrics are served.

use serde::{Deserialize, Serialize};

/// `telemetry.*`: OpenTelemetry traces and Prometheus metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct TelemetryConfig {
    /// Where traces go.
    pub otlp: OtlpConfig,
    /// Spans carry message contents, tool arguments and results (off: no conversation text
    /// leaves the server in a trace).
    pub record_content: bool,
    /// `/metrics`.
    pub metrics: MetricsConfig,
}

/// `telemetry.otlp.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OtlpConfig {
    /// An OTLP/HTTP (protobuf) collector such as `http://localhost:4318`; traces go to its
    /// `/v1/traces`. Unset: no traces, unless `OTEL_EXPORTER_OTLP_ENDPOINT` or
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` names one (headers from
    /// `OTEL_EXPORTER_OTLP_HEADERS`).
    pub endpoint: Option<String>,
    /// `service.name` of the traces (`OTEL_SERVICE_NAME` wins).
    pub service_name: String,
}

impl Default for OtlpConfig {
    fn default() -> Self {
        OtlpConfig {
            endpoint: None,
            service_name: "antler".into(),
        }
    }
}

/// `telemetry.metrics.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// `/metrics` on the main address, for admins.
    pub enabled: bool,
    /// Also serve `/metrics`, without sign-in, on this address (for a Prometheus that
    /// cannot sign in; keep it private), e.g. `127.0.0.1:9464`.
    pub bind: Option<String>,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            enabled: true,
            bind: None,
        }
    }
}
