//! The interfaces the agent runtime uses: a [`Sandbox`] per thread and the
//! [`SandboxProvider`] that hands them out.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use crate::error::SandboxError;

/// A command to run with `bash -lc` in `/mnt/user-data/workspace`.
#[derive(Debug, Clone)]
pub struct ExecRequest {
    /// The shell command.
    pub command: String,
    /// Killed (with everything it started) after this long.
    pub timeout: Duration,
    /// Cancelling kills the command at once.
    pub cancel: CancellationToken,
    /// Variables added to the command's environment (the secrets a run may use).
    pub env: Vec<(String, String)>,
}

impl ExecRequest {
    /// A request with a fresh cancellation token.
    pub fn new(command: impl Into<String>, timeout: Duration) -> Self {
        ExecRequest {
            command: command.into(),
            timeout,
            cancel: CancellationToken::new(),
            env: Vec::new(),
        }
    }
}

/// What a command did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ExecOutput {
    /// Standard output (middle-truncated past the cap, with a marker).
    pub stdout: String,
    /// Standard error (same).
    pub stderr: String,
    /// Exit code; `None` when it could not be read.
    pub exit_code: Option<i64>,
    /// Killed because it ran past its timeout.
    pub timed_out: bool,
    /// Killed because the run was cancelled.
    pub cancelled: bool,
    /// Bytes of stdout left out of the middle.
    pub stdout_skipped: u64,
    /// Bytes of stderr left out of the middle.
    pub stderr_skipped: u64,
    /// The connections it made through the egress proxy (`allowlist` sandboxes only).
    pub network: Option<Vec<antler_protocol::egress::NetworkConnection>>,
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DirEntry {
    /// Container path.
    pub path: String,
    /// Directory.
    pub is_dir: bool,
    /// Size in bytes (0 for directories).
    pub size: u64,
}

/// A directory listing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Listing {
    /// Entries, depth-first in name order.
    pub entries: Vec<DirEntry>,
    /// True when the cap cut the listing short.
    pub truncated: bool,
}

/// A content search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepRequest {
    /// Regular expression (or literal text when `literal`).
    pub pattern: String,
    /// Where to search (file or directory, container path).
    pub path: String,
    /// Only files whose path matches this glob (e.g. `*.py`).
    pub glob: Option<String>,
    /// Treat `pattern` as plain text.
    pub literal: bool,
    /// Match case exactly.
    pub case_sensitive: bool,
    /// Most matching lines returned.
    pub max_matches: usize,
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepMatch {
    /// Container path of the file.
    pub path: String,
    /// 1-based line number.
    pub line_number: usize,
    /// The line (shortened when very long).
    pub line: String,
}

/// Search results.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GrepResult {
    /// Matches in path then line order.
    pub matches: Vec<GrepMatch>,
    /// True when `max_matches` cut the results short.
    pub truncated: bool,
}

/// Paths matching a glob.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GlobResult {
    /// Container paths, sorted.
    pub paths: Vec<String>,
    /// True when the cap cut the results short.
    pub truncated: bool,
}

/// A long-lived process in the sandbox that talks over its standard input and output (an
/// MCP server). Dropping it stops the process and everything it started.
pub struct StdioProcess {
    /// Its standard input.
    pub stdin: Pin<Box<dyn AsyncWrite + Send>>,
    /// Its standard output (its standard error goes to the server log).
    pub stdout: Pin<Box<dyn AsyncRead + Send>>,
    /// Stops the process when dropped.
    pub stop: Box<dyn Send + Sync>,
}

impl std::fmt::Debug for StdioProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioProcess").finish_non_exhaustive()
    }
}

/// One thread's sandbox.
#[async_trait]
pub trait Sandbox: Send + Sync {
    /// The thread it belongs to.
    fn thread_id(&self) -> &str;
    /// Runs a shell command.
    async fn exec(&self, request: ExecRequest) -> Result<ExecOutput, SandboxError>;
    /// Reads a text file, optionally lines `start..=end` (1-based).
    async fn read_file(
        &self,
        path: &str,
        lines: Option<(usize, usize)>,
    ) -> Result<String, SandboxError>;
    /// Reads a whole file as bytes (an image, say), refusing one larger than `max` bytes.
    async fn read_bytes(&self, path: &str, max: u64) -> Result<Vec<u8>, SandboxError>;
    /// Writes (or appends to) a file, creating parent directories.
    async fn write_file(&self, path: &str, content: &str, append: bool)
    -> Result<(), SandboxError>;
    /// Writes bytes to a file (replacing it), under the same rules as `write_file`.
    async fn write_bytes(&self, path: &str, content: Vec<u8>) -> Result<(), SandboxError>;
    /// Lists a directory to `depth` levels.
    async fn list_dir(&self, path: &str, depth: usize) -> Result<Listing, SandboxError>;
    /// Finds paths matching `pattern` under `path`.
    async fn glob(&self, pattern: &str, path: &str) -> Result<GlobResult, SandboxError>;
    /// Searches file contents.
    async fn grep(&self, request: GrepRequest) -> Result<GrepResult, SandboxError>;
    /// Starts `argv` (no shell) with `env` added, in `/mnt/user-data/workspace`, connected by
    /// its standard input and output. Only a container can hold such a process apart from
    /// the host.
    async fn spawn_stdio(
        &self,
        _argv: &[String],
        _env: &[(String, String)],
    ) -> Result<StdioProcess, SandboxError> {
        Err(SandboxError::ExecDisabled(
            "this server has no Docker sandbox, so it cannot start a program inside one".into(),
        ))
    }
}

/// What an operator sees of a running sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxInfo {
    /// The thread, or `None` for a warm (unbound) container.
    pub thread_id: Option<String>,
    /// Container id or a local marker.
    pub id: String,
    /// Commands running now.
    pub busy: usize,
    /// Seconds since last use.
    pub idle_secs: u64,
}

/// What a thread's sandbox starts with beyond the provider's configuration.
#[derive(Debug, Clone, Copy, Default)]
pub struct Acquire<'a> {
    /// Whose personal skills appear at `/mnt/skills/user` (when the provider was given a
    /// source of personal skills).
    pub owner: Option<&'a str>,
    /// The image, instead of the configured one (a custom agent's, set by an admin);
    /// providers without images ignore it.
    pub image: Option<&'a str>,
    /// The agent's network policy over the server's (set by an admin); providers without
    /// a network of their own ignore it.
    pub network: Option<&'a antler_protocol::egress::AgentNetwork>,
    /// A running container is used as it is, whatever its image and network (the server's
    /// own jobs in a thread's sandbox, such as converting an upload, must not replace the
    /// one an agent's run chose); without one, a new one starts as the other fields say.
    pub keep: bool,
}

/// Hands out sandboxes per thread.
#[async_trait]
pub trait SandboxProvider: Send + Sync {
    /// `docker` or `local`.
    fn kind(&self) -> &'static str;
    /// The thread's sandbox, started if needed, without personal skills.
    async fn acquire(&self, thread_id: &str) -> Result<Arc<dyn Sandbox>, SandboxError> {
        self.acquire_for(thread_id, Acquire::default()).await
    }
    /// The thread's sandbox, started as `with` says if needed. A running one started from
    /// another image than `with.image` is replaced when no command runs in it.
    async fn acquire_for(
        &self,
        thread_id: &str,
        with: Acquire<'_>,
    ) -> Result<Arc<dyn Sandbox>, SandboxError>;
    /// Brings `/mnt/skills/user` of `owner`'s sandboxes up to date after their personal
    /// skills changed.
    async fn refresh_personal(&self, _owner: &str) -> Result<(), SandboxError> {
        Ok(())
    }
    /// Marks the thread's sandbox idle (it may be reaped later).
    async fn release(&self, thread_id: &str);
    /// Removes the thread's sandbox now.
    async fn destroy(&self, thread_id: &str) -> Result<(), SandboxError>;
    /// Sandboxes currently held.
    async fn list(&self) -> Vec<SandboxInfo>;
    /// Removes everything, within a bounded time.
    async fn shutdown(&self);
    /// How files the server writes into a thread's user-data (uploads, its directories) are
    /// made usable by the user commands run as.
    fn file_access(&self) -> crate::FileAccess {
        crate::FileAccess::Same
    }
    /// The image new sandboxes start from, for providers that use one.
    fn image(&self) -> Option<antler_protocol::health::SandboxImage> {
        None
    }
}
