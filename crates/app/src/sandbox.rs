//! Choosing the sandbox provider, and the one task that keeps the skills view in step with
//! the catalog.

use std::path::Path;
use std::sync::Arc;

use antler_protocol::egress::NetworkMode;
use antler_sandbox::config::{FALLBACK_IMAGE, ProviderKind, SandboxConfig};
use antler_sandbox::docker::DockerProvider;
use antler_sandbox::local::LocalProvider;
use antler_sandbox::personal::PersonalSkills;
use antler_sandbox::view::{ProjectedSkill, SkillRef, SkillsView};
use antler_sandbox::{SandboxError, SandboxProvider};
use antler_skills::{Catalog, Snapshot};
use tokio::sync::watch;

/// Starts the configured provider. `auto` falls back to local with a warning.
pub(crate) async fn start_provider(
    cfg: &SandboxConfig,
    data_dir: &Path,
    view: &Path,
    instance: &str,
    personal: Arc<dyn PersonalSkills>,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Arc<dyn SandboxProvider>> {
    let local = || -> Arc<dyn SandboxProvider> {
        Arc::new(
            LocalProvider::new(data_dir, view, cfg.allow_host_bash, cfg.max_output_bytes)
                .with_command_timeout(std::time::Duration::from_secs(cfg.command_timeout_secs))
                .with_process_records(antler_sandbox::host_procs::records_dir(data_dir, instance))
                .with_personal_skills(
                    personal.clone(),
                    antler_sandbox::personal::personal_root(data_dir, instance),
                ),
        )
    };
    let start = |cfg: SandboxConfig| {
        let personal = personal.clone();
        async move {
            let provider =
                DockerProvider::start_with(cfg, data_dir, view, instance, true, Some(personal))
                    .await?;
            tracing::info!(instance, "docker sandbox provider started");
            Ok::<Arc<dyn SandboxProvider>, SandboxError>(Arc::new(provider))
        }
    };
    // The provider, and a warning when it had to fall back to slim.
    let docker = async {
        match start(cfg.clone()).await {
            // The default (full) image was never built, slim was (`make test` builds only
            // slim): slim, said in /health.
            Err(SandboxError::Unavailable(missing)) if cfg.image_is_default() => {
                let slim = SandboxConfig {
                    image: FALLBACK_IMAGE.into(),
                    ..cfg.clone()
                };
                let provider = start(slim)
                    .await
                    .map_err(|_| SandboxError::Unavailable(missing.clone()))?;
                let warning = format!(
                    "sandbox: {missing}; using {FALLBACK_IMAGE}, which lacks most of what skills' scripts need"
                );
                tracing::warn!("{warning}");
                Ok((provider, Some(warning)))
            }
            other => other.map(|provider| (provider, None)),
        }
    };
    let (provider, fallback) = match cfg.provider {
        ProviderKind::Local => (local(), None),
        ProviderKind::Docker => docker.await?,
        ProviderKind::Auto => {
            // The engine or the image is missing: the local provider, with a warning.
            match docker.await {
                Ok(chosen) => chosen,
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
                    (local(), None)
                }
                Err(e) => return Err(e.into()),
            }
        }
    };
    warnings.extend(fallback);
    if provider.kind() == "local" && cfg.allow_host_bash && cfg.network_mode() != NetworkMode::None
    {
        // Host commands use the host's network: no policy can hold them.
        warnings.push(format!(
            "sandbox.network is {}, but the local provider runs commands on the host with its network: the policy applies only to Docker sandboxes",
            cfg.network_mode().as_str()
        ));
    }
    Ok(provider)
}

/// The enabled skills as the view should hold them.
pub(crate) fn wanted(snapshot: &Snapshot) -> Vec<ProjectedSkill> {
    snapshot
        .entries()
        .filter(|(s, _)| s.enabled)
        .map(|(s, loaded)| ProjectedSkill {
            category: s.category,
            relative_path: s.relative_path.clone(),
            source: loaded.dir.clone(),
            load_id: loaded.load_id,
        })
        .collect()
}

/// The only writer of the skills view: fills it (in the background: copying a large catalog
/// takes a while and the server need not wait), then follows every catalog change (toggles,
/// installs, the file watcher, other replicas) into it, one at a time and always from the
/// newest snapshot, so an older snapshot can never be applied last. After each sync it
/// records the catalog version the view now holds in `synced`: sandboxes start once it is
/// above 0, and a change's caller waits until it reaches the change's version.
pub(crate) fn follow_catalog(
    view: Arc<SkillsView>,
    catalog: Arc<Catalog>,
    synced: watch::Sender<u64>,
) -> tokio::task::JoinHandle<()> {
    let mut changes = catalog.subscribe();
    tokio::spawn(async move {
        // The first sync copies the whole catalog in: startup work, at lower priority.
        let mut first = true;
        loop {
            changes.borrow_and_update();
            let snapshot = catalog.snapshot();
            let version = snapshot.version;
            let target = view.clone();
            let sync = move || {
                target.sync_refs(snapshot.entries().filter(|(s, _)| s.enabled).map(
                    |(s, loaded)| SkillRef {
                        category: s.category,
                        relative_path: &s.relative_path,
                        source: &loaded.dir,
                        load_id: loaded.load_id,
                    },
                ))
            };
            let result = if std::mem::take(&mut first) {
                match crate::background::run("skills-view-fill", sync) {
                    Ok(answer) => answer.await.map_err(|e| e.to_string()),
                    Err(error) => Err(error.to_string()),
                }
            } else {
                tokio::task::spawn_blocking(sync)
                    .await
                    .map_err(|e| e.to_string())
            };
            match result {
                Ok(Ok(report)) if report != Default::default() => {
                    tracing::debug!(?report, version, "skills view updated");
                }
                Ok(Ok(_)) => {}
                // A skill deleted after this snapshot was taken: the delete's own catalog
                // change syncs again.
                Ok(Err(error)) if error.kind() == std::io::ErrorKind::NotFound => {
                    tracing::debug!(%error, "a skill vanished while the view was synced")
                }
                Ok(Err(error)) => tracing::error!(%error, "skills view could not be updated"),
                Err(error) => tracing::error!(%error, "skills view task failed"),
            }
            // Recorded after a failure too: waiting callers are released, the error is logged
            // and the next change tries again.
            synced.send_if_modified(|v| {
                let newer = version > *v;
                if newer {
                    *v = version;
                }
                newer
            });
            if changes.changed().await.is_err() {
                return;
            }
        }
    })
}
