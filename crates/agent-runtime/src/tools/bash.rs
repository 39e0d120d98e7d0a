//! `bash`: a command in the sandbox.

use std::time::Duration;
use tracing::Instrument;

use antler_sandbox::api::ExecRequest;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use antler_protocol::egress::NetworkConnection;
use antler_protocol::stream::{CustomEvent, StreamEvent};

use super::context::sandbox_error;
use super::{Effect, ToolContext, ToolError, ToolOutput, TypedTool, args};

/// The marker the sandbox puts where it cut the middle of long output.
static CUT: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\n\n\[\.\.\. \d+ bytes of output skipped \.\.\.\]\n\n").ok()
});

/// Runs a bash command in the thread's sandbox.
pub(crate) struct Bash;

/// `bash` arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct BashArgs {
    /// The command.
    command: String,
    /// Kill it after this many seconds (default 300).
    #[serde(default, deserialize_with = "args::opt_u64")]
    #[schemars(with = "Option<u64>")]
    timeout_secs: Option<u64>,
}

#[async_trait]
impl TypedTool for Bash {
    type Args = BashArgs;
    const NAME: &'static str = "bash";
    const DESCRIPTION: &'static str = "Run a bash command in the sandbox (working directory /mnt/user-data/workspace). \
         Returns stdout, stderr and the exit code. Long output is shortened in the middle.";

    async fn run(&self, a: BashArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let limit = ctx.cfg.bash_timeout_secs.max(1);
        let secs = a.timeout_secs.unwrap_or(limit).clamp(1, limit);
        let request = ExecRequest {
            command: a.command,
            timeout: Duration::from_secs(secs),
            cancel: ctx.cancel.clone(),
            env: ctx.secret_env(),
        };
        let sandbox = ctx.sandbox().await?;
        let span = crate::telemetry::sandbox_span("exec", &ctx.sandbox.thread_id);
        let mut out = sandbox
            .exec(request)
            .instrument(span.clone())
            .await
            .map_err(|e| {
                crate::telemetry::span_failed(&span, "sandbox");
                sandbox_error(&e)
            })?;
        if let (Some(secrets), Some(marker)) = (ctx.sandbox.secrets(), CUT.as_ref()) {
            // Where the output's middle was cut, a value the cut went through is masked too.
            out.stdout = secrets.set().redact_cut(&out.stdout, marker);
            out.stderr = secrets.set().redact_cut(&out.stderr, marker);
        }
        let mut text = out.stdout.clone();
        if !out.stderr.is_empty() {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("[stderr]\n");
            text.push_str(&out.stderr);
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        let status = if out.timed_out {
            format!("[timed out after {secs}s; the command and everything it started were killed]")
        } else if out.cancelled {
            "[cancelled]".to_string()
        } else {
            format!(
                "[exit code: {}]",
                out.exit_code
                    .map_or("unknown".to_string(), |c| c.to_string())
            )
        };
        text.push_str(&status);
        if let Some(connections) = out.network.as_deref().filter(|c| !c.is_empty()) {
            text.push('\n');
            text.push_str(&network_summary(connections));
            if let Some(events) = ctx.events {
                let mut connections = connections.to_vec();
                if let Some(secrets) = ctx.sandbox.secrets() {
                    // Every field the sandbox chose (host, method) and the reasons quoting them.
                    let mut shown = serde_json::to_value(&connections).unwrap_or_default();
                    secrets.set().redact_json(&mut shown);
                    connections = serde_json::from_value(shown).unwrap_or_default();
                }
                events.emit(&StreamEvent::Custom(&CustomEvent::Network {
                    tool_call_id: ctx.call_id.to_string(),
                    connections,
                }));
            }
        }
        Ok(ToolOutput {
            content: text,
            is_error: out.timed_out || out.exit_code.is_some_and(|c| c != 0),
            artifact: Some(json!({
                "exit_code": out.exit_code,
                "timed_out": out.timed_out,
                "cancelled": out.cancelled,
                "stdout_skipped": out.stdout_skipped,
                "stderr_skipped": out.stderr_skipped,
                "network": out.network,
            })),
            effect: Effect::None,
        })
    }
}

/// One line on what a command connected to, with each refusal and failure named so the
/// model can tell a policy from a broken host.
fn network_summary(connections: &[NetworkConnection]) -> String {
    let hosts: std::collections::BTreeSet<&str> =
        connections.iter().map(|c| c.host.as_str()).collect();
    let bytes: u64 = connections
        .iter()
        .map(|c| c.bytes_sent + c.bytes_received)
        .sum();
    let mut line = format!(
        "[network: {} host{}, {}",
        hosts.len(),
        if hosts.len() == 1 { "" } else { "s" },
        human_bytes(bytes)
    );
    let problems: Vec<String> = connections
        .iter()
        .filter_map(|c| {
            let error = c.error.as_deref()?;
            let verdict = if c.allowed { "failed" } else { "refused" };
            Some(format!("{verdict} {}:{}: {error}", c.host, c.port))
        })
        .collect();
    // The same refusal repeated (a retrying client) is said once.
    let mut seen = std::collections::BTreeSet::new();
    let distinct: Vec<&String> = problems
        .iter()
        .filter(|p| seen.insert(p.as_str()))
        .collect();
    for problem in distinct.iter().take(5) {
        line.push_str("; ");
        line.push_str(problem);
    }
    if distinct.len() > 5 {
        line.push_str(&format!("; and {} more", distinct.len() - 5));
    }
    line.push(']');
    line
}

/// `812 B`, `3.1 MB` (decimal units, as download tools show them).
fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["kB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn(host: &str, allowed: bool, error: Option<&str>, bytes: u64) -> NetworkConnection {
        NetworkConnection {
            host: host.into(),
            port: 443,
            method: "connect".into(),
            allowed,
            error: error.map(str::to_string),
            address: None,
            bytes_sent: bytes / 2,
            bytes_received: bytes - bytes / 2,
            duration_ms: 1,
        }
    }

    #[test]
    fn the_summary_counts_hosts_and_bytes_and_names_refusals() {
        let line = network_summary(&[
            conn("pypi.org", true, None, 3_000_000),
            conn("files.pythonhosted.org", true, None, 100_000),
            conn(
                "evil.test",
                false,
                Some("evil.test is not in the egress allow-list"),
                0,
            ),
            conn(
                "evil.test",
                false,
                Some("evil.test is not in the egress allow-list"),
                0,
            ),
        ]);
        assert!(line.starts_with("[network: 3 hosts, 3.1 MB"), "{line}");
        assert_eq!(line.matches("refused evil.test:443").count(), 1, "{line}");
    }
}
