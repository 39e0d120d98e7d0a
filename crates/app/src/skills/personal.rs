//! Personal skills: each person's own catalog in `<data>/users/<owner>/skills/user/`, with
//! its enabled state in the database per (owner, name). A person's runs see the shared
//! catalog with their personal skills laid over it ([`Snapshot::overlay`]); their sandboxes
//! show them at `/mnt/skills/user`. Nobody else sees them anywhere.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use antler_protocol::skills::SkillCategory;
use antler_sandbox::personal::PersonalSkills;
use antler_sandbox::view::ProjectedSkill;
use antler_skills::archive::ArchiveLimits;
use antler_skills::catalog::States;
use antler_skills::install::Installer;
use antler_skills::{Catalog, ScanLimits, Snapshot};
use antler_store::Store;
use async_trait::async_trait;
use tokio::sync::OnceCell;

use super::SkillOpError;

/// One person's skills.
pub(crate) struct Personal {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) installer: Arc<Installer>,
    /// The last overlay built, with the (shared, personal) versions it was built from.
    overlay: Mutex<Option<(u64, u64, Arc<Snapshot>)>>,
}

/// Every person's catalog, loaded on first use.
pub(crate) struct PersonalCatalogs {
    users_dir: PathBuf,
    limits: ScanLimits,
    archive_limits: ArchiveLimits,
    instance: String,
    store: Store,
    loaded: Mutex<HashMap<String, Arc<OnceCell<Arc<Personal>>>>>,
}

impl PersonalCatalogs {
    pub(crate) fn new(
        users_dir: PathBuf,
        limits: ScanLimits,
        archive_limits: ArchiveLimits,
        instance: String,
        store: Store,
    ) -> Self {
        PersonalCatalogs {
            users_dir,
            limits,
            archive_limits,
            instance,
            store,
            loaded: Mutex::new(HashMap::new()),
        }
    }

    /// `owner`'s catalog, read from disk and the database the first time.
    pub(crate) async fn of(&self, owner: &str) -> Result<Arc<Personal>, SkillOpError> {
        // Owner ids become directory names: user ids (UUIDs) and `local` qualify.
        if !antler_sandbox::instance::is_plain_id(owner) {
            return Err(SkillOpError::Internal(format!(
                "owner id {owner:?} cannot name a directory"
            )));
        }
        let cell = self.lock().entry(owner.to_string()).or_default().clone();
        let personal = cell
            .get_or_try_init(|| async {
                let states: States = self
                    .store
                    .skill_states
                    .list_personal(owner)
                    .await?
                    .into_iter()
                    .map(|(name, enabled)| ((SkillCategory::User, name), enabled))
                    .collect();
                let root = self.users_dir.join(owner).join("skills");
                let limits = self.limits;
                let catalog = Arc::new(
                    tokio::task::spawn_blocking(move || {
                        Catalog::load_personal(&root, limits, states)
                    })
                    .await?,
                );
                let installer = Installer::into_dir(
                    self.users_dir
                        .join(owner)
                        .join("skills")
                        .join(SkillCategory::User.as_str()),
                    self.archive_limits,
                )
                .with_owner(&self.instance);
                Ok::<_, SkillOpError>(Arc::new(Personal {
                    catalog,
                    installer: Arc::new(installer),
                    overlay: Mutex::new(None),
                }))
            })
            .await?;
        Ok(personal.clone())
    }

    /// What `owner`'s runs and listings see: `shared` alone when they have no personal
    /// skills, else the overlay (built once per pair of versions).
    pub(crate) async fn overlay(
        &self,
        owner: &str,
        shared: Arc<Snapshot>,
    ) -> Result<Arc<Snapshot>, SkillOpError> {
        let personal = self.of(owner).await?;
        let mine = personal.catalog.snapshot();
        if mine.list.skills.is_empty() && mine.list.errors.is_empty() {
            return Ok(shared);
        }
        let key = (shared.version, mine.version);
        if let Some((s, p, built)) = &*lock(&personal.overlay)
            && (*s, *p) == key
        {
            return Ok(built.clone());
        }
        let built =
            tokio::task::spawn_blocking(move || Arc::new(Snapshot::overlay(&shared, &mine)))
                .await?;
        *lock(&personal.overlay) = Some((key.0, key.1, built.clone()));
        Ok(built)
    }

    /// Forgets every loaded catalog (another replica changed one): they load again on use.
    pub(crate) fn forget(&self, owner: Option<&str>) {
        let mut loaded = self.lock();
        match owner {
            Some(owner) => {
                loaded.remove(owner);
            }
            None => loaded.clear(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<OnceCell<Arc<Personal>>>>> {
        lock(&self.loaded)
    }
}

#[async_trait]
impl PersonalSkills for PersonalCatalogs {
    async fn wanted(&self, owner: &str) -> Vec<ProjectedSkill> {
        let personal = match self.of(owner).await {
            Ok(p) => p,
            Err(error) => {
                tracing::warn!(%error, owner, "personal skills could not be read");
                return Vec::new();
            }
        };
        // A person's catalog holds only category `user`: its enabled skills are the view.
        crate::sandbox::wanted(&personal.catalog.snapshot())
    }
}

/// Moves `from`'s personal skill folders to `to` (those `to` has no folder of), with their
/// history; answers how many moved. For the adoption of single-user data.
pub(crate) fn adopt_personal_files(
    users_dir: &std::path::Path,
    from: &str,
    to: &str,
) -> std::io::Result<usize> {
    let category = SkillCategory::User.as_str();
    let source = users_dir.join(from).join("skills").join(category);
    let Ok(entries) = std::fs::read_dir(&source) else {
        return Ok(0);
    };
    let target = users_dir.join(to).join("skills").join(category);
    std::fs::create_dir_all(&target)?;
    let mut moved = 0;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if name
            .to_string_lossy()
            .starts_with(antler_skills::install::STAGING_PREFIX)
        {
            continue;
        }
        let dest = target.join(&name);
        if dest.symlink_metadata().is_ok() {
            continue;
        }
        std::fs::rename(entry.path(), dest)?;
        moved += 1;
    }
    Ok(moved)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
