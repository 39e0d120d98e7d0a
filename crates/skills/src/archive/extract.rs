//! Writing an inspected archive's planned members under a fresh directory.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use antler_protocol::skills::InstallFinding;

use super::{ArchiveLimits, PlannedEntry, finding};

/// Why extraction stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// The archive lied or exceeded a limit while streaming.
    #[error("{}", .0.message)]
    Refused(InstallFinding),
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Archives of at most this many files are made durable file by file.
const FSYNC_EACH_UP_TO: usize = 16;

/// Extracts `plan` from the archive into `dest` (an empty directory). Every byte is counted:
/// a member producing more than it declared, or the archive exceeding the limits, stops the
/// extraction. Files are created with `O_EXCL`, so nothing pre-existing is followed.
pub fn extract<R: Read + Seek>(
    reader: R,
    plan: &[PlannedEntry],
    dest: &Path,
    limits: &ArchiveLimits,
) -> Result<u64, ExtractError> {
    let mut zip = zip::ZipArchive::new(reader).map_err(io::Error::other)?;
    let one_by_one = plan.iter().filter(|e| !e.is_dir).count() <= FSYNC_EACH_UP_TO;
    let mut total: u64 = 0;
    let mut buf = vec![0u8; 64 * 1024];
    for entry in plan {
        let target = dest.join(&entry.dest);
        if entry.is_dir {
            fs::create_dir_all(&target)?;
            continue;
        }
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        let mode = if entry.executable { 0o755 } else { 0o644 };
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&target)?;
        let mut member = zip.by_index(entry.index).map_err(|e| {
            ExtractError::Refused(finding("unreadable-entry", &entry.dest, e.to_string()))
        })?;
        let allowed = entry.size.min(limits.max_file_bytes);
        let mut written: u64 = 0;
        loop {
            let n = member.read(&mut buf).map_err(|e| {
                ExtractError::Refused(finding("corrupt-entry", &entry.dest, e.to_string()))
            })?;
            if n == 0 {
                break;
            }
            written += n as u64;
            total += n as u64;
            if written > allowed {
                return Err(ExtractError::Refused(finding(
                    "size-mismatch",
                    &entry.dest,
                    format!(
                        "member inflates past its declared {} bytes (limit {} per file): the header lies",
                        entry.size, limits.max_file_bytes
                    ),
                )));
            }
            if total > limits.max_total_bytes {
                return Err(ExtractError::Refused(finding(
                    "archive-too-large",
                    &entry.dest,
                    format!("archive inflates past {} bytes", limits.max_total_bytes),
                )));
            }
            out.write_all(&buf[..n])?;
        }
        if one_by_one {
            out.sync_all()?;
        }
    }
    // The data is durable before the caller renames the skill into place: a small skill's
    // few files and folders one by one (a flush of the whole filesystem would also wait for
    // everything anyone else wrote), a large one with one flush instead of an fsync per file.
    if one_by_one {
        let mut dirs = std::collections::BTreeSet::from([dest.to_path_buf()]);
        for entry in plan {
            let target = dest.join(&entry.dest);
            let mut dir = if entry.is_dir {
                Some(target.as_path())
            } else {
                target.parent()
            };
            while let Some(d) = dir.filter(|d| d.starts_with(dest) && *d != dest) {
                dirs.insert(d.to_path_buf());
                dir = d.parent();
            }
        }
        for dir in dirs {
            fs::File::open(dir)?.sync_all()?;
        }
    } else {
        let dir = std::fs::File::open(dest)?;
        rustix::fs::syncfs(&dir).map_err(io::Error::from)?;
    }
    Ok(total)
}
