//! Skills: toggle, install, delete and reload, with the database, the catalog, every
//! replica and the sandboxes' `/mnt/skills` left agreeing.
//!
//! Every change of enabled state — a toggle, the state an install records, a delete, a
//! reload and a refresh after another replica's change — writes the database and updates the
//! catalog under one lock, so concurrent changes apply in the same order in both and the last
//! write wins everywhere. The skills view is written by one follower task only
//! (`crate::sandbox::follow_catalog`); a change waits until the view holds its catalog
//! version before answering, so a disabled skill is gone from `/mnt/skills` by then.

mod detail;
mod error;
mod import;
mod mine;
mod personal;
mod preview;
mod replicas;

use std::fs::File;
use std::sync::Arc;

use antler_protocol::skills::{InstallResult, Skill, SkillCategory, SkillOrigin};
use antler_sandbox::SandboxProvider;
use antler_sandbox::view::SkillsView;
use antler_skills::Catalog;
use antler_skills::catalog::States;
use antler_skills::install::Installer;
use antler_store::Store;
use tokio::sync::{Mutex, watch};

pub use error::SkillOpError;
pub use import::{ImportOptions, ImportSettings, UpdateOutcome, UpdateReport};
pub(crate) use personal::{PersonalCatalogs, adopt_personal_files};

// The HTTP layer serves the listing from a snapshot, checks names in paths with the
// catalog's own rule and maps the installer's and importer's errors to statuses.
pub use antler_skills::Snapshot;
pub use antler_skills::import::ImportError;
pub use antler_skills::install::InstallError;
pub use antler_skills::name::{MAX_USABLE_NAME_LEN, check_usable_name};

use crate::identity::Caller;

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
    /// Every person's own skills.
    personal: Arc<PersonalCatalogs>,
    /// The sandboxes, told when someone's personal skills change.
    sandbox: Arc<dyn SandboxProvider>,
    /// Bounds and scratch space of imports from Git.
    imports: ImportSettings,
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
    #[expect(clippy::too_many_arguments, reason = "wired once, in App::start")]
    pub(crate) fn new(
        store: Store,
        catalog: Arc<Catalog>,
        installer: Installer,
        view: Arc<SkillsView>,
        synced: Option<watch::Receiver<u64>>,
        instance: String,
        personal: Arc<PersonalCatalogs>,
        sandbox: Arc<dyn SandboxProvider>,
        imports: ImportSettings,
    ) -> Self {
        SkillsService {
            store,
            catalog,
            installer: Arc::new(installer),
            view,
            synced,
            instance,
            writes: Mutex::new(()),
            personal,
            sandbox,
            imports,
        }
    }

    /// The shared catalog's current snapshot (cheap; never blocks on a rescan).
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.catalog.snapshot()
    }

    /// What `caller` sees: the shared catalog with their personal skills laid over it.
    pub async fn snapshot_for(&self, caller: &Caller) -> Result<Arc<Snapshot>, SkillOpError> {
        self.snapshot_of(caller.owner()).await
    }

    async fn snapshot_of(&self, owner: &str) -> Result<Arc<Snapshot>, SkillOpError> {
        self.personal.overlay(owner, self.catalog.snapshot()).await
    }

    /// The catalog itself (for the run manager and the file watcher).
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// Enables or disables one of the skills `caller` sees; `category` is needed when the
    /// name is in more than one. Shared skills are the admins' to change; personal ones
    /// their owner's. Answers the skill as it now is, once the sandboxes show the change.
    pub async fn set_enabled(
        &self,
        caller: &Caller,
        name: &str,
        category: Option<SkillCategory>,
        enabled: bool,
    ) -> Result<Skill, SkillOpError> {
        let found = self
            .snapshot_for(caller)
            .await?
            .find(name, category)?
            .0
            .category;
        if found == SkillCategory::User {
            return self.set_personal(caller, name, enabled).await;
        }
        require_admin(caller)?;
        self.set_shared(name, category, enabled).await
    }

    async fn set_shared(
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

    /// Where `caller` installs when asking for `category`: `custom` (admins only) or `user`
    /// (a personal skill); by default `custom` for admins and `user` for everyone else.
    pub fn install_target(
        &self,
        caller: &Caller,
        category: Option<SkillCategory>,
    ) -> Result<SkillCategory, SkillOpError> {
        let category = category.unwrap_or(if caller.is_admin() {
            SkillCategory::Custom
        } else {
            SkillCategory::User
        });
        match category {
            SkillCategory::User => Ok(category),
            SkillCategory::Custom => require_admin(caller).map(|()| category),
            SkillCategory::Public => Err(SkillOpError::Invalid(
                "public skills ship with the server; install into 'custom' or 'user'".into(),
            )),
        }
    }

    /// Installs the archive in `file` for `caller` into `category` (see
    /// [`SkillsService::install_target`]).
    pub async fn install_as(
        &self,
        caller: &Caller,
        file: File,
        overwrite: bool,
        enable: bool,
        category: Option<SkillCategory>,
    ) -> Result<InstallResult, SkillOpError> {
        match self.install_target(caller, category)? {
            SkillCategory::User => self.install_personal(caller, file, overwrite, enable).await,
            _ => self.install(file, overwrite, enable).await,
        }
    }

    /// Installs the `.skill` archive in `file` as a custom skill, enabled or not, and answers
    /// it as listed.
    pub async fn install(
        &self,
        file: File,
        overwrite: bool,
        enable: bool,
    ) -> Result<InstallResult, SkillOpError> {
        self.install_recorded(file, overwrite, enable, None).await
    }

    /// [`SkillsService::install`], recording where the skill was imported from.
    async fn install_recorded(
        &self,
        file: File,
        overwrite: bool,
        enable: bool,
        origin: Option<SkillOrigin>,
    ) -> Result<InstallResult, SkillOpError> {
        let installer = self.installer.clone();
        let installed = tokio::task::spawn_blocking(move || {
            installer.install_from(&file, overwrite, origin.as_ref())
        })
        .await??;
        {
            let _writing = self.writes.lock().await;
            self.store
                .skill_states
                .set(SkillCategory::Custom, &installed.name, enable)
                .await?;
            self.catalog
                .set_enabled(SkillCategory::Custom, &installed.name, enable);
        }
        let snapshot =
            refresh_one(&self.catalog, SkillCategory::Custom, installed.name.clone()).await?;
        self.changed(snapshot.version).await;
        // A delete of the same name may have run between the install and the refresh: it
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

    /// Deletes one of the skills `caller` sees (kept restorable in history): a custom skill
    /// (admins) or the caller's personal one. Without `category`, the name must be one of
    /// the two only.
    pub async fn delete_as(
        &self,
        caller: &Caller,
        name: &str,
        category: Option<SkillCategory>,
    ) -> Result<(), SkillOpError> {
        let category = match category {
            Some(c) => c,
            None => {
                let snapshot = self.snapshot_for(caller).await?;
                let mine = snapshot.find(name, Some(SkillCategory::User)).is_ok();
                let shared = snapshot.find(name, Some(SkillCategory::Custom)).is_ok();
                match (mine, shared) {
                    (true, true) => {
                        return Err(SkillOpError::Ambiguous(
                            name.to_string(),
                            vec![SkillCategory::Custom, SkillCategory::User],
                        ));
                    }
                    (true, false) => SkillCategory::User,
                    _ => SkillCategory::Custom,
                }
            }
        };
        match category {
            SkillCategory::User => self.delete_personal(caller, name).await,
            SkillCategory::Custom => {
                require_admin(caller)?;
                self.delete(name).await
            }
            SkillCategory::Public => Err(SkillOpError::ReadOnly(name.to_string())),
        }
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
        let removed = relative.clone();
        tokio::task::spawn_blocking(move || installer.delete(&owned, &relative)).await??;
        {
            let _writing = self.writes.lock().await;
            self.store
                .skill_states
                .remove(SkillCategory::Custom, name)
                .await?;
            self.catalog.forget_state(SkillCategory::Custom, name);
        }
        let snapshot = refresh_one(&self.catalog, SkillCategory::Custom, removed).await?;
        self.changed(snapshot.version).await;
        tracing::info!(skill.name = %name, "custom skill deleted");
        Ok(())
    }

    /// Rescans the skills directory and re-reads enabled state from the database (personal
    /// catalogs are read again on their next use).
    pub async fn reload(&self) -> Result<Arc<Snapshot>, SkillOpError> {
        self.personal.forget(None);
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

/// Reads one skill folder of `catalog` again, off the async threads.
async fn refresh_one(
    catalog: &Arc<Catalog>,
    category: SkillCategory,
    relative_path: String,
) -> Result<Arc<Snapshot>, SkillOpError> {
    let catalog = catalog.clone();
    Ok(
        tokio::task::spawn_blocking(move || catalog.refresh_skill(category, &relative_path))
            .await?,
    )
}

/// Shared skills are managed by admins.
fn require_admin(caller: &Caller) -> Result<(), SkillOpError> {
    if caller.is_admin() {
        Ok(())
    } else {
        Err(SkillOpError::Forbidden(
            "shared skills are managed by admins; install or change your own with category \"user\"".into(),
        ))
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

/// Runs see their owner's skills; when those cannot be read, the shared ones (logged).
#[async_trait::async_trait]
impl antler_agent_runtime::runs::SkillSource for SkillsService {
    async fn snapshot_for(&self, owner: &str) -> Arc<Snapshot> {
        match self.snapshot_of(owner).await {
            Ok(snapshot) => snapshot,
            Err(error) => {
                tracing::error!(%error, owner, "personal skills could not be read; the run sees the shared ones");
                self.catalog.snapshot()
            }
        }
    }
}
