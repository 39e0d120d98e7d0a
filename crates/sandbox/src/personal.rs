//! Personal skills inside sandboxes: `/mnt/skills/user` shows the thread owner's enabled
//! personal skills and nobody else's.
//!
//! Each sandbox gets its own copy (a [`SkillsView`] under
//! `<data>/sandbox/personal/<instance>/<id>`, whose `user/` is what the sandbox sees), because
//! a warm container is started before anyone knows whose thread it will serve: the copy is
//! filled when the container is given to a thread and refreshed when the owner's personal
//! skills change. Personal skills are a handful of small folders, so copies are cheap.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use antler_protocol::skills::SkillCategory;
use async_trait::async_trait;

use crate::error::SandboxError;
use crate::view::{ProjectedSkill, SkillsView};

/// Where the personal skills of an owner come from (the application's catalogs).
#[async_trait]
pub trait PersonalSkills: Send + Sync {
    /// The enabled personal skills of `owner`, with their directories on the host.
    async fn wanted(&self, owner: &str) -> Vec<ProjectedSkill>;
}

/// `<data>/sandbox/personal/<instance>`: the personal copies of one instance's sandboxes.
pub fn personal_root(data_dir: &Path, instance: &str) -> PathBuf {
    data_dir.join("sandbox").join("personal").join(instance)
}

/// Removes every personal copy of `instance` (its sandboxes are gone).
pub fn collect_garbage(data_dir: &Path, instance: &str) -> io::Result<()> {
    match std::fs::remove_dir_all(personal_root(data_dir, instance)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// One sandbox's `/mnt/skills/user`. The directory goes when the mount is dropped.
#[derive(Debug)]
pub struct PersonalMount {
    view: SkillsView,
    owner: Mutex<Option<String>>,
}

impl PersonalMount {
    /// A fresh, empty copy below `root`.
    pub fn create(root: &Path) -> io::Result<Self> {
        let dir = root.join(uuid::Uuid::new_v4().simple().to_string());
        Ok(PersonalMount {
            view: SkillsView::open(&dir)?,
            owner: Mutex::new(None),
        })
    }

    /// The host directory behind `/mnt/skills/user`.
    pub fn dir(&self) -> PathBuf {
        self.view.root().join(SkillCategory::User.as_str())
    }

    /// The owner whose skills it shows, once given to a thread.
    pub fn owner(&self) -> Option<String> {
        self.owner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Shows `owner`'s skills from now on (blocking).
    pub fn fill(&self, owner: &str, wanted: &[ProjectedSkill]) -> io::Result<()> {
        *self
            .owner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(owner.to_string());
        self.view.sync(wanted).map(|_| ())
    }
}

impl Drop for PersonalMount {
    fn drop(&mut self) {
        self.view.discard();
    }
}

/// A provider's personal skills: where they come from and where the copies go.
pub struct PersonalSource {
    source: Arc<dyn PersonalSkills>,
    root: PathBuf,
    /// One fill or refresh at a time, so an older list of skills is never applied last.
    order: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for PersonalSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PersonalSource")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl PersonalSource {
    /// Copies of `source`'s skills go below `root`.
    pub fn new(source: Arc<dyn PersonalSkills>, root: PathBuf) -> Self {
        PersonalSource {
            source,
            root,
            order: tokio::sync::Mutex::new(()),
        }
    }

    /// A fresh, empty mount (blocking).
    pub fn empty_mount(&self) -> Result<Arc<PersonalMount>, SandboxError> {
        PersonalMount::create(&self.root)
            .map(Arc::new)
            .map_err(failed)
    }

    /// A mount showing `owner`'s skills.
    pub async fn mount_for(&self, owner: &str) -> Result<Arc<PersonalMount>, SandboxError> {
        let root = self.root.clone();
        let mount = tokio::task::spawn_blocking(move || PersonalMount::create(&root))
            .await
            .map_err(io::Error::other)
            .and_then(|created| created)
            .map_err(failed)?;
        let mount = Arc::new(mount);
        self.fill(&mount, owner).await?;
        Ok(mount)
    }

    /// Makes `mount` show `owner`'s skills.
    pub async fn fill(&self, mount: &Arc<PersonalMount>, owner: &str) -> Result<(), SandboxError> {
        self.refresh(vec![mount.clone()], owner, true)
            .await
            .map_err(failed)
    }

    /// Brings the mounts of `owner` among `mounts` up to date (one read of the skills).
    pub async fn refresh_owner(
        &self,
        mounts: impl IntoIterator<Item = Arc<PersonalMount>>,
        owner: &str,
    ) -> Result<(), SandboxError> {
        self.refresh(mounts.into_iter().collect(), owner, false)
            .await
            .map_err(failed)
    }

    async fn refresh(
        &self,
        mounts: Vec<Arc<PersonalMount>>,
        owner: &str,
        claim: bool,
    ) -> io::Result<()> {
        let mounts: Vec<_> = mounts
            .into_iter()
            .filter(|m| claim || m.owner().as_deref() == Some(owner))
            .collect();
        if mounts.is_empty() {
            return Ok(());
        }
        let _in_order = self.order.lock().await;
        let wanted = self.source.wanted(owner).await;
        let owner = owner.to_string();
        tokio::task::spawn_blocking(move || {
            let mut first = Ok(());
            for mount in mounts {
                if let Err(e) = mount.fill(&owner, &wanted) {
                    tracing::warn!(error = %e, "a sandbox's personal skills could not be updated");
                    if first.is_ok() {
                        first = Err(e);
                    }
                }
            }
            first
        })
        .await
        .map_err(io::Error::other)?
    }
}

/// A copy of personal skills that could not be made or updated.
fn failed(error: io::Error) -> SandboxError {
    SandboxError::Infra(format!("cannot copy personal skills: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Vec<ProjectedSkill>);

    #[async_trait]
    impl PersonalSkills for Fixed {
        async fn wanted(&self, owner: &str) -> Vec<ProjectedSkill> {
            if owner == "alice" {
                self.0.clone()
            } else {
                Vec::new()
            }
        }
    }

    #[tokio::test]
    async fn a_mount_shows_its_owner_skills_and_goes_away_when_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let source_dir = tmp.path().join("src/notes");
        std::fs::create_dir_all(&source_dir).unwrap();
        std::fs::write(source_dir.join("SKILL.md"), "x").unwrap();
        let source = Fixed(vec![ProjectedSkill {
            category: SkillCategory::User,
            relative_path: "notes".into(),
            source: source_dir,
            load_id: 0,
        }]);
        let root = personal_root(tmp.path(), "i1");
        let personal = PersonalSource::new(Arc::new(source), root.clone());
        let alice = personal.mount_for("alice").await.unwrap();
        let bob = personal.mount_for("bob").await.unwrap();
        assert!(alice.dir().join("notes/SKILL.md").is_file());
        assert!(bob.dir().is_dir() && !bob.dir().join("notes").exists());
        let empty = PersonalSource::new(Arc::new(Fixed(Vec::new())), root.clone());
        empty
            .refresh_owner(vec![alice.clone(), bob.clone()], "alice")
            .await
            .unwrap();
        assert_eq!(bob.owner().as_deref(), Some("bob"));
        assert!(
            !alice.dir().join("notes").exists(),
            "refresh follows a removal"
        );
        let dir = alice.dir();
        drop(alice);
        assert!(!dir.exists());
        collect_garbage(tmp.path(), "i1").unwrap();
        assert!(!root.exists());
    }
}
