//! One thread's container: commands through the exec API, files through the host side of
//! the bind mounts.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use bollard::Docker;
use tokio::sync::OwnedSemaphorePermit;

use crate::api::{
    ExecOutput, ExecRequest, GlobResult, GrepRequest, GrepResult, Listing, Sandbox, StdioProcess,
};
use crate::error::SandboxError;
use crate::files::HostFs;
use crate::personal::PersonalMount;

/// A running container and what it is bound to.
pub struct DockerSandbox {
    pub(crate) thread_id: String,
    /// The image it was started from.
    pub(crate) image: String,
    /// The network mode it was started with.
    pub(crate) mode: antler_protocol::egress::NetworkMode,
    /// Its egress proxy (`allowlist` only).
    pub(crate) egress: Option<Arc<crate::egress::Endpoint>>,
    pub(crate) container_id: String,
    pub(crate) docker: Docker,
    pub(crate) fs: HostFs,
    /// The owner's personal skills at `/mnt/skills/user` (removed with the sandbox).
    pub(crate) personal: Option<Arc<PersonalMount>>,
    pub(crate) max_output: usize,
    pub(crate) max_timeout: Duration,
    pub(crate) busy: AtomicUsize,
    pub(crate) broken: AtomicBool,
    pub(crate) last_used: std::sync::Mutex<Instant>,
    /// Held while the container exists: the cap on concurrent containers. Taken out when the
    /// container is removed, even if someone still holds this handle.
    pub(crate) permit: std::sync::Mutex<Option<OwnedSemaphorePermit>>,
}

impl DockerSandbox {
    pub(crate) fn idle(&self) -> Duration {
        self.last_used
            .lock()
            .map(|t| t.elapsed())
            .unwrap_or_default()
    }

    /// Gives the container's slot in the cap back.
    pub(crate) fn release_permit(&self) {
        if let Ok(mut p) = self.permit.lock() {
            p.take();
        }
    }

    /// Whether the container can still start a process.
    async fn probe(&self) -> bool {
        let request = ExecRequest::new("true", Duration::from_secs(5));
        matches!(
            super::exec::run(&self.docker, &self.container_id, &request, 256).await,
            Ok((out, true)) if out.exit_code == Some(0)
        )
    }

    fn touch(&self) {
        if let Ok(mut t) = self.last_used.lock() {
            *t = Instant::now();
        }
    }
}

/// Counts a command in flight so the idle reaper leaves the container alone.
struct Busy<'a>(&'a DockerSandbox);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
        self.0.touch();
    }
}

#[async_trait]
impl Sandbox for DockerSandbox {
    fn thread_id(&self) -> &str {
        &self.thread_id
    }

    async fn exec(&self, mut request: ExecRequest) -> Result<ExecOutput, SandboxError> {
        self.busy.fetch_add(1, Ordering::SeqCst);
        let _busy = Busy(self);
        request.timeout = request.timeout.min(self.max_timeout);
        let mark = self.egress.as_ref().map(|e| e.mark());
        let mut result =
            super::exec::run(&self.docker, &self.container_id, &request, self.max_output).await;
        if let (Some(endpoint), Some(mark), Ok((output, _))) = (&self.egress, mark, &mut result) {
            output.network = Some(endpoint.connections_since(mark).await);
        }
        // The next acquire replaces a container that cannot run or stop commands.
        match result {
            Ok((output, healthy)) => {
                // A forced kill or a command that could not start may leave the container
                // unable to run anything (pids exhausted): check before handing it out again.
                let suspicious = output.timed_out
                    || output.cancelled
                    || output.exit_code.is_none()
                    || matches!(output.exit_code, Some(125..=127))
                    || output
                        .stderr
                        .contains("fork: Resource temporarily unavailable");
                let healthy = healthy && (!suspicious || self.probe().await);
                if !healthy {
                    tracing::warn!(thread.id = %self.thread_id, "sandbox stopped responding; it will be replaced");
                    self.broken.store(true, Ordering::SeqCst);
                }
                Ok(output)
            }
            Err(e) => {
                self.broken.store(true, Ordering::SeqCst);
                Err(e)
            }
        }
    }

    async fn read_file(
        &self,
        path: &str,
        lines: Option<(usize, usize)>,
    ) -> Result<String, SandboxError> {
        self.touch();
        let path = path.to_string();
        self.fs.run(move |fs| fs.read_file(&path, lines)).await
    }

    async fn spawn_stdio(
        &self,
        argv: &[String],
        env: &[(String, String)],
    ) -> Result<StdioProcess, SandboxError> {
        self.touch();
        super::stdio::spawn(&self.docker, &self.container_id, argv, env).await
    }

    async fn read_bytes(&self, path: &str, max: u64) -> Result<Vec<u8>, SandboxError> {
        self.touch();
        let path = path.to_string();
        self.fs.run(move |fs| fs.read_bytes(&path, max)).await
    }

    async fn write_file(
        &self,
        path: &str,
        content: &str,
        append: bool,
    ) -> Result<(), SandboxError> {
        self.touch();
        let (path, content) = (path.to_string(), content.to_string());
        self.fs
            .run(move |fs| fs.write_file(&path, &content, append))
            .await
    }

    async fn write_bytes(&self, path: &str, content: Vec<u8>) -> Result<(), SandboxError> {
        self.touch();
        let path = path.to_string();
        self.fs
            .run(move |fs| fs.write_bytes(&path, &content, false))
            .await
    }

    async fn list_dir(&self, path: &str, depth: usize) -> Result<Listing, SandboxError> {
        self.touch();
        let path = path.to_string();
        self.fs.run(move |fs| fs.list_dir(&path, depth)).await
    }

    async fn glob(&self, pattern: &str, path: &str) -> Result<GlobResult, SandboxError> {
        self.touch();
        let (pattern, path) = (pattern.to_string(), path.to_string());
        self.fs.run(move |fs| fs.glob(&pattern, &path)).await
    }

    async fn grep(&self, request: GrepRequest) -> Result<GrepResult, SandboxError> {
        self.touch();
        self.fs.run(move |fs| fs.grep(&request)).await
    }
}
