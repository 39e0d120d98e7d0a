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

/// Kills process group `$pg` until it is empty, for at most two seconds; exits 125 when it
/// cannot. Builtins only, spinning rather than sleeping: with every pid taken (a fork bomb)
/// no helper process can start, and killed processes keep the group alive until reaped.
pub(super) const KILL_GROUP: &str = r#"end=$((${EPOCHREALTIME/./} + 2000000))
while kill -KILL -- -"$pg" 2>/dev/null; do
  (( ${EPOCHREALTIME/./} < end )) || { echo "antler: could not stop the processes the command started" >&2; exit 125; }
done"#;

/// The command runs as the leader of a new session (its process group is its pid), recorded
/// where a timeout's `kill` can find it. When it ends, whatever it left running in the
/// background is killed: a command cannot leave processes behind (a fork bomb, a server)
/// that hold pids, memory or the output stream.
fn wrapper() -> String {
    format!(
        r#"f="/tmp/.antler-exec-$ANTLER_EXEC_ID"
setsid bash -lc "$ANTLER_COMMAND" & pg=$!
echo "$pg" > "$f"
wait "$pg" 2>/dev/null; rc=$?
{KILL_GROUP}
rm -f "$f"
exit $rc"#
    )
}

/// An attached exec's output and input; `what` names it in errors.
pub(super) async fn start_attached(
    docker: &Docker,
    exec: &str,
    what: &str,
) -> Result<
    (
        Attached,
        std::pin::Pin<Box<dyn tokio::io::AsyncWrite + Send>>,
    ),
    SandboxError,
> {
    let started = docker
        .start_exec(
            exec,
            Some(StartExecOptions {
                detach: false,
                tty: false,
                output_capacity: Some(64 * 1024),
            }),
        )
        .await
        .map_err(|e| SandboxError::Infra(format!("cannot start the {what}: {e}")))?;
    match started {
        StartExecResults::Attached { output, input } => Ok((output, input)),
        StartExecResults::Detached => {
            Err(SandboxError::Infra(format!("the {what} started detached")))
        }
    }
}

/// The output stream of an attached exec.
pub(super) type Attached = std::pin::Pin<
    Box<dyn futures::Stream<Item = Result<LogOutput, bollard::errors::Error>> + Send>,
>;

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
    let wrapper = wrapper();
    let mut env = vec![
        format!("ANTLER_EXEC_ID={exec_id}"),
        format!("ANTLER_COMMAND={}", request.command),
    ];
    env.extend(request.env.iter().map(|(k, v)| format!("{k}={v}")));
    let created = docker
        .create_exec(
            container,
            CreateExecOptions {
                cmd: Some(vec!["bash", "-c", &wrapper]),
                env: Some(env.iter().map(String::as_str).collect()),
                attach_stdout: Some(true),
                attach_stderr: Some(true),
                working_dir: Some("/mnt/user-data/workspace"),
                ..Default::default()
            },
        )
        .await
        .map_err(|e| SandboxError::Infra(format!("cannot start the command: {e}")))?;
    let (mut output, _) = start_attached(docker, &created.id, "command").await?;
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
pub(super) async fn kill(docker: &Docker, container: &str, exec_id: &str) -> bool {
    // Waits briefly for the pid file (a failed `sleep` under pid exhaustion only makes the
    // wait shorter), then kills the group until it is empty.
    let script = format!(
        r#"f=/tmp/.antler-exec-{exec_id}
for ((i = 0; i < 20; i++)); do [ -s "$f" ] && break; sleep 0.05 2>/dev/null; done
[ -s "$f" ] || exit 0
read -r pg < "$f" || [ -n "$pg" ] || exit 1
{KILL_GROUP}
exit 0"#
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
