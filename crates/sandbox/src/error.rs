//! Sandbox errors, split the way the agent loop needs them: problems to tell the model about
//! (it can fix its call) and infrastructure failures (the run cannot go on as planned).

/// A failed sandbox operation. Messages use container paths only, never host paths.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    /// No such file or directory.
    #[error("{0}: no such file or directory")]
    NotFound(String),
    /// Not allowed (read-only skills, a path leading outside the sandbox).
    #[error("{path}: permission denied ({why})")]
    PermissionDenied {
        /// The container path.
        path: String,
        /// Why.
        why: String,
    },
    /// A directory where a file was expected.
    #[error("{0}: is a directory")]
    IsDirectory(String),
    /// A file where a directory was expected.
    #[error("{0}: not a directory")]
    NotDirectory(String),
    /// The request itself is wrong (path outside the sandbox, bad pattern, bad range).
    #[error("{0}")]
    Invalid(String),
    /// Command execution is switched off for this sandbox.
    #[error("{0}")]
    ExecDisabled(String),
    /// No sandbox could be provided (all busy, engine down).
    #[error("sandbox unavailable: {0}")]
    Unavailable(String),
    /// The engine or the host failed.
    #[error("sandbox failure: {0}")]
    Infra(String),
}

impl SandboxError {
    /// True for errors the model should see and can act on; false for infrastructure
    /// failures, whose details (which may name host paths) stay in the server log.
    pub fn is_model_facing(&self) -> bool {
        !matches!(self, SandboxError::Unavailable(_) | SandboxError::Infra(_))
    }

    pub(crate) fn io(path: &str, e: &std::io::Error) -> Self {
        match e.kind() {
            std::io::ErrorKind::NotFound => SandboxError::NotFound(path.to_string()),
            std::io::ErrorKind::PermissionDenied => SandboxError::PermissionDenied {
                path: path.to_string(),
                why: "the sandbox user may not access it".into(),
            },
            std::io::ErrorKind::IsADirectory => SandboxError::IsDirectory(path.to_string()),
            std::io::ErrorKind::NotADirectory => SandboxError::NotDirectory(path.to_string()),
            _ => SandboxError::Infra(format!("{path}: {}", e.kind())),
        }
    }
}
