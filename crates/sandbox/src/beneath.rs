//! Opening host files so that nothing — `..`, absolute symlinks, symlinks swapped in between a
//! check and the open — can lead outside a root directory.
//!
//! Uses `openat2(RESOLVE_BENEATH)` (Linux 5.6+): the kernel refuses any resolution step that
//! leaves the root, atomically. Symlinks that stay inside are followed.

use std::fs::File;
use std::io;
use std::path::Path;

use std::os::fd::OwnedFd;

use crate::access::FileAccess;
use rustix::fs::{Mode, OFlags, ResolveFlags, mkdirat, openat2};

/// What went wrong opening a path beneath a root.
#[derive(Debug, thiserror::Error)]
pub enum BeneathError {
    /// Nothing there.
    #[error("not found")]
    NotFound,
    /// Resolution would leave the root (symlink or `..`).
    #[error("path leads outside its root")]
    Escapes,
    /// A pipe, socket or device: opening or reading one could block forever.
    #[error("not a regular file or directory")]
    Special,
    /// Any other I/O failure.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Opens `rel` (relative) for reading, beneath `root`.
pub fn open(root: &Path, rel: &Path) -> Result<File, BeneathError> {
    let dir = File::open(root).map_err(classify)?;
    let rel = if rel.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rel
    };
    // Non-blocking, so a named pipe cannot hold the open; then only files and directories pass.
    let fd = openat2(
        &dir,
        rel,
        OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NONBLOCK,
        Mode::empty(),
        RESOLVE,
    )
    .map_err(|e| classify(e.into()))?;
    ordinary(&fd)?;
    Ok(File::from(fd))
}

/// Refuses anything but a regular file or a directory.
fn ordinary(fd: &OwnedFd) -> Result<(), BeneathError> {
    let stat = rustix::fs::fstat(fd).map_err(|e| BeneathError::Io(e.into()))?;
    match rustix::fs::FileType::from_raw_mode(stat.st_mode) {
        rustix::fs::FileType::RegularFile | rustix::fs::FileType::Directory => Ok(()),
        _ => Err(BeneathError::Special),
    }
}

const RESOLVE: ResolveFlags = ResolveFlags::BENEATH.union(ResolveFlags::NO_MAGICLINKS);

/// Opens `rel` beneath `root` for writing (truncating, or appending), creating missing parent
/// directories (each also resolved beneath its parent) and the file itself, made usable by
/// the sandbox user as `access` says.
pub fn create(
    root: &Path,
    rel: &Path,
    append: bool,
    access: FileAccess,
) -> Result<File, BeneathError> {
    let mut dir: OwnedFd = File::open(root).map_err(classify)?.into();
    let mut components: Vec<&std::ffi::OsStr> = rel.iter().collect();
    let name = components.pop().ok_or(BeneathError::NotFound)?;
    for component in components {
        let next = match openat2(&dir, component, dir_flags(), Mode::empty(), RESOLVE) {
            Ok(fd) => fd,
            Err(e) if e == rustix::io::Errno::NOENT => {
                mkdirat(&dir, component, Mode::from_raw_mode(0o755))
                    .or_else(|e| {
                        if e == rustix::io::Errno::EXIST {
                            Ok(())
                        } else {
                            Err(e)
                        }
                    })
                    .map_err(|e| classify(e.into()))?;
                let fd = openat2(&dir, component, dir_flags(), Mode::empty(), RESOLVE)
                    .map_err(|e| classify(e.into()))?;
                access.dir(&fd).map_err(BeneathError::Io)?;
                fd
            }
            Err(e) => return Err(classify(e.into())),
        };
        dir = next;
    }
    let mode = if append {
        OFlags::APPEND
    } else {
        OFlags::TRUNC
    };
    let flags = OFlags::WRONLY
        | OFlags::CREATE
        | OFlags::CLOEXEC
        | OFlags::NOCTTY
        | OFlags::NONBLOCK
        | mode;
    let fd = openat2(&dir, name, flags, Mode::from_raw_mode(0o644), RESOLVE)
        .map_err(|e| classify(e.into()))?;
    ordinary(&fd)?;
    access.file(&fd).map_err(BeneathError::Io)?;
    Ok(File::from(fd))
}

fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC
}

fn classify(e: io::Error) -> BeneathError {
    match e.raw_os_error() {
        Some(code) if code == rustix::io::Errno::XDEV.raw_os_error() => BeneathError::Escapes,
        Some(code) if code == rustix::io::Errno::LOOP.raw_os_error() => BeneathError::Escapes,
        // A pipe opened for writing with nobody reading.
        Some(code) if code == rustix::io::Errno::NXIO.raw_os_error() => BeneathError::Special,
        _ if e.kind() == io::ErrorKind::NotFound => BeneathError::NotFound,
        _ => BeneathError::Io(e),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn pipes_are_refused_at_once_instead_of_blocking() {
        let root = tempfile::tempdir().unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            root.path().join("pipe"),
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        assert!(matches!(
            open(root.path(), Path::new("pipe")),
            Err(BeneathError::Special)
        ));
        assert!(matches!(
            create(
                root.path(),
                Path::new("pipe"),
                false,
                crate::FileAccess::Same
            ),
            Err(BeneathError::Special)
        ));
        assert!(matches!(
            create(
                root.path(),
                Path::new("pipe"),
                true,
                crate::FileAccess::Same
            ),
            Err(BeneathError::Special)
        ));
    }

    #[test]
    fn opens_files_and_inside_symlinks_but_never_escapes() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "secret").unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("sub")).unwrap();
        std::fs::write(root.path().join("sub/file"), "inside").unwrap();
        symlink("sub/file", root.path().join("inner-link")).unwrap();
        symlink(outside.path().join("secret"), root.path().join("abs-link")).unwrap();
        symlink("../../../../../../etc/passwd", root.path().join("rel-link")).unwrap();

        let mut text = String::new();
        open(root.path(), Path::new("sub/file"))
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "inside");
        assert!(open(root.path(), Path::new("inner-link")).is_ok());
        for escape in ["abs-link", "rel-link", "../x", "sub/../../x"] {
            assert!(
                matches!(
                    open(root.path(), Path::new(escape)),
                    Err(BeneathError::Escapes)
                ),
                "{escape}"
            );
        }
        assert!(matches!(
            open(root.path(), Path::new("missing")),
            Err(BeneathError::NotFound)
        ));
    }

    #[test]
    fn creates_files_and_parents_but_never_through_escaping_links() {
        use std::io::Write;
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let mut f = create(
            root.path(),
            Path::new("a/b/c.txt"),
            false,
            crate::FileAccess::Same,
        )
        .unwrap();
        f.write_all(b"one").unwrap();
        let mut f = create(
            root.path(),
            Path::new("a/b/c.txt"),
            true,
            crate::FileAccess::Same,
        )
        .unwrap();
        f.write_all(b"two").unwrap();
        assert_eq!(
            std::fs::read_to_string(root.path().join("a/b/c.txt")).unwrap(),
            "onetwo"
        );
        symlink(outside.path(), root.path().join("out")).unwrap();
        symlink(outside.path().join("new.txt"), root.path().join("dangling")).unwrap();
        for escape in ["out/x.txt", "dangling", "../x.txt"] {
            assert!(
                matches!(
                    create(
                        root.path(),
                        Path::new(escape),
                        false,
                        crate::FileAccess::Same
                    ),
                    Err(BeneathError::Escapes)
                ),
                "{escape}"
            );
        }
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}
