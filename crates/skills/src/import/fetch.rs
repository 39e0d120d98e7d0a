//! Fetching one commit of a repository with the `git` CLI into a scratch directory: shallow,
//! bounded in time and in bytes on disk, with no hooks, no prompts and only the transports
//! in [`ALLOWED_SCHEMES`](super::source::ALLOWED_SCHEMES).

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::source::{ALLOWED_SCHEMES, Source, check_ref};
use super::{ImportError, ImportLimits};

/// How often the size of a running fetch is measured.
const SIZE_POLL: Duration = Duration::from_millis(250);
/// How much of `git`'s error output is kept for the message.
const STDERR_TAIL: u64 = 2_048;

/// A fetched tree, removed when dropped.
#[derive(Debug)]
pub struct Checkout {
    /// The scratch directory (none for a plain local directory).
    _scratch: Option<tempfile::TempDir>,
    /// The tree's root.
    pub root: PathBuf,
    /// The commit checked out (none for a plain local directory).
    pub commit: Option<String>,
}

/// Fetches `git_ref` (a branch, tag or full or abbreviated commit; the default branch when
/// absent) of `source` into a new directory under `scratch` (blocking).
pub fn fetch(
    source: &Source,
    git_ref: Option<&str>,
    limits: &ImportLimits,
    scratch: &Path,
) -> Result<Checkout, ImportError> {
    let url = match source {
        Source::Dir(dir) => {
            if git_ref.is_some() {
                return Err(ImportError::InvalidSource(
                    "a ref can only be given for a Git repository".into(),
                ));
            }
            return Ok(Checkout {
                _scratch: None,
                root: dir.clone(),
                commit: None,
            });
        }
        Source::Git { url, .. } => url,
    };
    if let Some(r) = git_ref {
        check_ref(r)?;
    }
    std::fs::create_dir_all(scratch)?;
    let tmp = tempfile::Builder::new()
        .prefix("import-")
        .tempdir_in(scratch)?;
    let repo = tmp.path().join("repo");
    let git = Git {
        repo: repo.clone(),
        stderr: tmp.path().join("git-stderr"),
        deadline: Instant::now() + limits.timeout,
        limits: *limits,
        display: source.display(),
        url: url.clone(),
    };
    git.run(&["init", "--quiet", "--template=", path_arg(&repo)?], false)?;
    let wanted = git_ref.unwrap_or("HEAD");
    let shallow = git.run(
        &[
            "fetch",
            "--depth",
            "1",
            "--no-tags",
            "--quiet",
            "--",
            url,
            wanted,
        ],
        true,
    );
    let target = match shallow {
        Ok(()) => "FETCH_HEAD".to_string(),
        // A server only hands out named refs and full commit ids; an abbreviated commit
        // needs the branches' history.
        Err(ImportError::CloneFailed(why)) if looks_like_commit(wanted) => {
            git.run(
                &[
                    "fetch",
                    "--no-tags",
                    "--quiet",
                    "--",
                    url,
                    "+refs/heads/*:refs/import/*",
                ],
                true,
            )
            .map_err(|e| match e {
                ImportError::CloneFailed(_) => ImportError::CloneFailed(why),
                other => other,
            })?;
            format!("{wanted}^{{commit}}")
        }
        Err(e) => return Err(e),
    };
    git.run(
        &[
            "-c",
            "core.symlinks=true",
            "checkout",
            "--quiet",
            "--detach",
            &target,
        ],
        true,
    )?;
    let commit = git.output(&["rev-parse", "HEAD"])?;
    Ok(Checkout {
        _scratch: Some(tmp),
        root: repo,
        commit: Some(commit),
    })
}

fn looks_like_commit(name: &str) -> bool {
    (4..40).contains(&name.len()) && name.chars().all(|c| c.is_ascii_hexdigit())
}

fn path_arg(path: &Path) -> Result<&str, ImportError> {
    path.to_str()
        .ok_or_else(|| ImportError::Io(std::io::Error::other("scratch path is not UTF-8")))
}

/// One import's `git` invocations.
struct Git {
    repo: PathBuf,
    stderr: PathBuf,
    deadline: Instant,
    limits: ImportLimits,
    /// The URL as given and as shown, to keep credentials out of messages.
    url: String,
    display: String,
}

impl Git {
    fn command(&self) -> Command {
        let mut cmd = Command::new("git");
        cmd.current_dir(self.repo.parent().unwrap_or(&self.repo))
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_ALLOW_PROTOCOL", ALLOWED_SCHEMES.join(":"))
            .env("GIT_LFS_SKIP_SMUDGE", "1")
            .env("GIT_ASKPASS", "true")
            .env("SSH_ASKPASS", "true")
            .env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
            .env("LC_ALL", "C")
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "submodule.recurse=false",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        cmd
    }

    /// Runs `git <args>` (inside the repository unless it is `init`), killing it at the
    /// deadline or, when `watch_size`, once the repository outgrows the limit.
    fn run(&self, args: &[&str], in_repo: bool) -> Result<(), ImportError> {
        let errors = std::fs::File::create(&self.stderr)?;
        let mut cmd = self.command();
        if in_repo {
            cmd.arg("-C").arg(&self.repo);
        }
        let mut child = cmd
            .args(args)
            .stderr(errors)
            .spawn()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => ImportError::GitUnavailable,
                _ => ImportError::Io(e),
            })?;
        let mut last_measure = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait()? {
                break status;
            }
            if Instant::now() >= self.deadline {
                kill(&mut child);
                return Err(ImportError::Timeout(self.limits.timeout));
            }
            if last_measure.elapsed() >= SIZE_POLL {
                last_measure = Instant::now();
                if size_over(&self.repo, self.limits.max_repo_bytes) {
                    kill(&mut child);
                    return Err(ImportError::TooLarge(self.limits.max_repo_bytes));
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        if size_over(&self.repo, self.limits.max_repo_bytes) {
            return Err(ImportError::TooLarge(self.limits.max_repo_bytes));
        }
        if status.success() {
            Ok(())
        } else {
            Err(ImportError::CloneFailed(self.error_text()))
        }
    }

    /// Runs `git <args>` in the repository and answers its trimmed output.
    fn output(&self, args: &[&str]) -> Result<String, ImportError> {
        let out = self
            .command()
            .arg("-C")
            .arg(&self.repo)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()?;
        if !out.status.success() {
            return Err(ImportError::CloneFailed(
                super::source::without_local_paths(String::from_utf8_lossy(&out.stderr).trim()),
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// The end of `git`'s error output, with the URL's credentials removed.
    fn error_text(&self) -> String {
        let mut text = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.stderr) {
            let len = f.metadata().map(|m| m.len()).unwrap_or(0);
            let _ = f.seek(SeekFrom::Start(len.saturating_sub(STDERR_TAIL)));
            let mut bytes = Vec::new();
            let _ = f.read_to_end(&mut bytes);
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        let text = text.replace(&self.url, &self.display);
        let text = super::source::without_local_paths(text.trim());
        let text = text.trim();
        if text.is_empty() {
            "git failed without saying why".to_string()
        } else {
            text.to_string()
        }
    }
}

fn kill(child: &mut std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Whether the files under `dir` add up to more than `limit` bytes (stops counting early).
fn size_over(dir: &Path, limit: u64) -> bool {
    let mut total: u64 = 0;
    for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if let Ok(meta) = entry.metadata()
            && meta.is_file()
        {
            total = total.saturating_add(meta.len());
            if total > limit {
                return true;
            }
        }
    }
    false
}
