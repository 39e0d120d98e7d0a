//! Operator tools: find, list and remove sandbox containers by label, and run a command in a
//! thread's existing container.

use std::collections::HashMap;

use bollard::Docker;
use bollard::query_parameters::{ListContainersOptionsBuilder, RemoveContainerOptionsBuilder};

use super::spec::{LABEL_INSTANCE, LABEL_SANDBOX, LABEL_THREAD};
use crate::api::{ExecOutput, ExecRequest};
use crate::error::SandboxError;

/// A sandbox container as the engine reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerRow {
    /// Container id.
    pub id: String,
    /// Container name.
    pub name: String,
    /// Owning server instance.
    pub instance: String,
    /// Thread, empty for warm containers.
    pub thread: String,
    /// `running`, `exited`, …
    pub state: String,
    /// Human status (`Up 3 minutes`).
    pub status: String,
}

/// Every Antler sandbox container (optionally of one instance).
pub async fn list(
    docker: &Docker,
    instance: Option<&str>,
) -> Result<Vec<ContainerRow>, SandboxError> {
    let label = match instance {
        Some(i) => format!("{LABEL_INSTANCE}={i}"),
        None => format!("{LABEL_SANDBOX}=1"),
    };
    let filters = HashMap::from([("label".to_string(), vec![label])]);
    let rows = docker
        .list_containers(Some(
            ListContainersOptionsBuilder::new()
                .all(true)
                .filters(&filters)
                .build(),
        ))
        .await
        .map_err(|e| SandboxError::Unavailable(format!("docker: {e}")))?;
    Ok(rows
        .into_iter()
        .map(|c| {
            let labels = c.labels.unwrap_or_default();
            ContainerRow {
                id: c.id.unwrap_or_default(),
                name: c
                    .names
                    .and_then(|n| n.first().cloned())
                    .unwrap_or_default()
                    .trim_start_matches('/')
                    .to_string(),
                instance: labels.get(LABEL_INSTANCE).cloned().unwrap_or_default(),
                thread: labels.get(LABEL_THREAD).cloned().unwrap_or_default(),
                state: c.state.map(|s| s.to_string()).unwrap_or_default(),
                status: c.status.unwrap_or_default(),
            }
        })
        .collect())
}

/// The running container of `thread` owned by `instance`, if any. Warm containers given to
/// a thread keep an empty thread label, so the name is checked too.
pub async fn find_thread_container(
    docker: &Docker,
    instance: &str,
    thread: &str,
) -> Result<Option<String>, SandboxError> {
    let short: String = instance
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(12)
        .collect();
    let name = format!("antler-{short}-{thread}");
    Ok(list(docker, Some(instance))
        .await?
        .into_iter()
        .find(|c| c.state == "running" && (c.thread == thread || c.name == name))
        .map(|c| c.id))
}

/// Removes containers; returns how many went.
pub async fn remove(docker: &Docker, ids: &[String]) -> usize {
    let options = RemoveContainerOptionsBuilder::new()
        .force(true)
        .v(true)
        .build();
    let results = futures::future::join_all(
        ids.iter()
            .map(|id| docker.remove_container(id, Some(options.clone()))),
    )
    .await;
    results.iter().filter(|r| r.is_ok()).count()
}

/// Runs a command in an existing container (as the sandbox does).
pub async fn exec_in(
    docker: &Docker,
    container: &str,
    request: &ExecRequest,
    max_output: usize,
) -> Result<ExecOutput, SandboxError> {
    super::exec::run(docker, container, request, max_output)
        .await
        .map(|(output, _)| output)
}
