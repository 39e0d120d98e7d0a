//! How many entries the archive's central directory declares.
//!
//! The zip crate indexes members by name, so a path listed twice collapses into one entry;
//! comparing its count with the end-of-central-directory record reveals the duplicate.

use std::io::{Read, Seek, SeekFrom};

const EOCD: &[u8; 4] = b"PK\x05\x06";
const ZIP64_LOCATOR: &[u8; 4] = b"PK\x06\x07";
const ZIP64_EOCD: &[u8; 4] = b"PK\x06\x06";
/// The record (22 bytes) plus the longest comment.
const MAX_TAIL: u64 = 22 + u16::MAX as u64;

/// The declared number of central directory entries, or `None` when the records cannot be
/// read (the zip reader then reports what is wrong).
pub(super) fn declared_entries<R: Read + Seek>(reader: &mut R) -> Option<u64> {
    let len = reader.seek(SeekFrom::End(0)).ok()?;
    let start = len.saturating_sub(MAX_TAIL);
    reader.seek(SeekFrom::Start(start)).ok()?;
    let mut tail = Vec::new();
    reader.read_to_end(&mut tail).ok()?;
    let at = tail.windows(4).rposition(|w| w == EOCD)?;
    let record = tail.get(at..at + 22)?;
    let count = u16::from_le_bytes([record[10], record[11]]);
    if count != u16::MAX {
        return Some(u64::from(count));
    }
    // Zip64: the locator just before the record points at the zip64 record.
    let locator = tail.get(at.checked_sub(20)?..at)?;
    if &locator[..4] != ZIP64_LOCATOR {
        return None;
    }
    let offset = u64::from_le_bytes(locator[8..16].try_into().ok()?);
    reader.seek(SeekFrom::Start(offset)).ok()?;
    let mut record = [0u8; 56];
    reader.read_exact(&mut record).ok()?;
    if &record[..4] != ZIP64_EOCD {
        return None;
    }
    Some(u64::from_le_bytes(record[32..40].try_into().ok()?))
}
