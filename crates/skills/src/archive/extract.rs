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
    }
    // One flush of the filesystem instead of an fsync per file: the data is durable before
    // the caller renames the skill into place.
    let dir = std::fs::File::open(dest)?;
    rustix::fs::syncfs(&dir).map_err(io::Error::from)?;
    Ok(total)
}
