//! One of the server's own jobs on a thread's files (a document's conversion, an office
//! file's preview) run as a command in that thread's sandbox, never in the server.

use std::time::Duration;

use antler_sandbox::{Acquire, ExecRequest, SandboxProvider};

/// Why a job did not succeed.
#[derive(Debug)]
pub(crate) enum JobError {
    /// No sandbox could be had (or it could not run the command).
    NoSandbox(String),
    /// It ran past its time limit.
    TooLong(Duration),
    /// It failed; the last line of its error output.
    Failed(String),
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobError::NoSandbox(why) => write!(f, "no sandbox to do it in: {why}"),
            JobError::TooLong(limit) => write!(f, "it took longer than {} s", limit.as_secs()),
            JobError::Failed(why) => f.write_str(why),
        }
    }
}

/// Runs `command` in the thread's sandbox (started for `owner` if need be) within `limit`;
/// success is exit status 0.
pub(crate) async fn run(
    provider: &dyn SandboxProvider,
    thread_id: &str,
    owner: &str,
    command: String,
    limit: Duration,
) -> Result<(), JobError> {
    let sandbox = provider
        .acquire_for(
            thread_id,
            Acquire {
                owner: Some(owner),
                image: None,
                network: None,
                keep: true,
            },
        )
        .await
        .map_err(|e| JobError::NoSandbox(e.to_string()))?;
    let result = sandbox.exec(ExecRequest::new(command, limit)).await;
    provider.release(thread_id).await;
    let output = result.map_err(|e| JobError::NoSandbox(e.to_string()))?;
    if output.timed_out {
        return Err(JobError::TooLong(limit));
    }
    if output.exit_code != Some(0) {
        let why = output
            .stderr
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("it failed");
        return Err(JobError::Failed(why.chars().take(300).collect()));
    }
    Ok(())
}

/// `s` quoted for the shell.
pub(crate) fn quote(s: &str) -> String {
    shlex::try_quote(s)
        .map(|q| q.into_owned())
        .unwrap_or_default()
}
