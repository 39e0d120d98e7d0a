//! Walking a skill folder by directory handles: every entry is looked at relative to its
//! folder's handle (one path component per system call rather than the whole path again),
//! in name order. A reload checks the files of every skill, so this is the view's hot path.

use std::ffi::{CStr, CString};
use std::hash::{Hash, Hasher};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fd::{BorrowedFd, OwnedFd};
use rustix::fs::{AtFlags, CWD, Dir, FileType, Mode, OFlags, Stat};

/// What the walk shows of one entry below the walked folder.
pub(super) struct Entry<'a> {
    /// The folder holding it.
    pub(super) parent: BorrowedFd<'a>,
    /// Its name in that folder.
    pub(super) name: &'a CStr,
    /// Its path below the walked folder, `/`-separated.
    pub(super) rel: &'a [u8],
    /// Its status (links not followed).
    pub(super) stat: &'a Stat,
}

impl Entry<'_> {
    /// What kind of entry it is.
    pub(super) fn kind(&self) -> FileType {
        FileType::from_raw_mode(self.stat.st_mode)
    }

    /// Its path below the walked folder.
    pub(super) fn rel_path(&self) -> &Path {
        Path::new(std::ffi::OsStr::from_bytes(self.rel))
    }
}

fn open_dir(parent: BorrowedFd<'_>, name: &CStr) -> io::Result<OwnedFd> {
    Ok(rustix::fs::openat(
        parent,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// Visits every entry below `root` (links are not followed, entries that vanish meanwhile
/// are skipped), depth first in name order, at most `limit` of them; answers the status of
/// `root` itself.
pub(super) fn walk(
    root: &Path,
    limit: usize,
    visit: &mut dyn FnMut(&Entry<'_>) -> io::Result<()>,
) -> io::Result<Stat> {
    let dir = rustix::fs::openat(
        CWD,
        root,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    );
    let Ok(dir) = dir else {
        // Not a folder (or gone): its status is all there is.
        return Ok(rustix::fs::statat(CWD, root, AtFlags::SYMLINK_NOFOLLOW)?);
    };
    let stat = rustix::fs::fstat(&dir)?;
    let mut budget = limit;
    walk_dir(dir, &mut Vec::new(), &mut budget, visit)?;
    Ok(stat)
}

fn walk_dir(
    dir: OwnedFd,
    prefix: &mut Vec<u8>,
    budget: &mut usize,
    visit: &mut dyn FnMut(&Entry<'_>) -> io::Result<()>,
) -> io::Result<()> {
    let mut handle = Dir::new(dir)?;
    let mut names: Vec<CString> = Vec::new();
    for entry in handle.by_ref() {
        let entry = entry?;
        let name = entry.file_name();
        if name.to_bytes() != b"." && name.to_bytes() != b".." {
            names.push(name.to_owned());
        }
    }
    names.sort();
    let fd = handle.fd()?;
    for name in &names {
        if *budget == 0 {
            return Ok(());
        }
        *budget -= 1;
        let Ok(stat) = rustix::fs::statat(fd, name.as_c_str(), AtFlags::SYMLINK_NOFOLLOW) else {
            continue;
        };
        let len = prefix.len();
        if len > 0 {
            prefix.push(b'/');
        }
        prefix.extend_from_slice(name.to_bytes());
        let entry = Entry {
            parent: fd,
            name: name.as_c_str(),
            rel: prefix,
            stat: &stat,
        };
        visit(&entry)?;
        if entry.kind() == FileType::Directory
            && let Ok(child) = open_dir(fd, name.as_c_str())
        {
            walk_dir(child, prefix, budget, visit)?;
        }
        prefix.truncate(len);
    }
    Ok(())
}

/// Feeds what identifies a version of an entry into `hasher`: size, modification time and
/// mode (a file rewritten in place changes its time even when its size stays).
pub(super) fn hash_stat(stat: &Stat, hasher: &mut impl Hasher) {
    (
        stat.st_size,
        stat.st_mtime,
        stat.st_mtime_nsec,
        stat.st_mode,
    )
        .hash(hasher);
}

/// The walked folder's path for an entry, for the rare fallbacks that need a whole path.
pub(super) fn joined(root: &Path, entry: &Entry<'_>) -> PathBuf {
    root.join(entry.rel_path())
}
