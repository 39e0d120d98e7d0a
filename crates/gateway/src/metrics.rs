//! `/metrics`: Prometheus text (`antler_*`). Counters and histograms are recorded where
//! things happen (runs, model and tool calls, sandboxes, streams); gauges of what the server
//! holds (sandboxes, queued runs) are read when scraped.

use std::sync::OnceLock;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::error::AppError;
use crate::state::{Admin, AppState};

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Seconds: from a cached model answer to a long research run.
const DURATION_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0,
];

/// Starts recording metrics (once per process; later calls share the first recorder).
pub fn install() -> &'static PrometheusHandle {
    HANDLE.get_or_init(|| {
        let builder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), DURATION_BUCKETS)
            .unwrap_or_else(|_| PrometheusBuilder::new());
        let recorder = builder.build_recorder();
        let handle = recorder.handle();
        // Another recorder already installed (a test process with several servers): this
        // one's output then stays empty, which the scrape still answers.
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!(
                "a metrics recorder was already installed; /metrics reports only its own"
            );
        }
        describe();
        handle
    })
}

/// The `# HELP` of each metric, and gauges at 0 until something moves them.
fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        "antler_runs_started_total",
        "Runs created (subagents' runs are task calls)."
    );
    describe_counter!("antler_runs_finished_total", "Runs ended, by status.");
    describe_histogram!(
        "antler_run_duration_seconds",
        Unit::Seconds,
        "Run creation to end, by status."
    );
    describe_histogram!(
        "antler_run_time_to_first_token_seconds",
        Unit::Seconds,
        "Run start to the first streamed model token."
    );
    describe_counter!(
        "antler_model_calls_total",
        "Model calls, by configured model and outcome."
    );
    describe_histogram!(
        "antler_model_call_duration_seconds",
        Unit::Seconds,
        "Model call latency, by model."
    );
    describe_counter!(
        "antler_model_tokens_total",
        "Tokens reported by the models, by model and type."
    );
    describe_counter!(
        "antler_tool_calls_total",
        "Tool calls, by tool and outcome."
    );
    describe_counter!(
        "antler_tool_errors_total",
        "Tool calls that failed, by tool."
    );
    describe_histogram!(
        "antler_tool_call_duration_seconds",
        Unit::Seconds,
        "Tool call duration, by tool."
    );
    describe_gauge!("antler_sse_streams_active", "Run event streams open now.");
    describe_gauge!(
        "antler_sandboxes",
        "Sandboxes by state: warm (unbound), busy, idle."
    );
    describe_gauge!(
        "antler_sandboxes_creating",
        "Sandbox containers being created now."
    );
    describe_gauge!(
        "antler_runs_active",
        "Runs pending or running in this process."
    );
    describe_gauge!(
        "antler_queue_length",
        "Work waiting: runs behind another of their thread, memory extraction, due crons."
    );
    describe_gauge!(
        "antler_db_pool_connections",
        "Database connections, idle or in use."
    );
    describe_gauge!(
        "antler_db_pool_max_connections",
        "Most database connections the pool opens."
    );
    metrics::gauge!("antler_sse_streams_active").set(0.0);
    metrics::gauge!("antler_sandboxes_creating").set(0.0);
    metrics::counter!("antler_runs_started_total").absolute(0);
}

/// Prometheus text of every `antler_*` metric (admins; the metrics address serves it to
/// anyone who can reach it).
pub(crate) async fn scrape_admin(
    State(app): State<AppState>,
    _admin: Admin,
) -> Result<Response, AppError> {
    if !app.config.telemetry.metrics.enabled {
        return Err(AppError::not_found(
            "metrics are off (telemetry.metrics.enabled)",
        ));
    }
    Ok(scrape(State(app)).await)
}

/// `/metrics` without sign-in, for the separate `telemetry.metrics.bind` address.
pub async fn scrape(State(app): State<AppState>) -> Response {
    refresh_gauges(&app).await;
    let handle = install();
    handle.run_upkeep();
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        handle.render(),
    )
        .into_response()
}

/// The gauges of what the server holds now.
async fn refresh_gauges(app: &AppState) {
    let sandboxes = app.sandbox.list().await;
    let warm = sandboxes.iter().filter(|s| s.thread_id.is_none()).count();
    let busy = sandboxes
        .iter()
        .filter(|s| s.thread_id.is_some() && s.busy > 0)
        .count();
    let idle = sandboxes.len() - warm - busy;
    for (state, n) in [("warm", warm), ("busy", busy), ("idle", idle)] {
        metrics::gauge!("antler_sandboxes", "state" => state).set(n as f64);
    }
    let load = app.runs.manager().load();
    metrics::gauge!("antler_runs_active").set(load.active as f64);
    metrics::gauge!("antler_queue_length", "queue" => "runs").set(load.waiting as f64);
    match app.store.stats.queue_lengths().await {
        Ok(q) => {
            metrics::gauge!("antler_queue_length", "queue" => "memory_extraction")
                .set(q.memory_extraction as f64);
            metrics::gauge!("antler_queue_length", "queue" => "crons_due").set(q.crons_due as f64);
        }
        Err(e) => tracing::warn!(error = %e, "queue lengths could not be read for /metrics"),
    }
    let pool = app.store.stats.pool();
    metrics::gauge!("antler_db_pool_connections", "state" => "idle").set(pool.idle as f64);
    metrics::gauge!("antler_db_pool_connections", "state" => "in_use")
        .set(pool.size.saturating_sub(pool.idle) as f64);
    metrics::gauge!("antler_db_pool_max_connections").set(pool.max as f64);
}

/// An open SSE stream of a run, counted in `antler_sse_streams_active` while it lives.
pub(crate) struct ActiveStream;

impl ActiveStream {
    pub(crate) fn new() -> Self {
        metrics::gauge!("antler_sse_streams_active").increment(1.0);
        ActiveStream
    }
}

impl Drop for ActiveStream {
    fn drop(&mut self) {
        metrics::gauge!("antler_sse_streams_active").decrement(1.0);
    }
}
