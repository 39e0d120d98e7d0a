//! A long-lived process in the container talking over the exec stream (an MCP server): its
//! standard input is the exec's input, its standard output becomes a byte stream, and
//! stopping it kills its whole process group, as a timed-out command's is.

use std::io;

use bollard::Docker;
use bollard::container::LogOutput;
use bollard::exec::CreateExecOptions;
use futures::StreamExt as _;
use tokio_util::io::StreamReader;

use super::exec::{KILL_GROUP, kill};
use crate::api::StdioProcess;
use crate::error::SandboxError;

/// Like a command's wrapper, but the program gets the exec's standard input (a background
/// job would otherwise read `/dev/null`) and is run as given, without a shell.
fn wrapper() -> String {
    format!(
        r#"f="/tmp/.antler-exec-$ANTLER_EXEC_ID"
setsid "$@" <&0 & pg=$!
echo "$pg" > "$f"
wait "$pg" 2>/dev/null; rc=$?
{KILL_GROUP}
rm -f "$f"
exit $rc"#
    )
}

/// Kills the process group when dropped (the connection ended or was closed).
struct Stop {
    docker: Docker,
    container: String,
    exec_id: String,
}

impl Drop for Stop {
    fn drop(&mut self) {
        let (docker, container, exec_id) = (
            self.docker.clone(),
            std::mem::take(&mut self.container),
            std::mem::take(&mut self.exec_id),
        );
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if !kill(&docker, &container, &exec_id).await {
                    tracing::warn!(container, "could not stop a program in the sandbox");
                }
            });
        }
    }
}

/// Starts `argv` in the container with `env` added.
pub(crate) async fn spawn(
    docker: &Docker,
    container: &str,
    argv: &[String],
    env: &[(String, String)],
) -> Result<StdioProcess, SandboxError> {
    if argv.first().is_none_or(String::is_empty) {
        return Err(SandboxError::Invalid("no program to start".into()));
    }
    let exec_id = uuid::Uuid::new_v4().simple().to_string();
    let wrapper = wrapper();
    let mut cmd = vec!["bash", "-c", wrapper.as_str(), "antler-stdio"];
    cmd.extend(argv.iter().map(String::as_str));
    // Last, so a configured variable of the same name cannot hide it from the kill.
    let mut vars: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    vars.push(format!("ANTLER_EXEC_ID={exec_id}"));
    let created = docker
        .create_exec(
            container,
            CreateExecOptions {
                cmd: Some(cmd),
                env: Some(vars.iter().map(String::as_str).collect()),
                attach_stdin: Some(true),
                attach_stdout: Some(true),
                attach_stderr: Some(true),
                working_dir: Some("/mnt/user-data/workspace"),
                ..Default::default()
            },
        )
        .await
        .map_err(|e| SandboxError::Infra(format!("cannot start the program: {e}")))?;
    let stop = Stop {
        docker: docker.clone(),
        container: container.to_string(),
        exec_id,
    };
    let (output, input) = super::exec::start_attached(docker, &created.id, "program").await?;
    let program = argv.first().cloned().unwrap_or_default();
    // Standard error is logged; only standard output is the conversation.
    let stdout = output.filter_map(move |item| {
        let program = program.clone();
        async move {
            match item {
                Ok(LogOutput::StdOut { message } | LogOutput::Console { message }) => {
                    Some(Ok(message))
                }
                Ok(LogOutput::StdErr { message }) => {
                    tracing::debug!(program, "{}", String::from_utf8_lossy(&message).trim_end());
                    None
                }
                Ok(LogOutput::StdIn { .. }) => None,
                Err(e) => Some(Err(io::Error::other(e))),
            }
        }
    });
    Ok(StdioProcess {
        stdin: input,
        stdout: Box::pin(StreamReader::new(Box::pin(stdout))),
        stop: Box::new(stop),
    })
}
