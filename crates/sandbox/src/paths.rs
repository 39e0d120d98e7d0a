//! Virtual (container) paths and the per-thread host directories behind them.

use std::path::{Path, PathBuf};

pub use antler_protocol::paths::{SKILLS_ROOT, USER_DATA_ROOT};
/// The owner of every thread until authentication arrives.
pub const LOCAL_OWNER: &str = "local";

/// The three directories under `/mnt/user-data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserDataDir {
    /// Scratch space for the agent.
    Workspace,
    /// Files people uploaded.
    Uploads,
    /// Results for the person: artifacts.
    Outputs,
}

impl UserDataDir {
    /// All three, in display order.
    pub const ALL: [UserDataDir; 3] = [
        UserDataDir::Workspace,
        UserDataDir::Uploads,
        UserDataDir::Outputs,
    ];

    /// Directory name.
    pub fn as_str(self) -> &'static str {
        match self {
            UserDataDir::Workspace => "workspace",
            UserDataDir::Uploads => "uploads",
            UserDataDir::Outputs => "outputs",
        }
    }
}

/// Host directories of one thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadDirs {
    thread_root: PathBuf,
    user_data: PathBuf,
}

impl ThreadDirs {
    /// `<data_dir>/users/<owner>/threads/<thread_id>`. The caller validates `thread_id`.
    pub fn new(data_dir: &Path, owner: &str, thread_id: &str) -> Self {
        let thread_root = data_dir
            .join("users")
            .join(owner)
            .join("threads")
            .join(thread_id);
        let user_data = thread_root.join("user-data");
        ThreadDirs {
            thread_root,
            user_data,
        }
    }

    /// Everything belonging to the thread on the host.
    pub fn thread_root(&self) -> &Path {
        &self.thread_root
    }

    /// Host side of `/mnt/user-data`.
    pub fn user_data(&self) -> &Path {
        &self.user_data
    }

    /// Host side of `/mnt/user-data/<dir>`.
    pub fn dir(&self, dir: UserDataDir) -> PathBuf {
        self.user_data.join(dir.as_str())
    }

    /// Creates the three directories.
    pub fn create(&self) -> std::io::Result<()> {
        for d in UserDataDir::ALL {
            std::fs::create_dir_all(self.dir(d))?;
        }
        Ok(())
    }

    /// The container path of a host path under `user_data`, when it is one.
    pub fn to_virtual(&self, host: &Path) -> Option<String> {
        let rel = host.strip_prefix(&self.user_data).ok()?;
        let mut out = String::from(USER_DATA_ROOT);
        for c in rel.components() {
            out.push('/');
            out.push_str(c.as_os_str().to_str()?);
        }
        Some(out)
    }
}

/// Why a virtual path was refused. Messages never contain host paths.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// Not under the expected root (checked on a segment boundary).
    #[error("path must start with {root}/")]
    OutsideRoot {
        /// The root the path had to be under.
        root: &'static str,
    },
    /// A segment that could walk out of the root or hide a separator.
    #[error("path segment {segment:?} is not allowed ({why})")]
    BadSegment {
        /// The offending segment (as received).
        segment: String,
        /// Which rule it broke.
        why: &'static str,
    },
}

/// A validated container path below one of the roots, as segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VirtualPath {
    /// `/mnt/user-data` or `/mnt/skills`.
    pub root: &'static str,
    /// Segments below the root; never `.`, `..`, empty, or containing separators.
    pub segments: Vec<String>,
    /// Whether the path ended with `/`.
    pub trailing_slash: bool,
}

impl VirtualPath {
    /// Parses `/mnt/user-data/...` (already percent-decoded once).
    pub fn parse_user_data(path: &str) -> Result<Self, PathError> {
        Self::parse(path, USER_DATA_ROOT)
    }

    /// Parses a path under `root`, refusing traversal and disguised separators.
    pub fn parse(path: &str, root: &'static str) -> Result<Self, PathError> {
        let rest = path
            .strip_prefix(root)
            .filter(|r| r.is_empty() || r.starts_with('/'))
            .ok_or(PathError::OutsideRoot { root })?;
        let trailing_slash = rest.len() > 1 && rest.ends_with('/');
        let inner = rest.strip_prefix('/').unwrap_or(rest);
        let inner = if trailing_slash {
            &inner[..inner.len() - 1]
        } else {
            inner
        };
        let mut segments = Vec::new();
        if !inner.is_empty() {
            for segment in inner.split('/') {
                check_segment(segment)?;
                segments.push(segment.to_string());
            }
        }
        Ok(VirtualPath {
            root,
            segments,
            trailing_slash,
        })
    }

    /// The segments joined as a relative host path.
    pub fn relative(&self) -> PathBuf {
        self.segments.iter().collect()
    }

    /// The canonical container path string.
    pub fn display(&self) -> String {
        let mut out = self.root.to_string();
        for s in &self.segments {
            out.push('/');
            out.push_str(s);
        }
        out
    }
}

fn check_segment(segment: &str) -> Result<(), PathError> {
    let bad = |why| {
        Err(PathError::BadSegment {
            segment: segment.to_string(),
            why,
        })
    };
    if segment.is_empty() {
        return bad("empty segment: absolute or doubled separator");
    }
    if segment == "." || segment == ".." {
        return bad("relative segment");
    }
    if segment.contains('\\') {
        return bad("backslash");
    }
    if segment.contains('\0') {
        return bad("NUL byte");
    }
    // Still percent-encoded after one decode: a double-encoded dot, slash, backslash or NUL.
    let lower = segment.to_ascii_lowercase();
    if ["%2e", "%2f", "%5c", "%00", "%25"]
        .iter()
        .any(|e| lower.contains(e))
    {
        return bad("encoded separator or dot");
    }
    if segment.len() > 255 {
        return bad("longer than 255 bytes");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_paths_on_a_segment_boundary() {
        let p = VirtualPath::parse_user_data("/mnt/user-data/outputs/report.md").unwrap();
        assert_eq!(p.segments, ["outputs", "report.md"]);
        assert_eq!(p.relative(), PathBuf::from("outputs/report.md"));
        assert_eq!(p.display(), "/mnt/user-data/outputs/report.md");
        assert!(!p.trailing_slash);
        let root = VirtualPath::parse_user_data("/mnt/user-data").unwrap();
        assert!(root.segments.is_empty());
        let dir = VirtualPath::parse_user_data("/mnt/user-data/outputs/a.skill/").unwrap();
        assert!(dir.trailing_slash);
        assert_eq!(dir.segments, ["outputs", "a.skill"]);
        for outside in [
            "/mnt/user-database/x",
            "/mnt/user",
            "mnt/user-data/x",
            "/etc/passwd",
        ] {
            assert!(
                matches!(
                    VirtualPath::parse_user_data(outside),
                    Err(PathError::OutsideRoot { .. })
                ),
                "{outside}"
            );
        }
        assert!(VirtualPath::parse("/mnt/skills-x/a", SKILLS_ROOT).is_err());
        assert!(VirtualPath::parse("/mnt/skills/public/a/SKILL.md", SKILLS_ROOT).is_ok());
    }

    #[test]
    fn refuses_traversal_and_disguised_separators() {
        for bad in [
            "/mnt/user-data/../etc/passwd",
            "/mnt/user-data/outputs/../../x",
            "/mnt/user-data/./outputs",
            "/mnt/user-data//etc/passwd",
            "/mnt/user-data/outputs\\..\\x",
            "/mnt/user-data/outputs/a\0b",
            "/mnt/user-data/outputs/%2e%2e/x",
            "/mnt/user-data/outputs/%2E%2e",
            "/mnt/user-data/outputs/a%2fb",
            "/mnt/user-data/outputs/%252e%252e",
        ] {
            assert!(
                matches!(
                    VirtualPath::parse_user_data(bad),
                    Err(PathError::BadSegment { .. })
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn maps_thread_dirs_and_back() {
        let dirs = ThreadDirs::new(Path::new("/data"), LOCAL_OWNER, "t1");
        assert_eq!(
            dirs.dir(UserDataDir::Outputs),
            PathBuf::from("/data/users/local/threads/t1/user-data/outputs")
        );
        assert_eq!(
            dirs.to_virtual(Path::new(
                "/data/users/local/threads/t1/user-data/outputs/a.md"
            )),
            Some("/mnt/user-data/outputs/a.md".to_string())
        );
        assert_eq!(
            dirs.to_virtual(Path::new("/data/users/local/threads/t2/x")),
            None
        );
    }
}
