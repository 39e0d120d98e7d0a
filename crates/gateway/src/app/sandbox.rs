//! Choosing the sandbox provider and keeping the skills view in step with the catalog.

use std::path::Path;
use std::sync::Arc;

use antler_sandbox::api::{Sandbox, SandboxInfo};
use antler_sandbox::config::{ProviderKind, SandboxConfig};
use antler_sandbox::docker::DockerProvider;
use antler_sandbox::local::LocalProvider;
use antler_sandbox::view::{ProjectedSkill, SkillsView};
use antler_sandbox::{SandboxError, SandboxProvider};
use antler_skills::Snapshot;
use async_trait::async_trait;
use tokio::sync::watch;

use super::App;

/// Starts the configured provider. `auto` falls back to local with a warning.
pub(crate) async fn start_provider(
    cfg: &SandboxConfig,
    data_dir: &Path,
    view: &Path,
    instance: &str,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Arc<dyn SandboxProvider>> {
    let local = || -> Arc<dyn SandboxProvider> {
        Arc::new(
            LocalProvider::new(data_dir, view, cfg.allow_host_bash, cfg.max_output_bytes)
                .with_command_timeout(std::time::Duration::from_secs(cfg.command_timeout_secs)),
        )
    };
    let docker = || async {
        let provider = DockerProvider::start(cfg.clone(), data_dir, view, instance).await?;
        tracing::info!(instance, "docker sandbox provider started");
        Ok::<Arc<dyn SandboxProvider>, SandboxError>(Arc::new(provider))
    };
    match cfg.provider {
        ProviderKind::Local => Ok(local()),
        ProviderKind::Docker => Ok(docker().await?),
        ProviderKind::Auto => {
            // The engine or the image is missing: the local provider, with a warning.
            match docker().await {
                Ok(provider) => Ok(provider),
                Err(e @ SandboxError::Unavailable(_)) => {
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
                Err(e) => Err(e.into()),
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
        if !self.one_shot {
            sync_view(self.skills_view.clone(), self.skills.snapshot()).await;
        }
    }

    /// Stops the sandboxes (bounded).
    pub async fn shutdown(&self) {
        self.sandbox.shutdown().await;
    }
}

/// Fills the view (in the background: copying a large catalog takes a while and the server
/// need not wait for it), marks it ready, then follows catalog changes (toggles, installs,
/// the file watcher) into it.
pub(crate) fn follow_catalog(
    app_view: Arc<SkillsView>,
    catalog: Arc<antler_skills::Catalog>,
    ready: watch::Sender<bool>,
) -> tokio::task::JoinHandle<()> {
    let mut changes = catalog.subscribe();
    tokio::spawn(async move {
        sync_view(app_view.clone(), catalog.snapshot()).await;
        ready.send_replace(true);
        while changes.changed().await.is_ok() {
            sync_view(app_view.clone(), catalog.snapshot()).await;
        }
    })
}

/// A provider whose sandboxes start only once the skills view has been filled, so that no
/// sandbox ever sees a partial `/mnt/skills`.
pub(crate) struct ViewGate {
    pub(crate) inner: Arc<dyn SandboxProvider>,
    pub(crate) ready: watch::Receiver<bool>,
}

#[async_trait]
impl SandboxProvider for ViewGate {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    async fn acquire(&self, thread_id: &str) -> Result<Arc<dyn Sandbox>, SandboxError> {
        let mut ready = self.ready.clone();
        if ready.wait_for(|r| *r).await.is_err() {
            return Err(SandboxError::Infra(
                "the skills view could not be prepared".into(),
            ));
        }
        self.inner.acquire(thread_id).await
    }

    async fn release(&self, thread_id: &str) {
        self.inner.release(thread_id).await;
    }

    async fn destroy(&self, thread_id: &str) -> Result<(), SandboxError> {
        self.inner.destroy(thread_id).await
    }

    async fn list(&self) -> Vec<SandboxInfo> {
        self.inner.list().await
    }

    async fn shutdown(&self) {
        self.inner.shutdown().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(dir: &Path, ready: watch::Receiver<bool>) -> ViewGate {
        ViewGate {
            inner: Arc::new(LocalProvider::new(dir, &dir.join("view"), false, 1024)),
            ready,
        }
    }

    #[tokio::test]
    async fn sandboxes_start_only_once_the_view_is_ready() {
        let dir = tempfile::tempdir().expect("temp dir");
        // Never ready (the filling task died): acquiring fails instead of starting a sandbox
        // with an empty /mnt/skills.
        let (tx, rx) = watch::channel(false);
        drop(tx);
        let err = gate(dir.path(), rx).acquire("t").await.err();
        assert!(matches!(err, Some(SandboxError::Infra(_))), "{err:?}");
        // Ready: acquiring goes through.
        let (tx, rx) = watch::channel(false);
        let gated = gate(dir.path(), rx);
        tx.send_replace(true);
        let sandbox = gated.acquire("t").await.expect("acquired");
        assert_eq!(sandbox.thread_id(), "t");
    }
}
