//! Installing `.skill` archives into `<skills dir>/custom/<name>/` atomically, and deleting
//! custom skills, with earlier versions kept under `custom/.history/<name>/<timestamp>/`.
//!
//! An install extracts into a hidden staging directory on the same filesystem and then
//! renames it into place: `RENAME_NOREPLACE` for a new skill (a racing install gets a clean
//! conflict), `RENAME_EXCHANGE` to replace one (the old version is swapped out in one step and
//! moved to history). Readers see the old skill or the new one, never a mix.

use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use antler_protocol::skills::{InstallFinding, SkillOrigin};
use rustix::fs::{CWD, RenameFlags, renameat_with};

use crate::archive::{self, ArchiveLimits, ExtractError, Inspection};

/// Hidden folder (ignored by discovery) holding replaced and deleted versions.
pub const HISTORY_DIR: &str = ".history";
/// The file in a skill's history folder recording where an imported skill came from.
pub const ORIGIN_FILE: &str = "origin.json";
/// Versions kept per skill in history.
pub const HISTORY_KEEP: usize = 5;

/// Why an install or delete did not happen.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The file is not a zip archive.
    #[error("not a zip archive")]
    NotAZip(String),
    /// The archive broke rules; every finding is listed.
    #[error("the archive was refused")]
    Refused {
        /// Every problem found.
        findings: Vec<InstallFinding>,
        /// True when a size limit refused it.
        too_large: bool,
    },
    /// A skill of that name is installed here and `overwrite` was not set.
    #[error("a skill named '{0}' is already installed")]
    Exists(String),
    /// Another install or delete of the same name is running.
    #[error("another install of '{0}' is in progress")]
    Busy(String),
    /// No installed skill of that name.
    #[error("no installed skill named '{0}'")]
    NotFound(String),
    /// Filesystem failure.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// A successful install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The skill's name (its directory under `custom/`).
    pub name: String,
    /// Whether an existing custom skill was replaced.
    pub replaced: bool,
    /// Non-fatal problems.
    pub warnings: Vec<String>,
}

/// Installs into and deletes from one `custom/` directory.
#[derive(Debug)]
pub struct Installer {
    custom_dir: PathBuf,
    limits: ArchiveLimits,
    busy: Mutex<HashSet<String>>,
    /// Prefix of this process's staging directories in `custom/`: `.staging-<owner>-`, so
    /// a sweep can tell whose leftovers they are.
    staging_prefix: String,
}

/// The start of every staging directory's name in `custom/`.
pub const STAGING_PREFIX: &str = ".staging-";

/// Releases a name when the operation ends.
struct NameGuard<'a> {
    busy: &'a Mutex<HashSet<String>>,
    name: String,
}

impl Drop for NameGuard<'_> {
    fn drop(&mut self) {
        self.busy
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.name);
    }
}

impl Installer {
    /// An installer for `<skills_dir>/custom`.
    pub fn new(skills_dir: &Path, limits: ArchiveLimits) -> Self {
        Self::into_dir(skills_dir.join("custom"), limits)
    }

    /// An installer for any category directory (a person's `user/` directory).
    pub fn into_dir(category_dir: PathBuf, limits: ArchiveLimits) -> Self {
        Installer {
            custom_dir: category_dir,
            limits,
            busy: Mutex::new(HashSet::new()),
            staging_prefix: STAGING_PREFIX.to_string(),
        }
    }

    /// Names this installer's staging directories after `owner` (an instance id), so the
    /// leftovers of a crash can be told from a live replica's work in progress.
    pub fn with_owner(mut self, owner: &str) -> Self {
        self.staging_prefix = format!("{STAGING_PREFIX}{owner}-");
        self
    }

    /// Inspects an archive file without installing it.
    pub fn inspect(&self, file: &File) -> Result<Inspection, InstallError> {
        archive::inspect(file, &self.limits).map_err(|e| InstallError::NotAZip(e.0))
    }

    /// Installs the archive in `file` (blocking).
    pub fn install(&self, file: &File, overwrite: bool) -> Result<Installed, InstallError> {
        self.install_from(file, overwrite, None)
    }

    /// Installs the archive in `file` (blocking), recording `origin` in the skill's history
    /// (an install without one forgets any earlier origin: the skill no longer is that
    /// repository's).
    pub fn install_from(
        &self,
        file: &File,
        overwrite: bool,
        origin: Option<&SkillOrigin>,
    ) -> Result<Installed, InstallError> {
        let inspection = self.inspect(file)?;
        if !inspection.is_installable() {
            return Err(InstallError::Refused {
                too_large: inspection.refused_for_size(),
                findings: inspection.findings,
            });
        }
        let name = inspection
            .name()
            .map(str::to_owned)
            .ok_or_else(|| io::Error::other("validated archive without a name"))?;
        let _guard = self.claim(&name)?;
        let target = self.custom_dir.join(&name);
        if !overwrite && target.symlink_metadata().is_ok() {
            return Err(InstallError::Exists(name));
        }
        std::fs::create_dir_all(&self.custom_dir)?;
        let staging = tempfile::Builder::new()
            .prefix(&self.staging_prefix)
            .tempdir_in(&self.custom_dir)?;
        let fresh = staging.path().join("skill");
        std::fs::create_dir(&fresh)?;
        archive::extract(file, &inspection.plan, &fresh, &self.limits).map_err(|e| match e {
            ExtractError::Refused(f) => InstallError::Refused {
                too_large: archive::is_size_rule(&f.rule) || f.rule == "size-mismatch",
                findings: vec![f],
            },
            ExtractError::Io(e) => InstallError::Io(e),
        })?;
        let replaced = self.swap_in(&fresh, &target, &name, overwrite)?;
        self.record_origin(&name, origin)?;
        Ok(Installed {
            name,
            replaced,
            warnings: inspection.warnings,
        })
    }

    /// Where the installed skill `name` was imported from, when it was.
    pub fn origin(&self, name: &str) -> Option<SkillOrigin> {
        let path = self
            .custom_dir
            .join(HISTORY_DIR)
            .join(name)
            .join(ORIGIN_FILE);
        let bytes = std::fs::read(path).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    fn record_origin(&self, name: &str, origin: Option<&SkillOrigin>) -> io::Result<()> {
        let history = self.custom_dir.join(HISTORY_DIR).join(name);
        let path = history.join(ORIGIN_FILE);
        let Some(origin) = origin else {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            };
        };
        std::fs::create_dir_all(&history)?;
        let mut tmp = tempfile::NamedTempFile::new_in(&history)?;
        serde_json::to_writer_pretty(&mut tmp, origin).map_err(io::Error::other)?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }

    /// Moves the custom skill directory `relative_path` (under `custom/`) to history.
    pub fn delete(&self, name: &str, relative_path: &str) -> Result<(), InstallError> {
        let _guard = self.claim(name)?;
        let dir = self.custom_dir.join(relative_path);
        if dir.symlink_metadata().is_err() {
            return Err(InstallError::NotFound(name.to_string()));
        }
        self.to_history(&dir, name)?;
        Ok(())
    }

    fn claim(&self, name: &str) -> Result<NameGuard<'_>, InstallError> {
        let mut busy = self
            .busy
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !busy.insert(name.to_string()) {
            return Err(InstallError::Busy(name.to_string()));
        }
        Ok(NameGuard {
            busy: &self.busy,
            name: name.to_string(),
        })
    }

    /// Renames `fresh` to `target`; returns whether something was replaced.
    fn swap_in(
        &self,
        fresh: &Path,
        target: &Path,
        name: &str,
        overwrite: bool,
    ) -> Result<bool, InstallError> {
        match renameat_with(CWD, fresh, CWD, target, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(false),
            Err(e) if e == rustix::io::Errno::EXIST || e == rustix::io::Errno::NOTEMPTY => {}
            Err(e) => return Err(InstallError::Io(e.into())),
        }
        if !overwrite {
            return Err(InstallError::Exists(name.to_string()));
        }
        // Atomic swap: the old version now sits at `fresh`.
        renameat_with(CWD, fresh, CWD, target, RenameFlags::EXCHANGE)
            .map_err(|e| InstallError::Io(e.into()))?;
        self.to_history(fresh, name)?;
        Ok(true)
    }

    /// Moves `dir` to `.history/<name>/<timestamp>` and prunes old versions.
    fn to_history(&self, dir: &Path, name: &str) -> Result<PathBuf, InstallError> {
        let history = self.custom_dir.join(HISTORY_DIR).join(name);
        std::fs::create_dir_all(&history)?;
        let stamp = chrono_like_stamp();
        let mut dest = history.join(&stamp);
        let mut n = 1;
        while dest.symlink_metadata().is_ok() {
            dest = history.join(format!("{stamp}-{n}"));
            n += 1;
        }
        std::fs::rename(dir, &dest)?;
        prune(&history, HISTORY_KEEP);
        Ok(dest)
    }
}

/// `YYYYmmddTHHMMSS.mmmZ`, sortable as text.
fn chrono_like_stamp() -> String {
    chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ").to_string()
}

/// Keeps the newest `keep` entries of a history folder.
fn prune(history: &Path, keep: usize) {
    let Ok(read) = std::fs::read_dir(history) else {
        return;
    };
    // Only version folders count; the origin record stays.
    let mut versions: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    versions.sort();
    let excess = versions.len().saturating_sub(keep);
    for old in versions.into_iter().take(excess) {
        if let Err(error) = std::fs::remove_dir_all(&old) {
            tracing::warn!(%error, path = %old.display(), "could not prune skill history");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_stamps_sort_as_text() {
        let a = chrono_like_stamp();
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert!(chrono_like_stamp() > a);
        assert_eq!(a.len(), "20261122T175512.123Z".len());
    }

    #[test]
    fn prune_keeps_the_newest() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..8 {
            std::fs::create_dir(tmp.path().join(format!("2026010{i}T000000.000Z"))).unwrap();
        }
        prune(tmp.path(), 5);
        let mut left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left.len(), 5);
        assert_eq!(left[0], "20260103T000000.000Z");
    }
}
