//! What can go wrong with a skill operation.

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
    /// The name is both a public and a custom skill and no category was given.
    #[error("skill '{0}' exists as both a public and a custom skill; say which with \"category\"")]
    Ambiguous(String),
    /// A concurrent change won (for example a delete right after this install).
    #[error("{0}")]
    Conflict(String),
    /// Public skills are read-only.
    #[error("'{0}' is a public skill; public skills are read-only (disable it instead)")]
    ReadOnly(String),
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
            FindError::Ambiguous(name) => SkillOpError::Ambiguous(name),
        }
    }
}

impl From<tokio::task::JoinError> for SkillOpError {
    fn from(e: tokio::task::JoinError) -> Self {
        SkillOpError::Internal(format!("a skills task failed: {e}"))
    }
}
