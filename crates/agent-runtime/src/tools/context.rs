//! What a tool call may use: the thread's sandbox (acquired on first use), the catalog at
//! run start, the limits, the run's cancellation, and — for the tools that need them — the
//! run's event log, the person's memory and the run itself (to start subagents).

use futures::TryFutureExt;
use std::sync::Arc;
use tracing::Instrument;

use antler_sandbox::SandboxError;
use antler_sandbox::api::{Sandbox, SandboxProvider};
use antler_skills::Snapshot;
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;

use super::ToolError;
use crate::agent::Delegate;
use crate::config::AgentConfig;
use crate::memory::MemorySource;
use crate::profile::AgentProfile;
use crate::runs::log::EventLog;
use crate::secrets::RunSecrets;

/// The thread's sandbox, acquired on the first tool call that needs it.
pub struct SandboxHandle {
    provider: Arc<dyn SandboxProvider>,
    pub(crate) thread_id: String,
    owner: Option<String>,
    image: Option<String>,
    network: Option<antler_protocol::egress::AgentNetwork>,
    secrets: Option<Arc<RunSecrets>>,
    cell: OnceCell<Arc<dyn Sandbox>>,
}

impl SandboxHandle {
    /// A handle for `thread_id`.
    pub fn new(provider: Arc<dyn SandboxProvider>, thread_id: &str) -> Self {
        SandboxHandle {
            provider,
            thread_id: thread_id.to_string(),
            owner: None,
            image: None,
            network: None,
            secrets: None,
            cell: OnceCell::new(),
        }
    }

    /// The sandbox shows `owner`'s personal skills.
    pub fn with_owner(mut self, owner: &str) -> Self {
        self.owner = Some(owner.to_string());
        self
    }

    /// The sandbox starts from `image` (a custom agent's) rather than the server's.
    pub fn with_image(mut self, image: Option<&str>) -> Self {
        self.image = image.map(str::to_string);
        self
    }

    /// The sandbox follows the agent's network policy (set by an admin) over the server's.
    pub fn with_network(mut self, network: Option<&antler_protocol::egress::AgentNetwork>) -> Self {
        self.network = network.cloned();
        self
    }

    /// The run's secrets: what its commands may get, and what is redacted.
    pub fn with_secrets(mut self, secrets: Arc<RunSecrets>) -> Self {
        self.secrets = Some(secrets);
        self
    }

    /// The run's secrets, when it has any.
    pub fn secrets(&self) -> Option<&RunSecrets> {
        self.secrets.as_deref()
    }

    pub(crate) async fn get(&self) -> Result<&Arc<dyn Sandbox>, SandboxError> {
        self.cell
            .get_or_try_init(|| {
                // Only the first use of the run acquires (and is traced).
                let span = crate::telemetry::sandbox_span("acquire", &self.thread_id);
                let failed = span.clone();
                self.provider
                    .acquire_for(
                        &self.thread_id,
                        antler_sandbox::Acquire {
                            owner: self.owner.as_deref(),
                            image: self.image.as_deref(),
                            network: self.network.as_ref(),
                            keep: false,
                        },
                    )
                    .instrument(span)
                    .inspect_err(move |_| crate::telemetry::span_failed(&failed, "sandbox"))
            })
            .await
    }

    /// Marks the sandbox idle when it was used.
    pub async fn release(&self) {
        if self.cell.initialized() {
            self.provider.release(&self.thread_id).await;
        }
    }
}

/// Starts the run's `sandboxed` MCP servers inside its thread's sandbox (acquired then).
pub struct SandboxLauncher<'a>(pub &'a SandboxHandle);

#[async_trait::async_trait]
impl antler_mcp::Launcher for SandboxLauncher<'_> {
    fn scope(&self) -> &str {
        &self.0.thread_id
    }

    fn owner(&self) -> &str {
        self.0.owner.as_deref().unwrap_or_default()
    }

    async fn hold(&self) {
        // Acquired for the run (released when it ends): the idle reaper leaves it alone.
        let _ = self.0.get().await;
    }

    async fn launch(
        &self,
        argv: &[String],
        env: &[(String, String)],
    ) -> Result<antler_mcp::Launched, String> {
        let shown = |e: SandboxError| match sandbox_error(&e) {
            ToolError::Model(m) => m,
            other => other.to_string(),
        };
        let sandbox = self.0.get().await.map_err(shown)?;
        let process = sandbox.spawn_stdio(argv, env).await.map_err(shown)?;
        Ok(antler_mcp::Launched {
            stdout: process.stdout,
            stdin: process.stdin,
            stop: process.stop,
        })
    }
}

/// What tools get from the run. The last four are capabilities only some tools use; a tool
/// finds `None` where the run has no such thing.
pub struct ToolContext<'a> {
    /// The thread's sandbox.
    pub sandbox: &'a SandboxHandle,
    /// The catalog at run start (for disabled-skill checks).
    pub skills: &'a Snapshot,
    /// Limits.
    pub cfg: &'a AgentConfig,
    /// Cancels running commands.
    pub cancel: &'a CancellationToken,
    /// The id of this call (progress events and subagents name it).
    pub call_id: &'a str,
    /// The run's event log, for what a call reports while it works.
    pub events: Option<&'a Arc<EventLog>>,
    /// The person's memory, for the memory tools.
    pub memory: Option<MemoryAccess<'a>>,
    /// The run, for the `task` tool to start a subagent's run from.
    pub delegate: Option<&'a dyn Delegate>,
}

/// The person's memory as one run sees it: whose it is, and which agent asks.
#[derive(Clone, Copy)]
pub struct MemoryAccess<'a> {
    /// The memory.
    pub source: &'a dyn MemorySource,
    /// The person.
    pub owner: &'a str,
    /// The agent of the run (its id and whether its memory is its own).
    pub profile: &'a AgentProfile,
}

impl ToolContext<'_> {
    /// The sandbox, acquired now if this is the run's first call that needs it.
    pub async fn sandbox(&self) -> Result<&Arc<dyn Sandbox>, ToolError> {
        self.sandbox.get().await.map_err(|e| sandbox_error(&e))
    }

    /// The secrets a command of this run gets as environment variables now.
    pub fn secret_env(&self) -> Vec<(String, String)> {
        self.sandbox
            .secrets()
            .map(RunSecrets::env)
            .unwrap_or_default()
    }
}

/// What the model reads about a sandbox error. Infrastructure details (engine messages that
/// may quote host paths) go to the server log only.
pub(crate) fn sandbox_error(e: &SandboxError) -> ToolError {
    if e.is_model_facing() {
        return ToolError::Model(e.to_string());
    }
    tracing::warn!(error = %e, "sandbox failure during a tool call");
    ToolError::Model(
        match e {
            SandboxError::Unavailable(_) => {
                "the sandbox is unavailable right now; try again shortly, or answer without tools"
            }
            _ => "the sandbox failed to carry out this call (the details are in the server log)",
        }
        .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infrastructure_errors_never_show_the_model_host_details() {
        let told = |e: SandboxError| sandbox_error(&e).to_string();
        let infra = told(SandboxError::Infra(
            "docker create: bind /var/lib/antler/users/x".into(),
        ));
        assert!(!infra.contains("/var/lib"), "{infra}");
        let down = told(SandboxError::Unavailable("socket /run/docker.sock".into()));
        assert!(
            !down.contains("docker.sock") && down.contains("unavailable"),
            "{down}"
        );
        let missing = told(SandboxError::NotFound("/mnt/user-data/a.txt".into()));
        assert!(
            missing.contains("/mnt/user-data/a.txt"),
            "the model can act on this"
        );
    }
}
