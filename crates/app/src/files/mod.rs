//! A thread's uploads: storing what the edge received, listing and deleting them.
//!
//! Files arrive in a per-instance scratch directory outside every thread's user-data (the
//! agent never sees a half-written upload, and a crash leaves nothing in the thread: the
//! startup sweep clears the scratch of instances that are gone). Only a whole, accepted
//! request is renamed into `uploads/` (same filesystem), made readable by the sandbox user.

pub mod convert;
mod job;
mod mention;
mod message_files;
pub mod names;
pub mod preview;

use std::path::{Path, PathBuf};

use antler_protocol::files::{UploadList, UploadedFile};
use antler_protocol::paths::USER_DATA_ROOT;
use antler_sandbox::{FileAccess, UserDataDir};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use crate::Caller;
use crate::threads::{ThreadError, ThreadsService};

// The HTTP layer serves a thread's files itself (ranges, ETags, archive members): it
// resolves virtual paths, opens and walks beneath the thread's directories without
// following links out, and dates what it lists as every stored time is dated.
pub use antler_sandbox::{ThreadDirs, VirtualPath, beneath, walk};
pub use antler_store::threads::timestamp;

/// What can go wrong with a thread's files.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The thread is missing or not the caller's.
    #[error(transparent)]
    Thread(#[from] ThreadError),
    /// The name is not a plain file name.
    #[error("{0:?} is not a plain file name")]
    BadName(String),
    /// No such file.
    #[error("no uploaded file '{0}'")]
    NotFound(String),
    /// A directory where a file was expected.
    #[error("'{0}' is a directory")]
    Directory(String),
    /// A file sent in a message is malformed.
    #[error("{0}")]
    Invalid(String),
    /// Files sent in a message are over the upload limits.
    #[error("{0}")]
    TooLarge(String),
    /// The disk failed.
    #[error("thread files: {0}")]
    Io(#[from] std::io::Error),
}

impl From<tokio::task::JoinError> for FileError {
    fn from(e: tokio::task::JoinError) -> Self {
        FileError::Io(std::io::Error::other(e))
    }
}

/// An upload received in full, waiting in the scratch directory under its final name.
#[derive(Debug)]
pub struct Staged {
    /// The bytes, in the scratch directory.
    pub file: tempfile::NamedTempFile,
    /// The (safe, unique within the request) name it is stored under.
    pub name: String,
    /// Its size.
    pub size: u64,
}

/// The files use-cases.
#[derive(Debug)]
pub struct FilesService {
    scratch: PathBuf,
    access: FileAccess,
    converter: Option<convert::Converter>,
}

impl FilesService {
    pub(crate) fn new(scratch: PathBuf, access: FileAccess) -> Self {
        FilesService {
            scratch,
            access,
            converter: None,
        }
    }

    /// Uploaded documents get a Markdown version, made by `converter`.
    pub(crate) fn with_converter(mut self, converter: convert::Converter) -> Self {
        self.converter = Some(converter);
        self
    }

    /// Where the edge writes uploads while they arrive (outside every thread's files, on
    /// the same filesystem).
    pub fn scratch(&self) -> &Path {
        &self.scratch
    }

    /// Moves a whole request's files into the thread's uploads (replacing files of the same
    /// name), readable by the sandbox user.
    pub async fn store_uploads(
        &self,
        threads: &ThreadsService,
        caller: &Caller,
        thread_id: &str,
        staged: Vec<Staged>,
    ) -> Result<UploadList, FileError> {
        let dirs = threads.files(caller, thread_id).await?;
        let uploads = dirs.dir(UserDataDir::Uploads);
        let access = self.access;
        let id = thread_id.to_string();
        let held = dirs.clone();
        let mut files = tokio::task::spawn_blocking(move || {
            let mut files = Vec::with_capacity(staged.len());
            for s in staged {
                access.file(s.file.as_file())?;
                // A replaced document's old Markdown version must not pass for the new one's.
                convert::forget(&held, &s.name);
                // A rename replaces a symlink at the destination instead of following it.
                let file = s.file.persist(uploads.join(&s.name)).map_err(|e| e.error)?;
                files.push(describe(&id, &s.name, s.size, file.metadata().ok()));
            }
            std::io::Result::Ok(files)
        })
        .await??;
        if let Some(converter) = &self.converter {
            let names: Vec<String> = files.iter().map(|f| f.filename.clone()).collect();
            converter.start(&dirs, thread_id, caller.owner(), &names);
            for file in &mut files {
                file.markdown = convert::status(&dirs, &file.filename);
            }
        }
        Ok(UploadList { files })
    }

    /// The thread's uploads, by name.
    pub async fn list_uploads(
        &self,
        threads: &ThreadsService,
        caller: &Caller,
        thread_id: &str,
    ) -> Result<UploadList, FileError> {
        let dirs = threads.existing_dirs(caller, thread_id).await?;
        let uploads = dirs.dir(UserDataDir::Uploads);
        let id = thread_id.to_string();
        let files = tokio::task::spawn_blocking(move || {
            use std::collections::HashSet;
            let mut files = Vec::new();
            let read = match std::fs::read_dir(&uploads) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(files),
                other => other?,
            };
            for entry in read.filter_map(Result::ok) {
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                // Hidden names first: a conversion's temporary file comes and goes while the
                // directory is read, and one gone by now must not fail the whole listing.
                if name.starts_with('.') {
                    continue;
                }
                let (Ok(meta), Ok(kind)) = (entry.metadata(), entry.file_type()) else {
                    continue;
                };
                if !kind.is_file() {
                    continue;
                }
                let mut file = describe(&id, &name, meta.len(), Some(meta));
                file.markdown = convert::status(&dirs, &name);
                files.push(file);
            }
            // A document's Markdown version is shown with it, not as an upload of its own.
            let versions: HashSet<String> = files
                .iter()
                .filter(|f| f.markdown.is_some())
                .map(|f| convert::markdown_name(&f.filename))
                .collect();
            files.retain(|f| !versions.contains(&f.filename));
            files.sort_by(|a, b| a.filename.cmp(&b.filename));
            std::io::Result::Ok(files)
        })
        .await??;
        Ok(UploadList { files })
    }

    /// Deletes one upload (a symlink itself, never its target). `is_plain` says whether the
    /// name is one the server could have stored.
    pub async fn delete_upload(
        &self,
        threads: &ThreadsService,
        caller: &Caller,
        thread_id: &str,
        filename: &str,
        is_plain: bool,
    ) -> Result<(), FileError> {
        if !is_plain {
            return Err(FileError::BadName(filename.chars().take(100).collect()));
        }
        let dirs = threads.existing_dirs(caller, thread_id).await?;
        let path = dirs.dir(UserDataDir::Uploads).join(filename);
        let meta = tokio::fs::symlink_metadata(&path)
            .await
            .map_err(|_| FileError::NotFound(filename.to_string()))?;
        if meta.is_dir() {
            return Err(FileError::Directory(filename.to_string()));
        }
        tokio::fs::remove_file(&path).await?;
        tokio::task::spawn_blocking(move || convert::forget(&dirs, filename_owned(&path))).await?;
        Ok(())
    }
}

fn describe(
    thread_id: &str,
    name: &str,
    size: u64,
    meta: Option<std::fs::Metadata>,
) -> UploadedFile {
    let virtual_path = format!("{USER_DATA_ROOT}/uploads/{name}");
    UploadedFile {
        filename: name.to_string(),
        size,
        artifact_url: artifact_url(thread_id, &virtual_path),
        virtual_path,
        modified_at: meta
            .and_then(|m| m.modified().ok())
            .map(|t| timestamp(t.into()))
            .unwrap_or_default(),
        markdown: None,
    }
}

/// The file name of a path built from a plain name.
fn filename_owned(path: &Path) -> &str {
    path.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
}

/// Characters kept as they are in a URL path segment built from a file name.
pub const PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `/api/threads/<id>/artifacts/mnt/user-data/...` with each segment percent-encoded: where
/// a browser downloads the file.
pub fn artifact_url(thread_id: &str, virtual_path: &str) -> String {
    let mut url = format!("/api/threads/{thread_id}/artifacts");
    for segment in virtual_path.split('/').filter(|s| !s.is_empty()) {
        url.push('/');
        url.extend(utf8_percent_encode(segment, PATH_SEGMENT));
    }
    url
}
