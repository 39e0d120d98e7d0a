//! The local provider: the same container paths mapped onto host directories, for machines
//! without Docker. File tools work; commands are refused unless `allow_host_bash` is set,
//! and then run in their own process group with the timeout, the output caps and a scrubbed
//! environment (no secrets inherited from the server).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::io::AsyncReadExt;
use tokio::sync::Mutex;

use crate::api::{
    ExecOutput, ExecRequest, GlobResult, GrepRequest, GrepResult, Listing, Sandbox, SandboxInfo,
    SandboxProvider,
};
use crate::error::SandboxError;
use crate::files::HostFs;
use crate::output::CappedOutput;
use crate::paths::{LOCAL_OWNER, SKILLS_ROOT, ThreadDirs, USER_DATA_ROOT};
use crate::personal::{PersonalMount, PersonalSkills, PersonalSource};

/// Environment variables passed to host commands; everything else (API keys, tokens) is
/// dropped.
const ENV_ALLOWLIST: [&str; 4] = ["PATH", "LANG", "LC_ALL", "TZ"];

/// Runs file tools on host directories and, when allowed, commands on the host.
pub struct LocalProvider {
    data_dir: PathBuf,
    skills_view: PathBuf,
    allow_bash: bool,
    max_output: usize,
    max_timeout: Duration,
    /// Where running host commands are recorded (see [`crate::host_procs`]).
    records: Option<PathBuf>,
    /// Personal skills and where their per-sandbox copies go.
    personal: Option<PersonalSource>,
    sandboxes: Mutex<HashMap<String, Arc<LocalSandbox>>>,
}

impl std::fmt::Debug for LocalProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalProvider")
            .field("allow_bash", &self.allow_bash)
            .finish_non_exhaustive()
    }
}

impl LocalProvider {
    /// A provider over `<data_dir>/users/…` with the skills view at `skills_view`.
    pub fn new(data_dir: &Path, skills_view: &Path, allow_bash: bool, max_output: usize) -> Self {
        LocalProvider {
            data_dir: data_dir.to_path_buf(),
            skills_view: skills_view.to_path_buf(),
            allow_bash,
            max_output,
            max_timeout: Duration::from_secs(
                crate::config::SandboxConfig::default().command_timeout_secs,
            ),
            records: None,
            personal: None,
            sandboxes: Mutex::new(HashMap::new()),
        }
    }

    /// Shows each owner's personal skills from `source` at `/mnt/skills/user`, copied below
    /// `root` (emptied now: no sandbox of an earlier run is left).
    pub fn with_personal_skills(mut self, source: Arc<dyn PersonalSkills>, root: PathBuf) -> Self {
        if let Err(error) = std::fs::remove_dir_all(&root)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(%error, "could not clear old personal skill copies");
        }
        self.personal = Some(PersonalSource::new(source, root));
        self
    }

    /// Caps every command's timeout (`sandbox.command_timeout_secs`), as Docker sandboxes do.
    pub fn with_command_timeout(mut self, max: Duration) -> Self {
        self.max_timeout = max;
        self
    }

    /// Records running commands in `dir` so a restart can kill what a crash left running.
    pub fn with_process_records(mut self, dir: PathBuf) -> Self {
        self.records = Some(dir);
        self
    }
}

#[async_trait]
impl SandboxProvider for LocalProvider {
    fn kind(&self) -> &'static str {
        "local"
    }

    async fn acquire_for(
        &self,
        thread_id: &str,
        with: crate::api::Acquire<'_>,
    ) -> Result<Arc<dyn Sandbox>, SandboxError> {
        let owner = with.owner;
        let mut map = self.sandboxes.lock().await;
        if let Some(existing) = map.get(thread_id) {
            return Ok(existing.clone());
        }
        let dirs = ThreadDirs::new(&self.data_dir, LOCAL_OWNER, thread_id);
        dirs.create()
            .map_err(|e| SandboxError::Infra(format!("cannot create thread directories: {e}")))?;
        let mut fs = HostFs::new(
            dirs.user_data().to_path_buf(),
            self.skills_view.clone(),
            crate::FileAccess::Same,
        );
        let mut mount = None;
        if let (Some(personal), Some(owner)) = (&self.personal, owner) {
            let created = personal.mount_for(owner).await?;
            fs = fs.with_personal(created.dir());
            mount = Some(created);
        }
        let sandbox = Arc::new(LocalSandbox {
            thread_id: thread_id.to_string(),
            fs,
            personal: mount,
            allow_bash: self.allow_bash,
            max_output: self.max_output,
            max_timeout: self.max_timeout,
            records: self.records.clone(),
            busy: AtomicUsize::new(0),
            last_used: std::sync::Mutex::new(Instant::now()),
        });
        map.insert(thread_id.to_string(), sandbox.clone());
        Ok(sandbox)
    }

    async fn release(&self, _thread_id: &str) {}

    async fn refresh_personal(&self, owner: &str) -> Result<(), SandboxError> {
        let Some(personal) = &self.personal else {
            return Ok(());
        };
        let mounts: Vec<_> = self
            .sandboxes
            .lock()
            .await
            .values()
            .filter_map(|s| s.personal.clone())
            .collect();
        personal.refresh_owner(mounts, owner).await
    }

    async fn destroy(&self, thread_id: &str) -> Result<(), SandboxError> {
        self.sandboxes.lock().await.remove(thread_id);
        Ok(())
    }

    async fn list(&self) -> Vec<SandboxInfo> {
        self.sandboxes
            .lock()
            .await
            .values()
            .map(|s| SandboxInfo {
                thread_id: Some(s.thread_id.clone()),
                id: format!("local:{}", s.thread_id),
                busy: s.busy.load(Ordering::Relaxed),
                idle_secs: s.idle().as_secs(),
            })
            .collect()
    }

    async fn shutdown(&self) {
        self.sandboxes.lock().await.clear();
    }
}

/// One thread's host-backed sandbox.
pub struct LocalSandbox {
    thread_id: String,
    fs: HostFs,
    /// The owner's personal skills (removed with the sandbox).
    personal: Option<Arc<PersonalMount>>,
    allow_bash: bool,
    max_output: usize,
    max_timeout: Duration,
    records: Option<PathBuf>,
    busy: AtomicUsize,
    last_used: std::sync::Mutex<Instant>,
}

impl LocalSandbox {
    fn idle(&self) -> Duration {
        self.last_used
            .lock()
            .map(|t| t.elapsed())
            .unwrap_or_default()
    }

    /// Container paths in a command become host paths (on a path-segment boundary).
    fn to_host(&self, command: &str) -> String {
        let mut command = replace_root(
            command,
            USER_DATA_ROOT,
            &self.fs.user_data().to_string_lossy(),
        );
        // The personal root first: it lies inside `/mnt/skills`.
        if let Some(personal) = self.fs.personal() {
            command = replace_root(&command, PERSONAL_ROOT, &personal.to_string_lossy());
        }
        replace_root(&command, SKILLS_ROOT, &self.fs.skills().to_string_lossy())
    }

    /// Host paths in output become container paths again.
    fn to_container(&self, text: &str) -> String {
        let mut text = text.replace(&*self.fs.user_data().to_string_lossy(), USER_DATA_ROOT);
        if let Some(personal) = self.fs.personal() {
            text = text.replace(&*personal.to_string_lossy(), PERSONAL_ROOT);
        }
        text.replace(&*self.fs.skills().to_string_lossy(), SKILLS_ROOT)
    }
}

/// Where personal skills appear.
const PERSONAL_ROOT: &str = "/mnt/skills/user";

/// Replaces `root` where it is a whole path prefix (not `/mnt/skills-x`).
fn replace_root(text: &str, root: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(root) {
        let after = &rest[i + root.len()..];
        let boundary = after
            .chars()
            .next()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'));
        out.push_str(&rest[..i]);
        out.push_str(if boundary { with } else { root });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[async_trait]
impl Sandbox for LocalSandbox {
    fn thread_id(&self) -> &str {
        &self.thread_id
    }

    async fn exec(&self, mut request: ExecRequest) -> Result<ExecOutput, SandboxError> {
        request.timeout = request.timeout.min(self.max_timeout);
        if !self.allow_bash {
            return Err(SandboxError::ExecDisabled(
                "command execution is disabled: this server has no Docker sandbox. Use the file \
                 tools, or ask the operator to install Docker (make sandbox-image) or to set \
                 sandbox.allow_host_bash: true (runs commands on the host, unsafe)"
                    .into(),
            ));
        }
        self.busy.fetch_add(1, Ordering::Relaxed);
        let result = run_on_host(
            &self.to_host(&request.command),
            &self.fs.user_data().join("workspace"),
            &request,
            self.max_output,
            self.records.as_deref(),
        )
        .await;
        self.busy.fetch_sub(1, Ordering::Relaxed);
        if let Ok(mut t) = self.last_used.lock() {
            *t = Instant::now();
        }
        result.map(|mut out| {
            out.stdout = self.to_container(&out.stdout);
            out.stderr = self.to_container(&out.stderr);
            out
        })
    }

    async fn read_file(
        &self,
        path: &str,
        lines: Option<(usize, usize)>,
    ) -> Result<String, SandboxError> {
        let path = path.to_string();
        self.fs.run(move |fs| fs.read_file(&path, lines)).await
    }

    async fn read_bytes(&self, path: &str, max: u64) -> Result<Vec<u8>, SandboxError> {
        let path = path.to_string();
        self.fs.run(move |fs| fs.read_bytes(&path, max)).await
    }

    async fn write_file(
        &self,
        path: &str,
        content: &str,
        append: bool,
    ) -> Result<(), SandboxError> {
        let (path, content) = (path.to_string(), content.to_string());
        self.fs
            .run(move |fs| fs.write_file(&path, &content, append))
            .await
    }

    async fn write_bytes(&self, path: &str, content: Vec<u8>) -> Result<(), SandboxError> {
        let path = path.to_string();
        self.fs
            .run(move |fs| fs.write_bytes(&path, &content, false))
            .await
    }

    async fn list_dir(&self, path: &str, depth: usize) -> Result<Listing, SandboxError> {
        let path = path.to_string();
        self.fs.run(move |fs| fs.list_dir(&path, depth)).await
    }

    async fn glob(&self, pattern: &str, path: &str) -> Result<GlobResult, SandboxError> {
        let (pattern, path) = (pattern.to_string(), path.to_string());
        self.fs.run(move |fs| fs.glob(&pattern, &path)).await
    }

    async fn grep(&self, request: GrepRequest) -> Result<GrepResult, SandboxError> {
        self.fs.run(move |fs| fs.grep(&request)).await
    }
}

/// Runs `bash -c` in its own process group; the timeout or a cancellation kills the group.
async fn run_on_host(
    command: &str,
    cwd: &Path,
    request: &ExecRequest,
    max_output: usize,
    records: Option<&Path>,
) -> Result<ExecOutput, SandboxError> {
    let mut cmd = tokio::process::Command::new("bash");
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .env_clear()
        .envs(
            ENV_ALLOWLIST
                .iter()
                .filter_map(|k| std::env::var(k).ok().map(|v| (*k, v))),
        )
        .env("HOME", cwd)
        .envs(request.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd
        .spawn()
        .map_err(|e| SandboxError::Infra(format!("cannot start bash: {e}")))?;
    let pgid = child
        .id()
        .and_then(|id| rustix::process::Pid::from_raw(id as i32));
    // Removed when this function returns, after the group was killed below.
    let _record = match (records, child.id()) {
        (Some(dir), Some(id)) => Some(crate::host_procs::record(dir, id)),
        _ => None,
    };
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let collect = async {
        let (mut out, mut err) = (CappedOutput::new(max_output), CappedOutput::new(max_output));
        let (mut ob, mut eb) = (vec![0u8; 16 * 1024], vec![0u8; 16 * 1024]);
        let (mut o_open, mut e_open) = (true, true);
        while o_open || e_open {
            tokio::select! {
                n = read_some(&mut stdout, &mut ob), if o_open => match n {
                    Some(n) => out.push(&ob[..n]),
                    None => o_open = false,
                },
                n = read_some(&mut stderr, &mut eb), if e_open => match n {
                    Some(n) => err.push(&eb[..n]),
                    None => e_open = false,
                },
            }
        }
        let status = child.wait().await.ok();
        (out, err, status)
    };
    let kill = || {
        if let Some(pgid) = pgid {
            let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
        }
    };
    let mut output = ExecOutput::default();
    tokio::pin!(collect);
    let (out, err, status) = tokio::select! {
        r = &mut collect => r,
        () = tokio::time::sleep(request.timeout) => {
            output.timed_out = true;
            kill();
            collect.await
        }
        () = request.cancel.cancelled() => {
            output.cancelled = true;
            kill();
            collect.await
        }
    };
    // Background processes the command left behind die with it, as in the Docker sandbox.
    kill();
    (output.stdout, output.stdout_skipped) = out.finish();
    (output.stderr, output.stderr_skipped) = err.finish();
    output.exit_code = status.map(|s| {
        use std::os::unix::process::ExitStatusExt;
        s.code()
            .map(i64::from)
            .unwrap_or_else(|| 128 + i64::from(s.signal().unwrap_or(0)))
    });
    Ok(output)
}

async fn read_some<R: tokio::io::AsyncRead + Unpin>(
    reader: &mut Option<R>,
    buf: &mut [u8],
) -> Option<usize> {
    let r = reader.as_mut()?;
    match r.read(buf).await {
        Ok(0) | Err(_) => None,
        Ok(n) => Some(n),
    }
}

#[cfg(test)]
mod tests;
