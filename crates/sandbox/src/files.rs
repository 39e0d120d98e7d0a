//! File operations on the host side of a sandbox's mounts. Both providers use them: the
//! Docker provider's files are bind mounts, so reading and writing on the host is the same
//! as inside the container, without an exec round trip.
//!
//! Every path the model passes is a container path; it is normalised lexically, must stay
//! under `/mnt/user-data` (read-write) or `/mnt/skills` (read-only), and is opened with
//! `RESOLVE_BENEATH`, so symlinks cannot lead out. Relative paths start at the workspace.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobMatcher};
use regex::RegexBuilder;

use crate::access::FileAccess;
use crate::api::{DirEntry, GlobResult, GrepMatch, GrepRequest, GrepResult, Listing};
use crate::beneath::{self, BeneathError};
use crate::error::SandboxError;
use crate::paths::{SKILLS_ROOT, USER_DATA_ROOT};
use crate::walk::walk;

/// Largest file `read_file` returns whole.
pub const MAX_READ_BYTES: u64 = 8 * 1024 * 1024;
/// Most entries in a listing or glob result.
pub const MAX_ENTRIES: usize = 1_000;
/// Longest line returned by grep.
pub const MAX_LINE_CHARS: usize = 400;
/// Files larger than this are not searched.
pub const MAX_GREP_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// How deep glob and grep descend.
const MAX_DEPTH: usize = 32;

/// The host roots behind `/mnt/user-data`, `/mnt/skills` and `/mnt/skills/user`.
#[derive(Debug, Clone)]
pub struct HostFs {
    user_data: PathBuf,
    skills: PathBuf,
    personal: Option<PathBuf>,
    access: FileAccess,
}

/// A resolved container path.
#[derive(Debug, Clone)]
struct Resolved {
    root: PathBuf,
    rel: PathBuf,
    display: String,
    writable: bool,
}

impl HostFs {
    /// File access for one thread: its user-data dir and the skills view. Files created are
    /// made usable by the sandbox user as `access` says.
    pub fn new(user_data: PathBuf, skills: PathBuf, access: FileAccess) -> Self {
        HostFs {
            user_data,
            skills,
            personal: None,
            access,
        }
    }

    /// Shows `dir` (the owner's personal skills) at `/mnt/skills/user`.
    pub fn with_personal(mut self, dir: PathBuf) -> Self {
        self.personal = Some(dir);
        self
    }

    /// Host side of `/mnt/skills/user`, when the sandbox has personal skills.
    pub fn personal(&self) -> Option<&Path> {
        self.personal.as_deref()
    }

    /// Runs `f` on a blocking thread with a copy of this view, for async callers: the file
    /// tools do synchronous I/O.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&HostFs) -> Result<T, SandboxError> + Send + 'static,
    ) -> Result<T, SandboxError> {
        let fs = self.clone();
        tokio::task::spawn_blocking(move || f(&fs))
            .await
            .map_err(|e| SandboxError::Infra(format!("file task failed: {e}")))?
    }

    /// Host side of `/mnt/user-data`.
    pub fn user_data(&self) -> &Path {
        &self.user_data
    }

    /// Host side of `/mnt/skills`.
    pub fn skills(&self) -> &Path {
        &self.skills
    }

    fn resolve(&self, path: &str) -> Result<Resolved, SandboxError> {
        let absolute = if path.starts_with('/') {
            path.to_string()
        } else {
            format!("{USER_DATA_ROOT}/workspace/{path}")
        };
        let mut segments: Vec<&str> = Vec::new();
        for segment in absolute.split('/') {
            match segment {
                "" | "." => {}
                ".." => {
                    segments.pop();
                }
                s if s.contains('\0') => {
                    return Err(SandboxError::Invalid(format!("{path:?}: NUL in path")));
                }
                s => segments.push(s),
            }
        }
        let display = format!("/{}", segments.join("/"));
        let (root, writable, skip) = match (segments.as_slice(), &self.personal) {
            (["mnt", "user-data", ..], _) => (&self.user_data, true, 2),
            (["mnt", "skills", "user", ..], Some(personal)) => (personal, false, 3),
            (["mnt", "skills", ..], _) => (&self.skills, false, 2),
            _ => {
                return Err(SandboxError::PermissionDenied {
                    path: display,
                    why: format!("only {USER_DATA_ROOT} and {SKILLS_ROOT} are accessible"),
                });
            }
        };
        Ok(Resolved {
            root: root.clone(),
            rel: segments[skip..].iter().collect(),
            display,
            writable,
        })
    }

    fn open(&self, r: &Resolved) -> Result<File, SandboxError> {
        beneath::open(&r.root, &r.rel).map_err(|e| beneath_error(&r.display, e))
    }

    /// Reads a UTF-8 text file, optionally lines `start..=end` (1-based, inclusive).
    pub fn read_file(
        &self,
        path: &str,
        lines: Option<(usize, usize)>,
    ) -> Result<String, SandboxError> {
        let r = self.resolve(path)?;
        let file = self.open(&r)?;
        let meta = file
            .metadata()
            .map_err(|e| SandboxError::io(&r.display, &e))?;
        if meta.is_dir() {
            return Err(SandboxError::IsDirectory(r.display));
        }
        let mut reader = BufReader::new(file);
        if is_binary(
            reader
                .fill_buf()
                .map_err(|e| SandboxError::io(&r.display, &e))?,
        ) {
            return Err(SandboxError::Invalid(format!(
                "{}: binary file ({} bytes); inspect it with bash (file, xxd, python3)",
                r.display,
                meta.len()
            )));
        }
        match lines {
            None => {
                if meta.len() > MAX_READ_BYTES {
                    return Err(SandboxError::Invalid(format!(
                        "{}: {} bytes is too large to read whole; read a line range or use bash (head, grep)",
                        r.display,
                        meta.len()
                    )));
                }
                let mut bytes = Vec::with_capacity(meta.len() as usize);
                reader
                    .read_to_end(&mut bytes)
                    .map_err(|e| SandboxError::io(&r.display, &e))?;
                Ok(String::from_utf8_lossy(&bytes).into_owned())
            }
            Some((start, end)) => {
                if start == 0 || end < start {
                    return Err(SandboxError::Invalid(format!(
                        "line range {start}-{end} is invalid: lines start at 1 and end >= start"
                    )));
                }
                let mut out = String::new();
                for (i, line) in reader.split(b'\n').enumerate() {
                    let n = i + 1;
                    if n > end {
                        break;
                    }
                    let line = line.map_err(|e| SandboxError::io(&r.display, &e))?;
                    if n >= start {
                        out.push_str(&String::from_utf8_lossy(&line));
                        out.push('\n');
                    }
                    if out.len() as u64 > MAX_READ_BYTES {
                        break;
                    }
                }
                Ok(out)
            }
        }
    }

    /// Reads a whole file as bytes, refusing one larger than `max` bytes.
    pub fn read_bytes(&self, path: &str, max: u64) -> Result<Vec<u8>, SandboxError> {
        let r = self.resolve(path)?;
        let mut file = self.open(&r)?;
        let meta = file
            .metadata()
            .map_err(|e| SandboxError::io(&r.display, &e))?;
        if meta.is_dir() {
            return Err(SandboxError::IsDirectory(r.display));
        }
        if meta.len() > max {
            return Err(SandboxError::Invalid(format!(
                "{}: {} bytes is larger than the {max} bytes allowed",
                r.display,
                meta.len()
            )));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        // The file may grow after the size check: never read past the limit.
        std::io::Read::by_ref(&mut file)
            .take(max + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| SandboxError::io(&r.display, &e))?;
        if bytes.len() as u64 > max {
            return Err(SandboxError::Invalid(format!(
                "{}: larger than the {max} bytes allowed",
                r.display
            )));
        }
        Ok(bytes)
    }

    /// Writes or appends, creating parent directories. `/mnt/skills` is read-only.
    pub fn write_file(&self, path: &str, content: &str, append: bool) -> Result<(), SandboxError> {
        self.write_bytes(path, content.as_bytes(), append)
    }

    /// Writes `content` to `path` as [`HostFs::write_file`] does, any bytes.
    pub fn write_bytes(
        &self,
        path: &str,
        content: &[u8],
        append: bool,
    ) -> Result<(), SandboxError> {
        let r = self.resolve(path)?;
        if !r.writable {
            return Err(SandboxError::PermissionDenied {
                path: r.display,
                why: "skills are read-only; write to /mnt/user-data/workspace or outputs".into(),
            });
        }
        if r.rel.as_os_str().is_empty() || r.rel.components().count() < 2 {
            return Err(SandboxError::PermissionDenied {
                path: r.display,
                why: "write inside /mnt/user-data/workspace, uploads or outputs".into(),
            });
        }
        let mut file = beneath::create(&r.root, &r.rel, append, self.access)
            .map_err(|e| beneath_error(&r.display, e))?;
        std::io::Write::write_all(&mut file, content).map_err(|e| SandboxError::io(&r.display, &e))
    }

    /// Lists `path` to `depth` levels (1 = its direct entries).
    pub fn list_dir(&self, path: &str, depth: usize) -> Result<Listing, SandboxError> {
        let r = self.resolve(path)?;
        let mut out = Listing::default();
        for (dir, prefix) in self.walk_roots(&r)? {
            let depth = depth.max(1) - usize::from(!prefix.as_os_str().is_empty());
            if depth == 0 {
                continue;
            }
            walk(&dir, depth, &mut |entry| {
                if out.entries.len() >= MAX_ENTRIES {
                    out.truncated = true;
                    return ControlFlow::Break(());
                }
                out.entries.push(DirEntry {
                    path: join_display(&r.display, &prefix.join(entry.rel)),
                    is_dir: entry.is_dir,
                    size: if entry.is_file { entry.size } else { 0 },
                });
                ControlFlow::Continue(())
            });
        }
        Ok(out)
    }

    /// Paths under `path` matching `pattern` (relative to `path`, or absolute).
    pub fn glob(&self, pattern: &str, path: &str) -> Result<GlobResult, SandboxError> {
        let (base, pattern) = if pattern.starts_with('/') {
            split_literal_prefix(pattern)
        } else {
            (path.to_string(), pattern.to_string())
        };
        let matcher = glob_matcher(&pattern)?;
        let r = self.resolve(&base)?;
        let mut out = GlobResult::default();
        for (dir, prefix) in self.walk_roots(&r)? {
            walk(&dir, MAX_DEPTH, &mut |entry| {
                let rel = prefix.join(entry.rel);
                if matcher.is_match(&rel) {
                    if out.paths.len() >= MAX_ENTRIES {
                        out.truncated = true;
                        return ControlFlow::Break(());
                    }
                    out.paths.push(join_display(&r.display, &rel));
                }
                ControlFlow::Continue(())
            });
        }
        Ok(out)
    }

    /// Searches file contents line by line.
    pub fn grep(&self, req: &GrepRequest) -> Result<GrepResult, SandboxError> {
        let pattern = if req.literal {
            regex::escape(&req.pattern)
        } else {
            req.pattern.clone()
        };
        let regex = RegexBuilder::new(&pattern)
            .case_insensitive(!req.case_sensitive)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| SandboxError::Invalid(format!("invalid pattern: {e}")))?;
        let filter = req.glob.as_deref().map(glob_matcher).transpose()?;
        let r = self.resolve(&req.path)?;
        let target = self.open(&r)?;
        let mut out = GrepResult::default();
        let mut search = |file: File, display: &str| -> ControlFlow<()> {
            let mut reader = BufReader::new(file);
            if reader.fill_buf().map(is_binary).unwrap_or(true) {
                return ControlFlow::Continue(());
            }
            for (i, line) in reader.split(b'\n').enumerate() {
                let Ok(line) = line else { break };
                let text = String::from_utf8_lossy(&line);
                if regex.is_match(&text) {
                    if out.matches.len() >= req.max_matches {
                        out.truncated = true;
                        return ControlFlow::Break(());
                    }
                    out.matches.push(GrepMatch {
                        path: display.to_string(),
                        line_number: i + 1,
                        line: shorten(&text),
                    });
                }
            }
            ControlFlow::Continue(())
        };
        if !target.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            let _ = search(target, &r.display);
            return Ok(out);
        }
        drop(target);
        for (dir, prefix) in self.walk_roots(&r)? {
            walk(&dir, MAX_DEPTH, &mut |entry| {
                let rel = prefix.join(entry.rel);
                let wanted = filter.as_ref().is_none_or(|f| {
                    f.is_match(&rel) || rel.file_name().is_some_and(|n| f.is_match(n))
                });
                if !entry.is_file || !wanted || entry.size > MAX_GREP_FILE_BYTES {
                    return ControlFlow::Continue(());
                }
                match entry.open_file() {
                    Ok(file) => search(file, &join_display(&r.display, &rel)),
                    Err(_) => ControlFlow::Continue(()),
                }
            });
        }
        Ok(out)
    }

    /// The folders a walk of `r` covers, each with its place below `r`: `r` itself, and for
    /// `/mnt/skills` also the owner's personal skills, which are mounted at its `user/`
    /// from elsewhere (in the skills view that folder is an empty mount point).
    fn walk_roots(&self, r: &Resolved) -> Result<Vec<(File, PathBuf)>, SandboxError> {
        let mut roots = vec![(self.open_dir(r)?, PathBuf::new())];
        if let Some(personal) = &self.personal
            && r.root == self.skills
            && r.rel.as_os_str().is_empty()
        {
            let user = Resolved {
                root: personal.clone(),
                rel: PathBuf::new(),
                display: format!("{}/user", r.display),
                writable: false,
            };
            if let Ok(dir) = self.open_dir(&user) {
                roots.push((dir, PathBuf::from("user")));
            }
        }
        Ok(roots)
    }

    fn open_dir(&self, r: &Resolved) -> Result<File, SandboxError> {
        let dir = self.open(r)?;
        if !dir.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            return Err(SandboxError::NotDirectory(r.display.clone()));
        }
        Ok(dir)
    }
}

fn join_display(base: &str, rel: &Path) -> String {
    let rel = rel.to_string_lossy();
    if rel.is_empty() {
        base.to_string()
    } else if base == "/" {
        format!("/{rel}")
    } else {
        format!("{base}/{rel}")
    }
}

/// `/mnt/user-data/outputs/**/*.md` → (`/mnt/user-data/outputs`, `**/*.md`).
fn split_literal_prefix(pattern: &str) -> (String, String) {
    let segments: Vec<&str> = pattern.split('/').collect();
    let literal = segments
        .iter()
        .take_while(|s| !s.contains(['*', '?', '[', '{']))
        .count();
    let literal = literal.min(segments.len().saturating_sub(1));
    (segments[..literal].join("/"), segments[literal..].join("/"))
}

fn glob_matcher(pattern: &str) -> Result<GlobMatcher, SandboxError> {
    Glob::new(pattern)
        .map(|g| g.compile_matcher())
        .map_err(|e| SandboxError::Invalid(format!("invalid glob {pattern:?}: {e}")))
}

fn is_binary(head: &[u8]) -> bool {
    head.iter().take(8192).any(|b| *b == 0)
}

fn shorten(line: &str) -> String {
    let line = line.trim_end_matches('\r');
    if line.chars().count() <= MAX_LINE_CHARS {
        return line.to_string();
    }
    let cut: String = line.chars().take(MAX_LINE_CHARS).collect();
    format!("{cut}…")
}

fn beneath_error(display: &str, e: BeneathError) -> SandboxError {
    match e {
        BeneathError::NotFound => SandboxError::NotFound(display.to_string()),
        BeneathError::Escapes => SandboxError::PermissionDenied {
            path: display.to_string(),
            why: "it leads outside the sandbox".into(),
        },
        BeneathError::Special => SandboxError::PermissionDenied {
            path: display.to_string(),
            why: "it is a pipe, socket or device, not a regular file".into(),
        },
        BeneathError::Io(e) => SandboxError::io(display, &e),
    }
}

#[cfg(test)]
mod tests;
