//! Walking a directory tree the sandbox can change while it is walked.
//!
//! Every step goes through the file descriptor of the directory above it (`openat` with
//! `O_NOFOLLOW`), never through a path: a directory swapped for a symlink mid-walk is
//! skipped instead of followed out of the sandbox (which a path-based walk such as
//! `walkdir` would do when it descends).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::ops::ControlFlow;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags, openat, statat};

/// One entry met by [`walk`].
pub struct Entry<'a> {
    /// Path relative to the walk's root.
    pub rel: &'a Path,
    /// A directory (not a symlink to one).
    pub is_dir: bool,
    /// A regular file (not a symlink to one).
    pub is_file: bool,
    /// Size in bytes (files).
    pub size: u64,
    /// Last modification.
    pub modified: Option<std::time::SystemTime>,
    parent: BorrowedFd<'a>,
    name: &'a OsStr,
}

impl Entry<'_> {
    /// Opens the file for reading: never through a symlink, never blocking on a pipe.
    pub fn open_file(&self) -> io::Result<File> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = openat(self.parent, self.name, flags, Mode::empty())?;
        let stat = rustix::fs::fstat(&fd)?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return Err(io::Error::other("no longer a regular file"));
        }
        Ok(File::from(fd))
    }
}

/// Visits the entries below `root` depth first, in name order, down to `max_depth` levels
/// (1: the direct entries). Unreadable entries are skipped; `visit` may stop the walk.
pub fn walk(root: &File, max_depth: usize, visit: &mut dyn FnMut(&Entry<'_>) -> ControlFlow<()>) {
    let _ = walk_in(root.as_fd(), Path::new(""), 1, max_depth, visit);
}

fn walk_in(
    dir: BorrowedFd<'_>,
    rel: &Path,
    depth: usize,
    max_depth: usize,
    visit: &mut dyn FnMut(&Entry<'_>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let Ok(mut names) = names(dir) else {
        return ControlFlow::Continue(());
    };
    names.sort();
    for name in &names {
        let Ok(stat) = statat(dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) else {
            continue;
        };
        let kind = FileType::from_raw_mode(stat.st_mode);
        let child = rel.join(name);
        visit(&Entry {
            rel: &child,
            is_dir: kind == FileType::Directory,
            is_file: kind == FileType::RegularFile,
            size: u64::try_from(stat.st_size).unwrap_or(0),
            modified: u64::try_from(stat.st_mtime).ok().map(|secs| {
                std::time::UNIX_EPOCH
                    + std::time::Duration::new(secs, u32::try_from(stat.st_mtime_nsec).unwrap_or(0))
            }),
            parent: dir,
            name,
        })?;
        if kind == FileType::Directory && depth < max_depth {
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            if let Ok(sub) = openat(dir, name.as_os_str(), flags, Mode::empty()) {
                walk_in(sub.as_fd(), &child, depth + 1, max_depth, visit)?;
            }
        }
    }
    ControlFlow::Continue(())
}

fn names(dir: BorrowedFd<'_>) -> io::Result<Vec<OsString>> {
    let mut out = Vec::new();
    for entry in Dir::read_from(dir)? {
        let name = entry?.file_name().to_bytes().to_vec();
        if name != b"." && name != b".." {
            out.push(OsStr::from_bytes(&name).to_os_string());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_swapped_for_a_symlink_mid_walk_is_not_followed() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "host file").unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("a")).unwrap();
        std::fs::write(root.path().join("a/inner"), "x").unwrap();
        std::fs::write(root.path().join("b"), "x").unwrap();
        let dir = File::open(root.path()).unwrap();
        let mut seen = Vec::new();
        walk(&dir, 8, &mut |entry| {
            seen.push(entry.rel.to_path_buf());
            if entry.rel == Path::new("a") {
                // The sandbox wins the race: `a` becomes a link to the host after it was listed.
                std::fs::remove_dir_all(root.path().join("a")).unwrap();
                std::os::unix::fs::symlink(outside.path(), root.path().join("a")).unwrap();
            }
            if entry.rel == Path::new("b") {
                std::fs::remove_file(root.path().join("b")).unwrap();
                std::os::unix::fs::symlink(outside.path().join("secret"), root.path().join("b"))
                    .unwrap();
                assert!(entry.open_file().is_err(), "a file swapped for a link");
            }
            ControlFlow::Continue(())
        });
        assert_eq!(seen, [Path::new("a"), Path::new("b")]);
    }
}
