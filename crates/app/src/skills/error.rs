//! What can go wrong with a skill operation.

use antler_protocol::skills::SkillCategory;
use antler_skills::FindError;
use antler_skills::install::InstallError;

/// A failed toggle, install, delete or reload.
#[derive(Debug, thiserror::Error)]
pub enum SkillOpError {
    /// No skill of that name (in that category).
    #[error("no skill named '{0}'")]
    NotFound(String),
    /// No custom skill of that name (deletes only touch custom skills).
    #[error("no custom skill named '{0}'")]
    NoCustom(String),
    /// No personal skill of that name.
    #[error("you have no personal skill named '{0}'")]
    NoPersonal(String),
    /// The skill is listed, but its folder went away since the last scan.
    #[error("skill '{0}' disappeared from disk; try again after the next reload")]
    Vanished(String),
    /// The name is in more than one category and no category was given.
    #[error("skill '{0}' exists in more than one category ({cats}); say which with \"category\"", cats = antler_skills::catalog::names(.1))]
    Ambiguous(String, Vec<SkillCategory>),
    /// A concurrent change won (for example a delete right after this install).
    #[error("{0}")]
    Conflict(String),
    /// The caller may not change this skill (shared skills are the admins').
    #[error("{0}")]
    Forbidden(String),
    /// The request makes no sense (installing into `public`).
    #[error("{0}")]
    Invalid(String),
    /// Public skills are read-only.
    #[error("'{0}' is a public skill; public skills are read-only (disable it instead)")]
    ReadOnly(String),
    /// An import named skills the repository does not hold.
    #[error("the repository holds no skill named {}; it holds: {}", .unknown.join(", "), .available.join(", "))]
    UnknownImport {
        /// The names or paths that matched nothing.
        unknown: Vec<String>,
        /// The names it does hold.
        available: Vec<String>,
    },
    /// The repository could not be fetched or looked at.
    #[error(transparent)]
    Import(#[from] antler_skills::import::ImportError),
    /// The archive was refused, the name is taken or busy, or the disk failed.
    #[error(transparent)]
    Install(#[from] InstallError),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] antler_store::StoreError),
    /// Something that should not happen (a task panicked, a skill vanished mid-operation).
    #[error("{0}")]
    Internal(String),
}

impl From<FindError> for SkillOpError {
    fn from(e: FindError) -> Self {
        match e {
            FindError::NotFound(name) => SkillOpError::NotFound(name),
            FindError::Ambiguous(name, categories) => SkillOpError::Ambiguous(name, categories),
        }
    }
}

impl From<tokio::task::JoinError> for SkillOpError {
    fn from(e: tokio::task::JoinError) -> Self {
        SkillOpError::Internal(format!("a skills task failed: {e}"))
    }
}
