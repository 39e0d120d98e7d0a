//! `.skill` archives (zip files holding one skill): inspection without extraction, and
//! bounded extraction of an inspected archive.
//!
//! Archives come from models and strangers. [`inspect`] reads only the central directory and
//! the first bytes of each member, and reports every problem at once; [`extract`] streams the
//! planned members with their sizes counted, so a lying header cannot pass.

mod eocd;
mod extract;
mod inspect;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use extract::{ExtractError, extract};
pub use inspect::{Inspection, NotAZip, PlannedEntry, inspect, is_size_rule};

use antler_protocol::skills::InstallFinding;

/// Bounds applied to every archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveLimits {
    /// Most entries (files and directories).
    pub max_entries: usize,
    /// Most bytes after decompression, declared or actual, for the whole archive.
    pub max_total_bytes: u64,
    /// Most bytes of one member.
    pub max_file_bytes: u64,
    /// Largest compression ratio accepted for members above [`Self::ratio_floor_bytes`].
    pub max_ratio: u64,
    /// Members smaller than this are not ratio-checked (tiny repetitive files are normal).
    pub ratio_floor_bytes: u64,
    /// Largest `SKILL.md`.
    pub max_skill_md_bytes: u64,
}

impl Default for ArchiveLimits {
    fn default() -> Self {
        ArchiveLimits {
            max_entries: 4_096,
            max_total_bytes: 512 * 1024 * 1024,
            max_file_bytes: 64 * 1024 * 1024,
            max_ratio: 200,
            ratio_floor_bytes: 1024 * 1024,
            max_skill_md_bytes: 1024 * 1024,
        }
    }
}

/// Most findings reported for one archive; the rest are summarised in one line.
pub const MAX_FINDINGS: usize = 200;

fn finding(rule: &str, path: &str, message: impl Into<String>) -> InstallFinding {
    InstallFinding {
        rule: rule.to_string(),
        path: path.to_string(),
        message: message.into(),
    }
}

#[cfg(test)]
mod tests;
