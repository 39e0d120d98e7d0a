//! Strong ETags (quoted SHA-256) computed once per file version, not per request.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::sync::Mutex;

use sha2::{Digest, Sha256};

/// Identity of one version of a file: a change of content changes the key (rewrites change
/// mtime or size; replacements by rename change the inode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileVersion {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
}

impl FileVersion {
    /// The version of an open file.
    pub fn of(meta: &std::fs::Metadata) -> Self {
        FileVersion {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        }
    }
}

/// Most versions remembered; the cache starts over when full (cheap, and rare).
const CAPACITY: usize = 16_384;

/// Remembers ETags by file version.
#[derive(Debug, Default)]
pub struct EtagCache {
    map: Mutex<HashMap<FileVersion, String>>,
}

impl EtagCache {
    /// The cached ETag of a version.
    pub fn get(&self, version: &FileVersion) -> Option<String> {
        self.lock().get(version).cloned()
    }

    /// Hashes `file` (from its start) and remembers the result for `version`.
    pub fn compute(&self, version: FileVersion, file: &mut File) -> io::Result<String> {
        let tag = sha256_etag(file)?;
        let mut map = self.lock();
        if map.len() >= CAPACITY {
            map.clear();
        }
        map.insert(version, tag.clone());
        Ok(tag)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<FileVersion, String>> {
        self.map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// `"<hex sha256>"` of everything `reader` yields.
pub fn sha256_etag(reader: &mut impl Read) -> io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(format!("\"{}\"", hex::encode(hasher.finalize())))
}

/// True when an `If-None-Match` value matches `etag` (weak comparison, `*` matches).
pub fn matches(if_none_match: &str, etag: &str) -> bool {
    if_none_match
        .split(',')
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == etag || t == "*")
}
