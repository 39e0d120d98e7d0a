//! What a crashed process leaves behind, cleared at startup: host commands still running
//! (local provider; see `antler_sandbox::host_procs`), uploads and skill archives that were
//! arriving (`<data>/tmp/<instance>/`), skill installs that were extracting
//! (`.staging-<instance>-…` in `skills/custom/` and in each person's `skills/user/`),
//! throwaway skills views of one-shot commands, and
//! the partial uploads older versions wrote inside a thread's `uploads/`. Only what belongs
//! to this instance (its previous process) or to no live process is removed; each removal
//! is logged with its size.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, SystemTime};

use antler_skills::install::STAGING_PREFIX;

/// Leftovers without an owner in their name (older versions) are removed once this old.
const UNOWNED_AGE: Duration = Duration::from_secs(600);

/// Who may still be using a leftover.
struct Owners {
    me: String,
    live: HashSet<String>,
}

impl Owners {
    fn gone(&self, owner: &str) -> bool {
        if owner == self.me {
            return true;
        }
        if let Some(pid) = owner.strip_prefix("cli-") {
            // A one-shot command of this or another server: alive while its process is.
            return pid
                .parse::<u32>()
                .map_or(true, |pid| !Path::new(&format!("/proc/{pid}")).exists());
        }
        !self.live.contains(owner)
    }
}

/// Removes the leftovers of `me`'s previous process and of processes that are gone
/// (blocking). Answers how many entries were removed.
pub(crate) fn sweep(data_dir: &Path, skills_dir: &Path, me: &str) -> usize {
    let live = antler_sandbox::instance::list(data_dir)
        .map(|ids| {
            ids.into_iter()
                .filter(|(_, live)| *live)
                .map(|(id, _)| id)
                .collect()
        })
        .unwrap_or_default();
    let owners = Owners {
        me: me.to_string(),
        live,
    };
    let mut removed = 0;
    let commands = antler_sandbox::host_procs::records_dir(data_dir, me);
    for entry in entries(commands.parent().unwrap_or(&commands)) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if owners.gone(&name) {
            match antler_sandbox::host_procs::reap(&entry.path()) {
                Ok(killed) => removed += killed,
                Err(error) => tracing::warn!(%error, "host commands could not be checked"),
            }
            let _ = std::fs::remove_dir(entry.path());
        }
    }
    for entry in entries(&data_dir.join("tmp")) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let stale = match name.strip_prefix("view-") {
            Some(owner) => owners.gone(owner),
            None if name.starts_with('.') => older_than(&entry.path(), UNOWNED_AGE),
            None => owners.gone(&name),
        };
        if stale {
            removed += remove(&entry.path());
        }
    }
    // Installs extract beside their target: shared ones in `custom/`, personal ones in each
    // person's `user/`.
    let mut install_dirs = vec![skills_dir.join("custom")];
    install_dirs.extend(
        entries(&data_dir.join("users")).map(|owner| owner.path().join("skills").join("user")),
    );
    for dir in install_dirs {
        removed += sweep_staging(&dir, &owners);
    }
    removed + sweep_old_partial_uploads(data_dir)
}

/// Install staging directories (`.staging-<owner>-XXXXXX`) of processes that are gone.
fn sweep_staging(dir: &Path, owners: &Owners) -> usize {
    let mut removed = 0;
    for entry in entries(dir) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(STAGING_PREFIX) else {
            continue;
        };
        // `<owner>-XXXXXX` (6 random characters), or `XXXXXX` from older versions.
        let stale = match rest.len().checked_sub(7).map(|n| rest.split_at(n)) {
            Some((owner, random)) if random.starts_with('-') => owners.gone(owner),
            _ => older_than(&entry.path(), UNOWNED_AGE),
        };
        if stale {
            removed += remove(&entry.path());
        }
    }
    removed
}

/// Partial uploads older versions streamed into a thread's `uploads/` (`.upload-XXXXXX`).
fn sweep_old_partial_uploads(data_dir: &Path) -> usize {
    let mut removed = 0;
    for owner in entries(&data_dir.join("users")) {
        for thread in entries(&owner.path().join("threads")) {
            let uploads = thread.path().join("user-data").join("uploads");
            for entry in entries(&uploads) {
                let name = entry.file_name().to_string_lossy().into_owned();
                let partial = name.strip_prefix(".upload-").is_some_and(|r| r.len() == 6);
                if partial && older_than(&entry.path(), UNOWNED_AGE) {
                    removed += remove(&entry.path());
                }
            }
        }
    }
    removed
}

fn entries(dir: &Path) -> impl Iterator<Item = std::fs::DirEntry> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
}

fn older_than(path: &Path, age: Duration) -> bool {
    path.symlink_metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|elapsed| elapsed > age)
}

/// Removes a file or a directory tree (links themselves, never their targets); 1 when done.
fn remove(path: &Path) -> usize {
    let bytes = size(path);
    let result = match path.symlink_metadata() {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => {
            tracing::info!(path = %path.display(), bytes, "removed a leftover of a stopped process");
            1
        }
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "a leftover could not be removed");
            0
        }
    }
}

/// Bytes under `path` (links not followed).
fn size(path: &Path) -> u64 {
    walkdir::WalkDir::new(path)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_leftovers_of_processes_that_are_gone_are_removed() {
        let data = tempfile::tempdir().expect("temp dir");
        let skills = tempfile::tempdir().expect("temp dir");
        let tmp = data.path().join("tmp");
        for dir in ["me", "dead-one", "view-cli-999999999"] {
            std::fs::create_dir_all(tmp.join(dir)).expect("dir");
            std::fs::write(tmp.join(dir).join("part"), b"12345").expect("file");
        }
        // A live instance's work in progress (it holds its lock).
        let live = antler_sandbox::instance::claim(Some("alive"), data.path()).expect("claim");
        std::fs::create_dir_all(tmp.join(live.id())).expect("dir");
        let custom = skills.path().join("custom");
        std::fs::create_dir_all(custom.join(".staging-me-abc123")).expect("dir");
        std::fs::create_dir_all(custom.join(".staging-alive-def456")).expect("dir");
        std::fs::create_dir_all(custom.join(".staging-xyz789")).expect("recent, unowned");
        let personal = data.path().join("users/u1/skills/user");
        std::fs::create_dir_all(personal.join(".staging-me-ghi012")).expect("dir");
        std::fs::create_dir_all(personal.join("diary")).expect("an installed skill");
        let removed = sweep(data.path(), skills.path(), "me");
        assert_eq!(
            removed, 5,
            "me, dead-one, the dead CLI's view, my staging, my personal staging"
        );
        assert!(!personal.join(".staging-me-ghi012").exists() && personal.join("diary").is_dir());
        assert!(tmp.join("alive").is_dir());
        assert!(!tmp.join("me").exists() && !tmp.join("dead-one").exists());
        assert!(custom.join(".staging-alive-def456").is_dir());
        assert!(!custom.join(".staging-me-abc123").exists());
        assert!(
            custom.join(".staging-xyz789").is_dir(),
            "too recent to judge"
        );
    }
}
