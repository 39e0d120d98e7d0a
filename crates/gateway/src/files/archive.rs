//! Serving one member of a `.skill` archive (its preview is `SkillsService::preview`).

use std::fs::File;
use std::io::Read;

/// Largest member served from inside an archive.
pub const MAX_MEMBER_BYTES: u64 = 16 * 1024 * 1024;

/// Why a member could not be served.
#[derive(Debug, thiserror::Error)]
pub enum MemberError {
    /// Not a zip.
    #[error("not a zip archive")]
    NotAZip,
    /// No such member.
    #[error("no member '{0}' in the archive")]
    Missing(String),
    /// The member is a directory.
    #[error("'{0}' is a directory in the archive")]
    Directory(String),
    /// Larger than [`MAX_MEMBER_BYTES`].
    #[error("member '{0}' is larger than {MAX_MEMBER_BYTES} bytes")]
    TooLarge(String),
    /// Encrypted, unsupported or corrupt.
    #[error("member '{0}' cannot be read")]
    Unreadable(String),
}

/// Reads `member` (or `<single top dir>/member`) from the archive; returns its archive path
/// and bytes.
pub fn read_member(file: File, member: &str) -> Result<(String, Vec<u8>), MemberError> {
    let mut zip = zip::ZipArchive::new(file).map_err(|_| MemberError::NotAZip)?;
    let name = resolve(&zip, member).ok_or_else(|| MemberError::Missing(member.to_string()))?;
    let entry = zip
        .by_name(&name)
        .map_err(|_| MemberError::Unreadable(name.clone()))?;
    if entry.is_dir() {
        return Err(MemberError::Directory(name));
    }
    if entry.size() > MAX_MEMBER_BYTES {
        return Err(MemberError::TooLarge(name));
    }
    let mut bytes = Vec::with_capacity(entry.size() as usize);
    // Bounded read: a header that lies about the size cannot make this grow past the limit.
    entry
        .take(MAX_MEMBER_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| MemberError::Unreadable(name.clone()))?;
    if bytes.len() as u64 > MAX_MEMBER_BYTES {
        return Err(MemberError::TooLarge(name));
    }
    Ok((name, bytes))
}

/// Exact match first; then inside the archive's single top directory.
fn resolve(zip: &zip::ZipArchive<File>, member: &str) -> Option<String> {
    let names: Vec<&str> = zip.file_names().collect();
    if names.contains(&member) || names.contains(&format!("{member}/").as_str()) {
        return names
            .into_iter()
            .find(|n| *n == member || n.strip_suffix('/') == Some(member))
            .map(str::to_owned);
    }
    let mut tops = names
        .iter()
        .filter(|n| !n.starts_with("__MACOSX"))
        .map(|n| n.split('/').next().unwrap_or(""));
    let top = tops.next()?;
    if !tops.all(|t| t == top) {
        return None;
    }
    let candidate = format!("{top}/{member}");
    names
        .into_iter()
        .find(|n| *n == candidate || n.strip_suffix('/') == Some(candidate.as_str()))
        .map(str::to_owned)
}
