//! The personal-skill use-cases: toggling, installing and deleting a person's own skills.
//! They touch only that person's catalog, state rows and sandboxes.

use std::fs::File;

use antler_protocol::skills::{InstallResult, Skill, SkillCategory};

use super::{SkillOpError, SkillsService};
use crate::identity::Caller;

impl SkillsService {
    pub(super) async fn set_personal(
        &self,
        caller: &Caller,
        name: &str,
        enabled: bool,
    ) -> Result<Skill, SkillOpError> {
        let owner = caller.owner();
        let personal = self.personal.of(owner).await?;
        {
            let _writing = self.writes.lock().await;
            self.store
                .skill_states
                .set_personal(owner, name, enabled)
                .await?;
            personal
                .catalog
                .set_enabled(SkillCategory::User, name, enabled);
        }
        tracing::info!(
            skill.name = name,
            skill.category = "user",
            enabled,
            "personal skill state changed"
        );
        self.personal_changed(owner).await;
        self.personal_skill(owner, name).await
    }

    pub(super) async fn install_personal(
        &self,
        caller: &Caller,
        file: File,
        overwrite: bool,
        enable: bool,
    ) -> Result<InstallResult, SkillOpError> {
        let owner = caller.owner();
        let personal = self.personal.of(owner).await?;
        let installer = personal.installer.clone();
        let installed =
            tokio::task::spawn_blocking(move || installer.install(&file, overwrite)).await??;
        {
            let _writing = self.writes.lock().await;
            self.store
                .skill_states
                .set_personal(owner, &installed.name, enable)
                .await?;
            personal
                .catalog
                .set_enabled(SkillCategory::User, &installed.name, enable);
        }
        super::refresh_one(
            &personal.catalog,
            SkillCategory::User,
            installed.name.clone(),
        )
        .await?;
        self.personal_changed(owner).await;
        let skill = self
            .personal_skill(owner, &installed.name)
            .await
            .map_err(|_| {
                SkillOpError::Conflict(format!(
                    "'{}' was installed, then deleted by a concurrent request",
                    installed.name
                ))
            })?;
        tracing::info!(skill.name = %installed.name, replaced = installed.replaced, enabled = enable, "personal skill installed");
        Ok(InstallResult {
            skill,
            replaced: installed.replaced,
            warnings: installed.warnings,
        })
    }

    pub(super) async fn delete_personal(
        &self,
        caller: &Caller,
        name: &str,
    ) -> Result<(), SkillOpError> {
        let owner = caller.owner();
        let personal = self.personal.of(owner).await?;
        let relative = personal
            .catalog
            .snapshot()
            .find(name, Some(SkillCategory::User))
            .map_err(|_| SkillOpError::NoPersonal(name.to_string()))?
            .0
            .relative_path
            .clone();
        let installer = personal.installer.clone();
        let owned = name.to_string();
        let removed = relative.clone();
        tokio::task::spawn_blocking(move || installer.delete(&owned, &relative)).await??;
        {
            let _writing = self.writes.lock().await;
            self.store.skill_states.remove_personal(owner, name).await?;
            personal.catalog.forget_state(SkillCategory::User, name);
        }
        super::refresh_one(&personal.catalog, SkillCategory::User, removed).await?;
        self.personal_changed(owner).await;
        tracing::info!(skill.name = %name, "personal skill deleted");
        Ok(())
    }

    /// One of `owner`'s personal skills as they see it listed.
    async fn personal_skill(&self, owner: &str, name: &str) -> Result<Skill, SkillOpError> {
        let snapshot = self.snapshot_of(owner).await?;
        Ok(snapshot.find(name, Some(SkillCategory::User))?.0.clone())
    }

    /// After a change to `owner`'s skills: their sandboxes show it before the answer goes
    /// out, and the other replicas are told.
    async fn personal_changed(&self, owner: &str) {
        if let Err(error) = self.sandbox.refresh_personal(owner).await {
            tracing::error!(%error, owner, "sandboxes could not show a personal skills change");
        }
        let notice = super::replicas::personal_notice(&self.instance, owner);
        if let Err(error) = self
            .store
            .bus
            .publish(antler_store::Topic::Skills, &notice)
            .await
        {
            tracing::warn!(%error, "could not notify other replicas of a personal skills change");
        }
    }
}
