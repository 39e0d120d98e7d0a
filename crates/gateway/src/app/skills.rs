//! Skill operations that combine the catalog, the installer and the database.

use std::fs::File;
use std::sync::Arc;

use antler_protocol::skills::{InstallFinding, InstallResult, SkillCategory};
use antler_skills::Snapshot;
use antler_skills::install::InstallError;
use axum::http::StatusCode;
use serde_json::json;

use super::{App, load_states};
use crate::error::AppError;

/// Refreshes this replica's catalog and view when another replica changed skills (shared
/// skills dir and database; the notice replaces a file watcher that cannot see network
/// storage).
pub(crate) fn follow_other_replicas(
    store: antler_store::Store,
    catalog: Arc<antler_skills::Catalog>,
    view: Arc<antler_sandbox::view::SkillsView>,
    me: String,
) -> tokio::task::JoinHandle<()> {
    let mut notices = store.bus.subscribe();
    tokio::spawn(async move {
        loop {
            match notices.recv().await {
                Ok(n) if n.topic == antler_store::Topic::Skills && n.payload != me => {
                    match refresh(&store, &catalog).await {
                        Ok(snapshot) => {
                            super::sandbox::sync_view(view.clone(), snapshot).await;
                            tracing::info!(from = %n.payload, "skills changed on another replica; catalog refreshed");
                        }
                        Err(error) => {
                            tracing::warn!(%error, "could not refresh skills after a change elsewhere")
                        }
                    }
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            }
        }
    })
}

/// Rescans the skills directory and re-reads states.
async fn refresh(
    store: &antler_store::Store,
    catalog: &Arc<antler_skills::Catalog>,
) -> anyhow::Result<Arc<Snapshot>> {
    let scan = catalog.clone();
    tokio::task::spawn_blocking(move || scan.rescan()).await?;
    let states = load_states(store).await?;
    Ok(catalog.replace_states(states))
}

impl App {
    /// Rescans the skills directory and re-reads enabled state from the database.
    pub async fn reload_skills(&self) -> anyhow::Result<Arc<Snapshot>> {
        let snapshot = refresh(&self.store, &self.skills).await?;
        self.sync_skills_view().await;
        self.skills_changed().await;
        Ok(snapshot)
    }

    /// Tells the other replicas that skills changed here.
    pub async fn skills_changed(&self) {
        if let Err(error) = self
            .store
            .bus
            .publish(antler_store::Topic::Skills, &self.instance)
            .await
        {
            tracing::warn!(%error, "could not notify other replicas of a skills change");
        }
    }

    async fn rescan(&self) -> Result<Arc<Snapshot>, tokio::task::JoinError> {
        let catalog = self.skills.clone();
        tokio::task::spawn_blocking(move || catalog.rescan()).await
    }

    /// Installs the archive in `file` as a custom skill, records its state and refreshes the
    /// catalog so the skill is listed at once.
    pub async fn install_archive(
        self: &Arc<Self>,
        file: File,
        overwrite: bool,
        enable: bool,
    ) -> Result<InstallResult, AppError> {
        let app = self.clone();
        let installed =
            tokio::task::spawn_blocking(move || app.installer.install(&file, overwrite))
                .await?
                .map_err(install_error)?;
        self.store
            .skill_states
            .set(SkillCategory::Custom, &installed.name, enable)
            .await?;
        self.skills
            .set_enabled(SkillCategory::Custom, &installed.name, enable);
        let snapshot = self.rescan().await?;
        self.sync_skills_view().await;
        self.skills_changed().await;
        let (skill, _) = snapshot
            .find(&installed.name, Some(SkillCategory::Custom))
            .map_err(|e| AppError::internal(anyhow::anyhow!("installed skill not listed: {e}")))?;
        tracing::info!(skill.name = %installed.name, replaced = installed.replaced, enabled = enable, "skill installed");
        Ok(InstallResult {
            skill: skill.clone(),
            replaced: installed.replaced,
            warnings: installed.warnings,
        })
    }

    /// Deletes a custom skill (kept restorable in history) and forgets its state.
    pub async fn delete_skill(self: &Arc<Self>, name: &str) -> Result<(), AppError> {
        let snapshot = self.skills.snapshot();
        let relative = match snapshot.find(name, Some(SkillCategory::Custom)) {
            Ok((skill, _)) => skill.relative_path.clone(),
            Err(_) if snapshot.find(name, Some(SkillCategory::Public)).is_ok() => {
                return Err(AppError::forbidden(format!(
                    "'{name}' is a public skill; public skills are read-only (disable it instead)"
                )));
            }
            Err(_) => {
                return Err(AppError::not_found(format!(
                    "no custom skill named '{name}'"
                )));
            }
        };
        let app = self.clone();
        let owned = name.to_string();
        tokio::task::spawn_blocking(move || app.installer.delete(&owned, &relative))
            .await?
            .map_err(install_error)?;
        self.store
            .skill_states
            .remove(SkillCategory::Custom, name)
            .await?;
        self.rescan().await?;
        self.sync_skills_view().await;
        self.skills_changed().await;
        tracing::info!(skill.name = %name, "custom skill deleted");
        Ok(())
    }
}

/// Maps installer failures to statuses: 400 invalid, 413 too large, 409 conflicts.
pub(crate) fn install_error(e: InstallError) -> AppError {
    match e {
        InstallError::NotAZip(why) => AppError::new(
            StatusCode::BAD_REQUEST,
            "invalid_archive",
            "the file is not a zip archive",
        )
        .with_details(json!({ "findings": [InstallFinding {
            rule: "not-a-zip".into(),
            path: String::new(),
            message: why,
        }] })),
        InstallError::Refused {
            findings,
            too_large,
        } => {
            let (status, code) = if too_large {
                (StatusCode::PAYLOAD_TOO_LARGE, "archive_too_large")
            } else {
                (StatusCode::BAD_REQUEST, "invalid_archive")
            };
            let summary = findings
                .iter()
                .take(3)
                .map(|f| f.message.as_str())
                .collect::<Vec<_>>()
                .join("; ");
            AppError::new(
                status,
                code,
                format!(
                    "the archive was refused ({} problem(s)): {summary}",
                    findings.len()
                ),
            )
            .with_details(json!({ "findings": findings }))
        }
        InstallError::Exists(name) => AppError::new(
            StatusCode::CONFLICT,
            "skill_exists",
            format!(
                "a custom skill named '{name}' is already installed; pass overwrite to replace it"
            ),
        )
        .with_details(json!({ "name": name })),
        InstallError::Busy(name) => AppError::new(
            StatusCode::CONFLICT,
            "install_in_progress",
            format!("another install or delete of '{name}' is in progress; try again"),
        )
        .with_details(json!({ "name": name })),
        InstallError::NotFound(name) => {
            AppError::not_found(format!("no custom skill named '{name}'"))
        }
        InstallError::Io(e) => AppError::internal(e),
    }
}
