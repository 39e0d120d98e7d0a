//! Importing skills from Git repositories (and, from the command line, plain directories):
//! [`fetch`] one commit with the `git` CLI — shallow, bounded in time and size — [`find`] the
//! skills in it, and [`pack`] each chosen one into a `.skill` archive that the ordinary
//! inspection and atomic install take from there.

mod fetch;
mod find;
mod pack;
mod source;
#[cfg(test)]
mod tests;

use std::time::Duration;

pub use fetch::{Checkout, fetch};
pub use find::{FindOptions, Found, Search, find};
pub use pack::{Packed, pack};
pub use source::{
    ALLOWED_SCHEMES, Source, check_file_roots, check_ref, parse_source, redact, without_local_paths,
};

/// Bounds on one fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportLimits {
    /// Most bytes the fetched repository may take on disk (history and checkout).
    pub max_repo_bytes: u64,
    /// Longest a fetch may take, all `git` steps together.
    pub timeout: Duration,
}

impl Default for ImportLimits {
    fn default() -> Self {
        ImportLimits {
            max_repo_bytes: 256 * 1024 * 1024,
            timeout: Duration::from_secs(120),
        }
    }
}

/// Why an import could not look at the repository.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The source or ref is not acceptable.
    #[error("{0}")]
    InvalidSource(String),
    /// The `git` program is not installed.
    #[error("git is not installed on the server; install it to import skills from Git")]
    GitUnavailable,
    /// `git` failed (no such repository or ref, no access); its own words.
    #[error("fetching the repository failed: {0}")]
    CloneFailed(String),
    /// The repository outgrew the size limit while being fetched.
    #[error("the repository is larger than the import limit of {0} bytes")]
    TooLarge(u64),
    /// The fetch took longer than the time limit.
    #[error("fetching the repository took longer than {}s", .0.as_secs())]
    Timeout(Duration),
    /// The scratch directory failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The name of the repository a source points at (`skills` for
/// `https://host/org/skills.git`): what a skill at the repository root is called when its
/// `SKILL.md` names nothing.
pub fn repository_name(source: &Source) -> String {
    let text = source.display();
    let last = text
        .trim_end_matches('/')
        .rsplit(['/', ':'])
        .next()
        .unwrap_or("");
    let name = last.strip_suffix(".git").unwrap_or(last);
    if name.is_empty() || name.starts_with('.') {
        "skill".to_string()
    } else {
        name.to_string()
    }
}
