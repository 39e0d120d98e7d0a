//! Application state shared by every request.

use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use antler_skills::Catalog;
use antler_skills::catalog::States;
use antler_skills::install::Installer;
use antler_skills::watch::WatchGuard;
use antler_store::Store;

use crate::config::Config;
use crate::files::etag::EtagCache;

mod sandbox;
mod skills;
pub(crate) use skills::install_error;
mod threads;

pub(crate) use threads::{stored_values, thread_json};

/// Everything a handler may need. Built once at startup.
pub struct App {
    /// The loaded configuration.
    pub config: Config,
    /// Database repositories.
    pub store: Store,
    /// The skills catalog (scan cache merged with enabled state).
    pub skills: Arc<Catalog>,
    /// Installs `.skill` archives into `custom/` and deletes custom skills.
    pub installer: Installer,
    /// Runs the agent's tools: Docker containers per thread, or host directories.
    pub sandbox: Arc<dyn antler_sandbox::SandboxProvider>,
    /// Runs: creation, execution, cancellation, event streams.
    pub runtime: Arc<antler_agent_runtime::runs::Runtime>,
    /// The enabled skills as sandboxes see them at `/mnt/skills`.
    pub skills_view: Arc<antler_sandbox::view::SkillsView>,
    /// Content hashes of served files, keyed by inode and modification time.
    pub etags: EtagCache,
    /// Degradations reported by `/health` (for example a file watcher that failed to start).
    pub warnings: Vec<String>,
    /// Keeps the skills file watcher running for the life of the app.
    _watcher: Option<WatchGuard>,
    /// This server's id (container labels, run ownership, notices).
    pub instance: String,
    /// Background tasks stopped with the app (view sync, replica duties).
    _tasks: Vec<AbortOnDrop>,
    /// Holds `instance` so no other server sharing the data dir takes it (servers only).
    _claim: Option<antler_sandbox::instance::InstanceClaim>,
    /// A one-shot command's app: no sandbox, no run duties, a throwaway skills view.
    one_shot: bool,
}

impl Drop for App {
    fn drop(&mut self) {
        if self.one_shot {
            self.skills_view.discard();
        }
    }
}

/// Stops a background task when the app goes away.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("config", &self.config)
            .field("skills", &self.skills)
            .finish_non_exhaustive()
    }
}

/// Cloneable handle to [`App`] used as axum state.
#[derive(Debug, Clone)]
pub struct AppState(pub Arc<App>);

impl Deref for AppState {
    type Target = App;
    fn deref(&self) -> &App {
        &self.0
    }
}

impl App {
    /// Prepares directories, opens the database (applying migrations), scans skills, starts
    /// the file watcher, the sandbox provider and the runtime's duties.
    pub async fn start(config: Config) -> anyhow::Result<App> {
        Self::start_with(config, true).await
    }

    /// The app for a one-shot command next to (or without) a running server: skills and
    /// the database only. It claims no instance id, starts no sandbox, and never touches
    /// runs, so a server sharing the data dir is left alone.
    pub async fn start_one_shot(mut config: Config) -> anyhow::Result<App> {
        config.skills.watch = false;
        config.sandbox.provider = antler_sandbox::config::ProviderKind::Local;
        Self::start_with(config, false).await
    }

    async fn start_with(config: Config, serving: bool) -> anyhow::Result<App> {
        std::fs::create_dir_all(&config.data_dir)?;
        std::fs::create_dir_all(config.skills_dir.join("custom"))?;
        let store = Store::open(
            &config.database_location()?,
            config.database.max_connections,
        )
        .await?;
        let states = load_states(&store).await?;
        let dir = config.skills_dir.clone();
        let limits = config.skills.limits();
        let catalog = Arc::new(
            tokio::task::spawn_blocking(move || Catalog::load(&dir, limits, states)).await?,
        );
        let mut warnings = Vec::new();
        let watcher = if config.skills.watch {
            match antler_skills::watch::watch(
                catalog.clone(),
                Duration::from_millis(config.skills.watch_debounce_ms),
            ) {
                Ok(guard) => Some(guard),
                Err(error) => {
                    tracing::warn!(%error, "skills file watcher failed to start; use POST /api/skills/reload after changes");
                    warnings.push(format!(
                        "skills file watcher is not running ({error}); changes on disk need POST /api/skills/reload"
                    ));
                    None
                }
            }
        } else {
            None
        };
        let snapshot = catalog.snapshot();
        tracing::info!(
            skills = snapshot.list.skills.len(),
            errors = snapshot.list.errors.len(),
            dir = %config.skills_dir.display(),
            "skills catalog loaded"
        );
        let installer = Installer::new(&config.skills_dir, config.skills.install.limits());
        std::fs::create_dir_all(config.data_dir.join("tmp"))?;
        let (instance, claim, view_root) = if serving {
            let claim = antler_sandbox::instance::claim(
                config.sandbox.instance_id.as_deref(),
                &config.data_dir,
            )?;
            let instance = claim.id().to_string();
            // One view per instance: replicas sharing a data dir each rebuild their own.
            let view_root = config.data_dir.join("skills-view").join(&instance);
            (instance, Some(claim), view_root)
        } else {
            let instance = format!("cli-{}", std::process::id());
            let view_root = config.data_dir.join("tmp").join(format!("view-{instance}"));
            (instance, None, view_root)
        };
        let skills_view = Arc::new(
            tokio::task::spawn_blocking(move || antler_sandbox::view::SkillsView::open(&view_root))
                .await??,
        );
        let (view_ready, ready) = tokio::sync::watch::channel(false);
        let view_task = serving
            .then(|| sandbox::follow_catalog(skills_view.clone(), catalog.clone(), view_ready));
        let provider: Arc<dyn antler_sandbox::SandboxProvider> = Arc::new(sandbox::ViewGate {
            inner: sandbox::start_provider(
                &config.sandbox,
                &config.data_dir,
                skills_view.root(),
                &instance,
                &mut warnings,
            )
            .await?,
            ready,
        });
        let models = config
            .models
            .iter()
            .cloned()
            .map(antler_agent_runtime::model::ModelClient::new)
            .collect::<Result<Vec<_>, _>>()?;
        if models.is_empty() {
            warnings.push(
                "no model is configured: set ANTLER_MODEL_BASE_URL, ANTLER_MODEL and OPENAI_API_KEY, or add models to the configuration".into(),
            );
        }
        let runtime =
            antler_agent_runtime::runs::Runtime::new(antler_agent_runtime::runs::RuntimeDeps {
                store: store.clone(),
                catalog: catalog.clone(),
                sandbox: provider.clone(),
                cfg: config.agent.clone(),
                models,
                prompt_budget: config.skills.prompt_budget_chars,
                instance: instance.clone(),
            });
        let mut tasks: Vec<AbortOnDrop> = view_task.into_iter().map(AbortOnDrop).collect();
        if serving {
            let recovered = runtime.recover().await?;
            if recovered > 0 {
                tracing::warn!(
                    recovered,
                    "runs left running by the previous process were marked interrupted"
                );
            }
            tasks.extend(runtime.start_background().into_iter().map(AbortOnDrop));
            tasks.push(AbortOnDrop(skills::follow_other_replicas(
                store.clone(),
                catalog.clone(),
                skills_view.clone(),
                instance.clone(),
            )));
        }
        Ok(App {
            config,
            store,
            skills: catalog,
            installer,
            sandbox: provider,
            runtime,
            skills_view,
            etags: EtagCache::default(),
            warnings,
            instance,
            _watcher: watcher,
            _tasks: tasks,
            _claim: claim,
            one_shot: !serving,
        })
    }

    /// Scratch space for uploads in flight (same filesystem as the data dir).
    pub fn tmp_dir(&self) -> std::path::PathBuf {
        self.config.data_dir.join("tmp")
    }
}

async fn load_states(store: &Store) -> Result<States, antler_store::StoreError> {
    Ok(store
        .skill_states
        .list()
        .await?
        .into_iter()
        .map(|s| ((s.category, s.name), s.enabled))
        .collect())
}
