//! Packing a found skill directory into a `.skill` archive, so an import goes through the
//! same inspection and atomic install as an uploaded archive. Symbolic links are packed as
//! links (the inspection refuses them, naming each); files over a size limit are not read at
//! all but reported with the inspection's own rule names.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use antler_protocol::skills::InstallFinding;
use zip::write::SimpleFileOptions;

use crate::archive::ArchiveLimits;

/// An archive of one skill directory.
#[derive(Debug)]
pub struct Packed {
    /// The archive (an unnamed temporary file, positioned at its start).
    pub file: File,
    /// Problems found while packing that the archive itself cannot show (oversized or
    /// special files, too many entries); the inspection of `file` adds the rest.
    pub findings: Vec<InstallFinding>,
}

/// Packs `dir` under the archive folder `top` into a temporary file in `scratch` (blocking).
pub fn pack(dir: &Path, top: &str, limits: &ArchiveLimits, scratch: &Path) -> io::Result<Packed> {
    let mut zip = zip::ZipWriter::new(tempfile::tempfile_in(scratch)?);
    let mut findings = Vec::new();
    let mut entries = 0usize;
    let mut total: u64 = 0;
    let walk = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !(e.depth() == 1 && e.file_name() == ".git"));
    for entry in walk {
        let entry = entry.map_err(io::Error::other)?;
        let rel = entry
            .path()
            .strip_prefix(dir)
            .map_err(io::Error::other)?
            .to_string_lossy()
            .into_owned();
        let name = format!("{top}/{rel}");
        entries += 1;
        if entries > limits.max_entries {
            findings.push(finding(
                "too-many-entries",
                "",
                format!("the skill holds more than {} entries", limits.max_entries),
            ));
            break;
        }
        let kind = entry.file_type();
        if kind.is_dir() {
            zip.add_directory(name.as_str(), SimpleFileOptions::default())
                .map_err(io::Error::other)?;
        } else if kind.is_symlink() {
            let target = std::fs::read_link(entry.path())?;
            zip.add_symlink(
                name.as_str(),
                target.to_string_lossy().as_ref(),
                SimpleFileOptions::default(),
            )
            .map_err(io::Error::other)?;
        } else if kind.is_file() {
            let meta = entry.metadata().map_err(io::Error::other)?;
            let size = meta.len();
            if size > limits.max_file_bytes {
                findings.push(finding(
                    "file-too-large",
                    &name,
                    format!("{size} bytes; at most {} per file", limits.max_file_bytes),
                ));
                continue;
            }
            total = total.saturating_add(size);
            if total > limits.max_total_bytes {
                findings.push(finding(
                    "archive-too-large",
                    "",
                    format!("the skill holds more than {} bytes", limits.max_total_bytes),
                ));
                break;
            }
            let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777;
            let options = SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Stored)
                .unix_permissions(mode)
                .large_file(size >= u64::from(u32::MAX));
            zip.start_file(name.as_str(), options)
                .map_err(io::Error::other)?;
            io::copy(&mut File::open(entry.path())?.take(size), &mut zip)?;
        } else {
            findings.push(finding(
                "special-file",
                &name,
                "device files, pipes and sockets are not allowed",
            ));
        }
    }
    let mut file = zip.finish().map_err(io::Error::other)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(Packed { file, findings })
}

fn finding(rule: &str, path: &str, message: impl Into<String>) -> InstallFinding {
    InstallFinding {
        rule: rule.to_string(),
        path: path.to_string(),
        message: message.into(),
    }
}
