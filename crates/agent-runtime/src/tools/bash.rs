//! `bash`: a command in the sandbox.

use std::time::Duration;

use antler_sandbox::api::ExecRequest;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::context::sandbox_error;
use super::{Effect, ToolContext, ToolError, ToolOutput, TypedTool, args};

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
        };
        let out = ctx
            .sandbox()
            .await?
            .exec(request)
            .await
            .map_err(|e| sandbox_error(&e))?;
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
        Ok(ToolOutput {
            content: text,
            is_error: out.timed_out || out.exit_code.is_some_and(|c| c != 0),
            artifact: Some(json!({
                "exit_code": out.exit_code,
                "timed_out": out.timed_out,
                "cancelled": out.cancelled,
                "stdout_skipped": out.stdout_skipped,
                "stderr_skipped": out.stderr_skipped,
            })),
            effect: Effect::None,
        })
    }
}
