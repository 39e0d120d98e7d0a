//! Who may use what the server writes into a thread's user-data.
//!
//! Commands in a Docker sandbox run as the sandbox user (`sandbox.docker.user`; 1000:1000
//! when the server is root, else the server's own uid:gid). Everything the server writes
//! where they look (uploads, the thread's directories, files the file tools write) must be
//! readable by that user, and writable where the agent writes.

use std::io;
use std::os::fd::AsFd;
use std::path::Path;

use rustix::fs::{Gid, Mode, Uid, fchmod, fchown};

/// How the server hands over the files and directories it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FileAccess {
    /// The sandbox user is the server's own (or commands run on the host): the server's
    /// files are already theirs.
    #[default]
    Same,
    /// The server is root: files and directories are given to this uid:gid (files 0644,
    /// directories 0755), so the sandbox user owns them like files it made itself.
    Chown(u32, u32),
    /// The sandbox runs as another user the server cannot give files to (a configured uid
    /// while the server is not root): files are 0666 and directories 0777, so that user can
    /// read and write them.
    Open,
}

impl FileAccess {
    /// The access for a sandbox user `uid:gid`, from this process's own identity.
    pub fn for_sandbox_user(uid: u32, gid: u32) -> Self {
        let me = (rustix::process::getuid(), rustix::process::getgid());
        if me.0.is_root() {
            FileAccess::Chown(uid, gid)
        } else if (me.0.as_raw(), me.1.as_raw()) == (uid, gid) {
            FileAccess::Same
        } else {
            FileAccess::Open
        }
    }

    /// Applies to a file the server just wrote (open as `fd`).
    pub fn file(self, fd: impl AsFd) -> io::Result<()> {
        match self {
            FileAccess::Same => Ok(()),
            FileAccess::Chown(uid, gid) => {
                fchown(&fd, Some(Uid::from_raw(uid)), Some(Gid::from_raw(gid)))?;
                Ok(fchmod(&fd, Mode::from_raw_mode(0o644))?)
            }
            FileAccess::Open => Ok(fchmod(&fd, Mode::from_raw_mode(0o666))?),
        }
    }

    /// Applies to a directory the server just made (open as `fd`).
    pub fn dir(self, fd: impl AsFd) -> io::Result<()> {
        match self {
            FileAccess::Same => Ok(()),
            FileAccess::Chown(uid, gid) => {
                fchown(&fd, Some(Uid::from_raw(uid)), Some(Gid::from_raw(gid)))?;
                Ok(fchmod(&fd, Mode::from_raw_mode(0o755))?)
            }
            FileAccess::Open => Ok(fchmod(&fd, Mode::from_raw_mode(0o777))?),
        }
    }

    /// Applies to the directory at `path` (not followed if it is a link).
    pub fn dir_at(self, path: &Path) -> io::Result<()> {
        if self == FileAccess::Same {
            return Ok(());
        }
        let fd = rustix::fs::open(
            path,
            rustix::fs::OFlags::RDONLY
                | rustix::fs::OFlags::DIRECTORY
                | rustix::fs::OFlags::NOFOLLOW
                | rustix::fs::OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        self.dir(&fd)
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn open_access_lets_everyone_read_and_write() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = std::fs::File::create(dir.path().join("f")).expect("file");
        FileAccess::Open.file(&file).expect("chmod");
        FileAccess::Open.dir_at(dir.path()).expect("chmod dir");
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&dir.path().join("f")), 0o666);
        assert_eq!(mode(dir.path()), 0o777);
    }

    #[test]
    fn the_sandbox_user_of_a_non_root_server_is_itself_unless_configured_otherwise() {
        if rustix::process::getuid().is_root() {
            let access = FileAccess::for_sandbox_user(1000, 1000);
            assert_eq!(access, FileAccess::Chown(1000, 1000));
        } else {
            let uid = rustix::process::getuid().as_raw();
            let gid = rustix::process::getgid().as_raw();
            assert_eq!(FileAccess::for_sandbox_user(uid, gid), FileAccess::Same);
            assert_eq!(FileAccess::for_sandbox_user(uid + 1, gid), FileAccess::Open);
        }
    }
}
