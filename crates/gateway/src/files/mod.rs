//! Serving and storing a thread's files: safe names, content types, ETags, ranges, and
//! members of `.skill` archives.

pub mod archive;
pub mod etag;
pub(crate) mod multipart;
pub mod names;
pub mod serve;
pub mod walk;

use std::fs::File;
use std::path::Path;

use antler_app::files::VirtualPath;
use antler_app::files::beneath::{self, BeneathError};

use crate::error::AppError;

/// Opens `path` inside a thread's user-data `root` without following links out of it;
/// blocking. Missing files are 404 and escapes 403, both naming the virtual path.
pub(crate) fn open_beneath(root: &Path, path: &VirtualPath) -> Result<File, AppError> {
    beneath::open(root, &path.relative()).map_err(|e| match e {
        BeneathError::NotFound => AppError::not_found(format!("no file at {}", path.display())),
        BeneathError::Escapes => AppError::forbidden(format!(
            "{} resolves outside the thread's files",
            path.display()
        )),
        BeneathError::Special => AppError::forbidden(format!(
            "{} is a pipe, socket or device, not a file",
            path.display()
        )),
        BeneathError::Io(e) => AppError::internal(e),
    })
}
