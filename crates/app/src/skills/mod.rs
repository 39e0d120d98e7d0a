//! Skills: toggle, install, delete and reload, with the database, the catalog, every
//! replica and the sandboxes' `/mnt/skills` left agreeing.
//!
//! Every change of enabled state — a toggle, the state an install records, a delete, a
//! reload and a refresh after another replica's change — writes the database and updates the
//! catalog under one lock, so concurrent changes apply in the same order in both and the last
//! write wins everywhere. The skills view is written by one follower task only
//! (`crate::sandbox::follow_catalog`); a change waits until the view holds its catalog
//! version before answering, so a disabled skill is gone from `/mnt/skills` by then.

mod error;
mod replicas;

use std::fs::File;
use std::sync::Arc;

use antler_protocol::skills::{InstallResult, Skill, SkillCategory};
use antler_sandbox::view::SkillsView;
use antler_skills::archive::Inspection;
use antler_skills::catalog::States;
use antler_skills::install::Installer;
use antler_skills::{Catalog, Snapshot};
use antler_store::Store;
use tokio::sync::{Mutex, watch};

pub use error::SkillOpError;

/// The skills use-cases.
pub struct SkillsService {
    store: Store,
    catalog: Arc<Catalog>,
    installer: Arc<Installer>,
    view: Arc<SkillsView>,
    /// The catalog version the view holds (from the follower); `None` for a one-shot
    /// command, which has no sandboxes and no follower.
    synced: Option<watch::Receiver<u64>>,
    /// This server's id (replica notices).
    instance: String,
    /// Held while enabled state changes in the database and the catalog.
    writes: Mutex<()>,
}

impl std::fmt::Debug for SkillsService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillsService")
            .field("catalog", &self.catalog)
            .finish_non_exhaustive()
    }
}

impl Drop for SkillsService {
    fn drop(&mut self) {
        // A one-shot command's view is a throwaway no sandbox will mount.
        if self.synced.is_none() {
            self.view.discard();
        }
    }
}

impl SkillsService {
    pub(crate) fn new(
        store: Store,
        catalog: Arc<Catalog>,
        installer: Installer,
        view: Arc<SkillsView>,
        synced: Option<watch::Receiver<u64>>,
        instance: String,
    ) -> Self {
        SkillsService {
            store,
            catalog,
            installer: Arc::new(installer),
            view,
            synced,
            instance,
            writes: Mutex::new(()),
        }
    }

    /// The current catalog snapshot (cheap; never blocks on a rescan).
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.catalog.snapshot()
    }

    /// The catalog itself (for the run manager and the file watcher).
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// Enables or disables a skill; `category` is needed when the name is in both. Answers
    /// the skill as it now is, once every sandbox's `/mnt/skills` shows the change.
    pub async fn set_enabled(
        &self,
        name: &str,
        category: Option<SkillCategory>,
        enabled: bool,
    ) -> Result<Skill, SkillOpError> {
        let snapshot = {
            let _writing = self.writes.lock().await;
            let category = self.catalog.snapshot().find(name, category)?.0.category;
            self.store.skill_states.set(category, name, enabled).await?;
            let snapshot = self.catalog.set_enabled(category, name, enabled);
            tracing::info!(skill.name = name, skill.category = %category, enabled, "skill state changed");
            snapshot
        };
        self.changed(snapshot.version).await;
        let (skill, _) = snapshot.find(name, category)?;
        Ok(skill.clone())
    }

    /// Installs the `.skill` archive in `file` as a custom skill, enabled or not, and answers
    /// it as listed.
    pub async fn install(
        &self,
        file: File,
        overwrite: bool,
        enable: bool,
    ) -> Result<InstallResult, SkillOpError> {
        let installer = self.installer.clone();
        let installed =
            tokio::task::spawn_blocking(move || installer.install(&file, overwrite)).await??;
        {
            let _writing = self.writes.lock().await;
            self.store
                .skill_states
                .set(SkillCategory::Custom, &installed.name, enable)
                .await?;
            self.catalog
                .set_enabled(SkillCategory::Custom, &installed.name, enable);
        }
        let snapshot = self.rescan().await?;
        self.changed(snapshot.version).await;
        // A delete of the same name may have run between the install and the rescan: it
        // was the last change, so it stands.
        let (skill, _) = snapshot
            .find(&installed.name, Some(SkillCategory::Custom))
            .map_err(|_| {
                SkillOpError::Conflict(format!(
                    "'{}' was installed, then deleted by a concurrent request",
                    installed.name
                ))
            })?;
        tracing::info!(skill.name = %installed.name, replaced = installed.replaced, enabled = enable, "skill installed");
        Ok(InstallResult {
            skill: skill.clone(),
            replaced: installed.replaced,
            warnings: installed.warnings,
        })
    }

    /// Looks inside an archive without installing it.
    pub async fn inspect(&self, file: File) -> Result<Inspection, SkillOpError> {
        let installer = self.installer.clone();
        Ok(tokio::task::spawn_blocking(move || installer.inspect(&file)).await??)
    }

    /// Deletes a custom skill (kept restorable in history) and forgets its state.
    pub async fn delete(&self, name: &str) -> Result<(), SkillOpError> {
        let snapshot = self.catalog.snapshot();
        let relative = match snapshot.find(name, Some(SkillCategory::Custom)) {
            Ok((skill, _)) => skill.relative_path.clone(),
            Err(_) if snapshot.find(name, Some(SkillCategory::Public)).is_ok() => {
                return Err(SkillOpError::ReadOnly(name.to_string()));
            }
            Err(_) => return Err(SkillOpError::NoCustom(name.to_string())),
        };
        let installer = self.installer.clone();
        let owned = name.to_string();
        tokio::task::spawn_blocking(move || installer.delete(&owned, &relative)).await??;
        {
            let _writing = self.writes.lock().await;
            self.store
                .skill_states
                .remove(SkillCategory::Custom, name)
                .await?;
            self.catalog.forget_state(SkillCategory::Custom, name);
        }
        let snapshot = self.rescan().await?;
        self.changed(snapshot.version).await;
        tracing::info!(skill.name = %name, "custom skill deleted");
        Ok(())
    }

    /// Rescans the skills directory and re-reads enabled state from the database.
    pub async fn reload(&self) -> Result<Arc<Snapshot>, SkillOpError> {
        let snapshot = self.refresh().await?;
        self.changed(snapshot.version).await;
        Ok(snapshot)
    }

    /// Rescans the filesystem and takes every state from the database.
    async fn refresh(&self) -> Result<Arc<Snapshot>, SkillOpError> {
        self.rescan().await?;
        let _writing = self.writes.lock().await;
        let states = load_states(&self.store).await?;
        Ok(self.catalog.replace_states(states))
    }

    async fn rescan(&self) -> Result<Arc<Snapshot>, SkillOpError> {
        let catalog = self.catalog.clone();
        Ok(tokio::task::spawn_blocking(move || catalog.rescan()).await?)
    }

    /// After a change: tells the other replicas, then waits until this server's sandboxes
    /// see catalog `version` at `/mnt/skills`.
    async fn changed(&self, version: u64) {
        if let Err(error) = self
            .store
            .bus
            .publish(antler_store::Topic::Skills, &self.instance)
            .await
        {
            tracing::warn!(%error, "could not notify other replicas of a skills change");
        }
        self.view_reaches(version).await;
    }

    /// Resolves once the view holds catalog `version` (or at once without a view follower).
    async fn view_reaches(&self, version: u64) {
        if let Some(synced) = &self.synced {
            let mut synced = synced.clone();
            if synced.wait_for(|v| *v >= version).await.is_err() {
                tracing::error!(version, "the skills view follower stopped");
            }
        }
    }
}

/// Enabled states as stored.
pub(crate) async fn load_states(store: &Store) -> Result<States, antler_store::StoreError> {
    Ok(store
        .skill_states
        .list()
        .await?
        .into_iter()
        .map(|s| ((s.category, s.name), s.enabled))
        .collect())
}
