//! Opening host files so that nothing — `..`, absolute symlinks, symlinks swapped in between a
//! check and the open — can lead outside a root directory.
//!
//! Uses `openat2(RESOLVE_BENEATH)` (Linux 5.6+): the kernel refuses any resolution step that
//! leaves the root, atomically. Symlinks that stay inside are followed.

use std::fs::File;
use std::io;
use std::path::Path;

use rustix::fs::{Mode, OFlags, ResolveFlags, openat2};

/// What went wrong opening a path beneath a root.
#[derive(Debug, thiserror::Error)]
pub enum BeneathError {
    /// Nothing there.
    #[error("not found")]
    NotFound,
    /// Resolution would leave the root (symlink or `..`).
    #[error("path leads outside its root")]
    Escapes,
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
    let fd = openat2(
        &dir,
        rel,
        OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
    )
    .map_err(|e| classify(e.into()))?;
    Ok(File::from(fd))
}

fn classify(e: io::Error) -> BeneathError {
    match e.raw_os_error() {
        Some(code) if code == rustix::io::Errno::XDEV.raw_os_error() => BeneathError::Escapes,
        Some(code) if code == rustix::io::Errno::LOOP.raw_os_error() => BeneathError::Escapes,
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
}
