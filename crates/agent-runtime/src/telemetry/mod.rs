//! What a run tells operators: `tracing` spans that become its OTLP trace (GenAI semantic
//! conventions; exported only when telemetry is on, otherwise the macros cost a cached
//! interest check), Prometheus metrics, and the steps of its timeline for the runs console.

mod observe;

pub use observe::{ModelCallObserver, ToolCallObserver, step_time};

use std::sync::atomic::{AtomicBool, Ordering};

use antler_protocol::runs::RunStatus;
use tracing::Span;
use tracing::field::Empty;

/// The target of every span of a run's trace: the OTLP layer takes these, the log output
/// leaves them out (they would prefix every log line).
pub const TARGET: &str = "antler::trace";

static RECORD_CONTENT: AtomicBool = AtomicBool::new(false);

/// Whether spans carry message contents, tool arguments and results
/// (`telemetry.record_content`; off: traces hold no conversation text).
pub fn set_record_content(on: bool) {
    RECORD_CONTENT.store(on, Ordering::Relaxed);
}

/// See [`set_record_content`].
pub fn record_content() -> bool {
    RECORD_CONTENT.load(Ordering::Relaxed)
}

/// The span of a whole run (or a subagent's run, inside its `task` call's span): `agent` as
/// the caller named it (`agent`, a custom agent's id, a subagent type), `agent_id` the
/// assistant's id.
pub fn run_span(run_id: &str, thread_id: &str, agent: &str, agent_id: &str) -> Span {
    tracing::info_span!(
        target: TARGET,
        "invoke_agent",
        otel.name = format!("invoke_agent {agent}"),
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = agent,
        gen_ai.agent.id = agent_id,
        gen_ai.conversation.id = thread_id,
        antler.run.id = run_id,
        antler.thread.id = thread_id,
        antler.run.status = Empty,
        error.type = Empty,
        otel.status_code = Empty,
        otel.status_description = Empty,
    )
}

/// Records how a run (or a subagent's run) ended on its span.
pub fn run_ended(span: &Span, status: RunStatus, error: Option<&str>) {
    span.record("antler.run.status", status.as_str());
    if let Some(error) = error.filter(|_| status != RunStatus::Success) {
        span.record("error.type", status.as_str());
        span.record("otel.status_code", "ERROR");
        span.record("otel.status_description", error);
    }
}

/// Records how a run ended on its span and in the metrics (a subagent's run is counted as
/// its `task` call instead).
pub fn run_finished(span: &Span, status: RunStatus, error: Option<&str>, seconds: f64) {
    run_ended(span, status, error);
    metrics::counter!("antler_runs_finished_total", "status" => status.as_str()).increment(1);
    metrics::histogram!("antler_run_duration_seconds", "status" => status.as_str()).record(seconds);
}

/// Counts a run that was created.
pub fn run_started() {
    metrics::counter!("antler_runs_started_total").increment(1);
}

/// Records the time from a run's start to its first streamed token.
pub fn first_token(seconds: f64) {
    metrics::histogram!("antler_run_time_to_first_token_seconds").record(seconds);
}

/// A span around getting a thread's sandbox (`acquire`) or running a command in it (`exec`).
pub fn sandbox_span(operation: &'static str, thread_id: &str) -> Span {
    tracing::info_span!(
        target: TARGET,
        "sandbox",
        otel.name = format!("sandbox.{operation}"),
        antler.sandbox.operation = operation,
        antler.thread.id = thread_id,
        error.type = Empty,
        otel.status_code = Empty,
    )
}

/// A span around one call of an MCP server's tool.
pub fn mcp_span(server: &str, tool: &str) -> Span {
    tracing::info_span!(
        target: TARGET,
        "mcp",
        otel.name = format!("mcp.call {server}"),
        otel.kind = "client",
        mcp.server.name = server,
        mcp.tool.name = tool,
        error.type = Empty,
        otel.status_code = Empty,
    )
}

/// A span around extracting memory from one conversation.
pub fn memory_span(owner: &str, thread_id: &str) -> Span {
    tracing::info_span!(
        target: TARGET,
        "memory",
        otel.name = "memory.extract",
        antler.user.id = owner,
        antler.thread.id = thread_id,
        error.type = Empty,
        otel.status_code = Empty,
    )
}

/// Marks `span` failed with `kind` (its `error.type`).
pub fn span_failed(span: &Span, kind: &str) {
    span.record("error.type", kind);
    span.record("otel.status_code", "ERROR");
}
