//! Where a thread's files physically live.
//!
//! Normally in `<data>/users/<owner>/threads/<id>/user-data`. A warm container, started
//! before its thread was known, mounts a fresh *slot* (`<data>/sandbox/slots/<instance>/<uuid>`,
//! per instance so replicas sharing the data dir never collect each other's); when it
//! is given to a thread, the thread's files move into the slot and `user-data` becomes a
//! symlink to it. Everything on the host reaches the files through `user-data` either way.

use std::io;
use std::path::{Path, PathBuf};

use rustix::fs::{CWD, RenameFlags, renameat_with};

use crate::access::FileAccess;
use crate::paths::{ThreadDirs, UserDataDir};

/// `<data>/sandbox/slots`: every instance's slots.
fn slots_base(data_dir: &Path) -> PathBuf {
    data_dir.join("sandbox").join("slots")
}

/// `<data>/sandbox/slots/<instance>`: the slots of one instance.
pub fn slots_root(data_dir: &Path, instance: &str) -> PathBuf {
    slots_base(data_dir).join(instance)
}

/// Creates an empty slot with the three directories, usable by the sandbox user.
pub fn new_slot(slots: &Path, access: FileAccess) -> io::Result<PathBuf> {
    let slot = slots.join(uuid::Uuid::new_v4().to_string());
    for d in UserDataDir::ALL {
        std::fs::create_dir_all(slot.join(d.as_str()))?;
    }
    give_dirs(&slot, access)?;
    Ok(slot)
}

/// Makes the three directories under `user_data` the sandbox user's to read and write.
pub fn give_dirs(user_data: &Path, access: FileAccess) -> io::Result<()> {
    for d in UserDataDir::ALL {
        access.dir_at(&user_data.join(d.as_str()))?;
    }
    Ok(())
}

/// The real directory holding the thread's files.
pub fn storage_of(dirs: &ThreadDirs) -> PathBuf {
    std::fs::canonicalize(dirs.user_data()).unwrap_or_else(|_| dirs.user_data().to_path_buf())
}

/// True when the thread's files live in a slot.
pub fn is_slotted(dirs: &ThreadDirs) -> bool {
    dirs.user_data()
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
}

/// Moves the thread's files into `slot` and makes `user-data` point at it.
pub fn bind_into_slot(dirs: &ThreadDirs, slot: &Path) -> io::Result<()> {
    let user_data = dirs.user_data();
    if is_slotted(dirs) {
        return Err(io::Error::other("thread files already live in a slot"));
    }
    std::fs::create_dir_all(dirs.thread_root())?;
    let link = dirs
        .thread_root()
        .join(format!(".user-data-{}", uuid::Uuid::new_v4()));
    std::os::unix::fs::symlink(slot, &link)?;
    if !user_data.exists() {
        return match renameat_with(CWD, &link, CWD, user_data, RenameFlags::NOREPLACE) {
            Ok(()) => Ok(()),
            Err(e) => {
                let _ = std::fs::remove_file(&link);
                Err(e.into())
            }
        };
    }
    move_children(user_data, slot)?;
    // Swap in the link atomically; the old directory lands at `link`.
    renameat_with(CWD, &link, CWD, user_data, RenameFlags::EXCHANGE)?;
    // Files that arrived during the move (an upload racing the bind) follow.
    move_children(&link, slot)?;
    std::fs::remove_dir_all(&link)
}

fn move_children(from_user_data: &Path, slot: &Path) -> io::Result<()> {
    for d in UserDataDir::ALL {
        let from = from_user_data.join(d.as_str());
        let Ok(read) = std::fs::read_dir(&from) else {
            continue;
        };
        for entry in read {
            let entry = entry?;
            std::fs::rename(entry.path(), slot.join(d.as_str()).join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// Deletes everything of a thread, its slot included.
pub fn remove_thread(dirs: &ThreadDirs, data_dir: &Path) -> io::Result<()> {
    if is_slotted(dirs)
        && let Ok(target) = std::fs::read_link(dirs.user_data())
        && target.starts_with(slots_base(data_dir))
    {
        remove_dir_if_exists(&target)?;
    }
    remove_dir_if_exists(dirs.thread_root())
}

fn remove_dir_if_exists(path: &Path) -> io::Result<()> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Removes the slots of `instance` that no thread points at (left by warm containers of a
/// crashed run). Only call it for an instance whose containers are gone.
pub fn collect_garbage(data_dir: &Path, instance: &str) -> io::Result<usize> {
    let slots = slots_root(data_dir, instance);
    let Ok(read) = std::fs::read_dir(&slots) else {
        return Ok(0);
    };
    let mut used = std::collections::HashSet::new();
    if let Ok(owners) = std::fs::read_dir(data_dir.join("users")) {
        for owner in owners.filter_map(Result::ok) {
            let Ok(threads) = std::fs::read_dir(owner.path().join("threads")) else {
                continue;
            };
            for thread in threads.filter_map(Result::ok) {
                if let Ok(target) = std::fs::read_link(thread.path().join("user-data")) {
                    used.insert(target);
                }
            }
        }
    }
    let mut removed = 0;
    for slot in read.filter_map(Result::ok) {
        if !used.contains(&slot.path()) {
            std::fs::remove_dir_all(slot.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::LOCAL_OWNER;

    #[test]
    fn binding_moves_files_into_the_slot_behind_a_symlink() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path();
        let dirs = ThreadDirs::new(data, LOCAL_OWNER, "t1");
        dirs.create().unwrap();
        std::fs::write(dirs.dir(UserDataDir::Uploads).join("in.csv"), "a,b").unwrap();
        std::fs::create_dir(dirs.dir(UserDataDir::Workspace).join("proj")).unwrap();
        let slot = new_slot(&slots_root(data, "i1"), crate::FileAccess::Same).unwrap();
        bind_into_slot(&dirs, &slot).unwrap();
        assert!(is_slotted(&dirs));
        assert_eq!(
            std::fs::read_to_string(slot.join("uploads/in.csv")).unwrap(),
            "a,b"
        );
        assert!(slot.join("workspace/proj").is_dir());
        assert_eq!(
            std::fs::read_to_string(dirs.dir(UserDataDir::Uploads).join("in.csv")).unwrap(),
            "a,b",
            "the host path still reaches the files"
        );
        assert_eq!(storage_of(&dirs), slot.canonicalize().unwrap());
        assert!(bind_into_slot(&dirs, &slot).is_err());
        let leftovers: Vec<_> = std::fs::read_dir(dirs.thread_root()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "only the user-data link remains");

        let orphan = new_slot(&slots_root(data, "i1"), crate::FileAccess::Same).unwrap();
        let other = new_slot(&slots_root(data, "i2"), crate::FileAccess::Same).unwrap();
        assert_eq!(collect_garbage(data, "i1").unwrap(), 1);
        assert!(!orphan.exists() && slot.exists());
        assert!(
            other.exists(),
            "another instance's warm slot is not collected"
        );
        remove_thread(&dirs, data).unwrap();
        assert!(!slot.exists() && !dirs.thread_root().exists());
    }

    #[test]
    fn a_thread_without_files_binds_directly() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs = ThreadDirs::new(tmp.path(), LOCAL_OWNER, "fresh");
        let slot = new_slot(&slots_root(tmp.path(), "i1"), crate::FileAccess::Same).unwrap();
        bind_into_slot(&dirs, &slot).unwrap();
        assert!(dirs.dir(UserDataDir::Outputs).is_dir());
    }
}
