//! Running a command in a container through the exec API, with a timeout and cancellation
//! that kill the command's whole process group, and capped output.

use std::time::Duration;

use bollard::Docker;
use bollard::container::LogOutput;
use bollard::exec::{CreateExecOptions, StartExecOptions, StartExecResults};
use futures::StreamExt;

use crate::api::{ExecOutput, ExecRequest};
use crate::error::SandboxError;
use crate::output::CappedOutput;

/// The command runs as the leader of a new session (so its process group is its pid), after
/// recording that pid where a later `kill` can find it.
const WRAPPER: &str =
    r#"echo $$ > "/tmp/.antler-exec-$ANTLER_EXEC_ID" && exec bash -lc "$ANTLER_COMMAND""#;

/// How long output may keep draining after a kill.
const DRAIN_AFTER_KILL: Duration = Duration::from_secs(5);

/// Runs the command. The flag is false when the container stopped responding (the kill could
/// not run or the output did not end after it): the caller should replace the container.
pub(crate) async fn run(
    docker: &Docker,
    container: &str,
    request: &ExecRequest,
    max_output: usize,
) -> Result<(ExecOutput, bool), SandboxError> {
    let exec_id = uuid::Uuid::new_v4().simple().to_string();
    let env = [
        format!("ANTLER_EXEC_ID={exec_id}"),
        format!("ANTLER_COMMAND={}", request.command),
    ];
    let created = docker
        .create_exec(
            container,
            CreateExecOptions {
                cmd: Some(vec!["setsid", "-w", "bash", "-c", WRAPPER]),
                env: Some(env.iter().map(String::as_str).collect()),
                attach_stdout: Some(true),
                attach_stderr: Some(true),
                working_dir: Some("/mnt/user-data/workspace"),
                ..Default::default()
            },
        )
        .await
        .map_err(|e| SandboxError::Infra(format!("cannot start the command: {e}")))?;
    let started = docker
        .start_exec(
            &created.id,
            Some(StartExecOptions {
                detach: false,
                tty: false,
                output_capacity: Some(64 * 1024),
            }),
        )
        .await
        .map_err(|e| SandboxError::Infra(format!("cannot start the command: {e}")))?;
    let StartExecResults::Attached { mut output, .. } = started else {
        return Err(SandboxError::Infra("the command started detached".into()));
    };
    let (mut out, mut err) = (CappedOutput::new(max_output), CappedOutput::new(max_output));
    let mut result = ExecOutput::default();
    let deadline = tokio::time::sleep(request.timeout);
    tokio::pin!(deadline);
    let mut killed_at: Option<tokio::time::Instant> = None;
    let mut healthy = true;
    loop {
        let drain_limit = async {
            match killed_at {
                Some(t) => tokio::time::sleep_until(t + DRAIN_AFTER_KILL).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            item = output.next() => match item {
                Some(Ok(LogOutput::StdOut { message })) => out.push(&message),
                Some(Ok(LogOutput::StdErr { message })) => err.push(&message),
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    tracing::warn!(error = %e, "exec output stream failed");
                    break;
                }
                None => break,
            },
            () = &mut deadline, if killed_at.is_none() => {
                result.timed_out = true;
                healthy &= kill(docker, container, &exec_id).await;
                killed_at = Some(tokio::time::Instant::now());
            }
            () = request.cancel.cancelled(), if killed_at.is_none() => {
                result.cancelled = true;
                healthy &= kill(docker, container, &exec_id).await;
                killed_at = Some(tokio::time::Instant::now());
            }
            () = drain_limit => {
                healthy = false;
                break;
            }
        }
    }
    (result.stdout, result.stdout_skipped) = out.finish();
    (result.stderr, result.stderr_skipped) = err.finish();
    result.exit_code = match docker.inspect_exec(&created.id).await {
        Ok(inspect) if inspect.running != Some(true) => inspect.exit_code,
        _ => None,
    };
    Ok((result, healthy))
}

/// Kills the command's process group (retrying briefly in case the pid file is not written
/// yet). False when the kill itself could not run (for example all pids are taken).
async fn kill(docker: &Docker, container: &str, exec_id: &str) -> bool {
    // Waits briefly for the pid file, then kills the group until it is empty: a process
    // forked while the first signal was delivered would otherwise survive.
    let script = format!(
        r#"f=/tmp/.antler-exec-{exec_id}
           for i in $(seq 20); do [ -s "$f" ] && break; sleep 0.05; done
           [ -s "$f" ] || exit 0
           pg=$(cat "$f")
           for i in $(seq 50); do kill -KILL -- -"$pg" 2>/dev/null || exit 0; sleep 0.02; done
           exit 1"#
    );
    let exec = docker
        .create_exec(
            container,
            CreateExecOptions {
                cmd: Some(vec!["bash", "-c", script.as_str()]),
                attach_stdout: Some(true),
                attach_stderr: Some(true),
                ..Default::default()
            },
        )
        .await;
    let Ok(exec) = exec else {
        tracing::warn!(container, "could not create the kill exec");
        return false;
    };
    let Ok(StartExecResults::Attached { mut output, .. }) = docker.start_exec(&exec.id, None).await
    else {
        return false;
    };
    while output.next().await.is_some() {}
    matches!(docker.inspect_exec(&exec.id).await, Ok(i) if i.exit_code == Some(0))
}
