//! Choosing the sandbox provider and keeping the skills view in step with the catalog.

use std::path::Path;
use std::sync::Arc;

use antler_sandbox::SandboxProvider;
use antler_sandbox::config::{ProviderKind, SandboxConfig};
use antler_sandbox::docker::{self, DockerProvider};
use antler_sandbox::local::LocalProvider;
use antler_sandbox::view::{ProjectedSkill, SkillsView};
use antler_skills::Snapshot;

use super::App;

/// Starts the configured provider. `auto` falls back to local with a warning.
pub(crate) async fn start_provider(
    cfg: &SandboxConfig,
    data_dir: &Path,
    view: &Path,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Arc<dyn SandboxProvider>> {
    let local = || -> Arc<dyn SandboxProvider> {
        Arc::new(LocalProvider::new(
            data_dir,
            view,
            cfg.allow_host_bash,
            cfg.max_output_bytes,
        ))
    };
    let instance = antler_sandbox::storage::instance_id(cfg.instance_id.as_deref(), data_dir)?;
    match cfg.provider {
        ProviderKind::Local => Ok(local()),
        ProviderKind::Docker => {
            let provider = DockerProvider::start(cfg.clone(), data_dir, view, &instance).await?;
            tracing::info!(instance, "docker sandbox provider started");
            Ok(Arc::new(provider))
        }
        ProviderKind::Auto => {
            let ready = match docker::connect(cfg) {
                Ok(client) => docker::check(&client, &cfg.image).await,
                Err(e) => Err(e),
            };
            match ready {
                Ok(()) => {
                    let provider =
                        DockerProvider::start(cfg.clone(), data_dir, view, &instance).await?;
                    tracing::info!(instance, "docker sandbox provider started");
                    Ok(Arc::new(provider))
                }
                Err(e) => {
                    let bash = if cfg.allow_host_bash {
                        "commands run on the host"
                    } else {
                        "commands are disabled"
                    };
                    let warning = format!(
                        "sandbox: Docker is not usable ({e}); using the local provider, {bash}"
                    );
                    tracing::warn!("{warning}");
                    warnings.push(warning);
                    Ok(local())
                }
            }
        }
    }
}

/// The enabled skills as the view should hold them.
pub(crate) fn wanted(snapshot: &Snapshot) -> Vec<ProjectedSkill> {
    snapshot
        .list
        .skills
        .iter()
        .filter(|s| s.enabled)
        .filter_map(|s| {
            let (_, loaded) = snapshot.find(&s.name, Some(s.category)).ok()?;
            Some(ProjectedSkill {
                category: s.category,
                relative_path: s.relative_path.clone(),
                source: loaded.dir.clone(),
            })
        })
        .collect()
}

/// Brings the view in line with a snapshot (blocking work on the blocking pool).
pub(crate) async fn sync_view(view: Arc<SkillsView>, snapshot: Arc<Snapshot>) {
    let result = tokio::task::spawn_blocking(move || view.sync(&wanted(&snapshot))).await;
    match result {
        Ok(Ok(report)) if report != Default::default() => {
            tracing::debug!(?report, "skills view updated");
        }
        Ok(Ok(_)) => {}
        Ok(Err(error)) => tracing::error!(%error, "skills view could not be updated"),
        Err(error) => tracing::error!(%error, "skills view task failed"),
    }
}

impl App {
    /// Makes the sandboxes' `/mnt/skills` match the catalog now.
    pub async fn sync_skills_view(&self) {
        sync_view(self.skills_view.clone(), self.skills.snapshot()).await;
    }

    /// Stops the sandboxes (bounded).
    pub async fn shutdown(&self) {
        self.sandbox.shutdown().await;
    }
}

/// Follows catalog changes (toggles, installs, the file watcher) into the view.
pub(crate) fn follow_catalog(
    app_view: Arc<SkillsView>,
    catalog: Arc<antler_skills::Catalog>,
) -> tokio::task::JoinHandle<()> {
    let mut changes = catalog.subscribe();
    tokio::spawn(async move {
        while changes.changed().await.is_ok() {
            sync_view(app_view.clone(), catalog.snapshot()).await;
        }
    })
}
