//! The application: configuration, storage, the sandbox provider and the services, built
//! once at startup and shared by every request and command.

use std::sync::Arc;
use std::time::Duration;

use antler_agent_runtime::runs::{RunDeps, RunManager};
use antler_sandbox::SandboxProvider;
use antler_sandbox::gate::ViewGate;
use antler_sandbox::view::SkillsView;
use antler_skills::Catalog;
use antler_skills::install::Installer;
use antler_skills::watch::WatchGuard;
use antler_store::Store;

use crate::accounts::AccountsService;
use crate::assistants::AssistantsService;
use crate::config::Config;
use crate::files::FilesService;
use crate::items::ItemsService;
use crate::mcp::McpService;
use crate::memory::MemoryService;
use crate::runs::RunsService;
use crate::secrets::SecretsService;
use crate::skills::{SkillsService, load_states};
use crate::threads::ThreadsService;

/// Everything the use-cases need. Built once by [`App::start`] (a server) or
/// [`App::start_one_shot`] (a command next to, or without, a running server).
pub struct App {
    /// The loaded configuration.
    pub config: Config,
    /// Accounts, sign-in and tokens.
    pub accounts: Arc<AccountsService>,
    /// Database repositories (for health checks and operator commands; use-cases go through
    /// the services).
    pub store: Store,
    /// Skills: the catalog, toggles, installs, deletes, reloads.
    pub skills: Arc<SkillsService>,
    /// Conversation threads and their directories.
    pub threads: ThreadsService,
    /// A thread's uploads.
    pub files: FilesService,
    /// Agent runs, their event streams and the threads' state.
    pub runs: RunsService,
    /// Assistants (custom agents).
    pub assistants: Arc<AssistantsService>,
    /// MCP servers.
    pub mcp: McpService,
    /// Long-term memory.
    pub memory: MemoryService,
    /// Named secrets for skills and agents.
    pub secrets: Arc<SecretsService>,
    /// Crons (scheduled runs).
    pub crons: Arc<crate::crons::CronsService>,
    /// Model usage reports and daily limits.
    pub usage: crate::usage::UsageService,
    /// The admin runs console.
    pub console: crate::console::ConsoleService,
    /// Feedback on answers (thumbs up or down) and its export.
    pub feedback: crate::feedback::FeedbackService,
    /// LangGraph store items (each person's JSON documents).
    pub items: ItemsService,
    /// Runs the agent's tools: Docker containers per thread, or host directories.
    pub sandbox: Arc<dyn SandboxProvider>,
    /// Degradations reported by `/health` (for example a file watcher that failed to start,
    /// which is only known a moment after the start).
    warnings: Arc<std::sync::Mutex<Vec<String>>>,
    /// The agent's web tools (their provider's health shows in `warnings`).
    web: Arc<antler_agent_runtime::tools::web::Web>,
    /// This server's id (container labels, run ownership, notices).
    pub instance: String,
    /// Keeps the skills file watcher running for the life of the app (set once it started).
    _watcher: Arc<std::sync::Mutex<Option<WatchGuard>>>,
    /// Background tasks stopped with the app (view follower, replica duties).
    _tasks: Vec<AbortOnDrop>,
    /// Holds `instance` so no other server sharing the data dir takes it (servers only).
    _claim: Option<antler_sandbox::instance::InstanceClaim>,
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
            .field("instance", &self.instance)
            .finish_non_exhaustive()
    }
}

impl App {
    /// Prepares directories, opens the database (applying migrations), scans skills, starts
    /// the file watcher, the sandbox provider and the run manager's duties.
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
        antler_agent_runtime::telemetry::set_record_content(config.telemetry.record_content);
        std::fs::create_dir_all(&config.data_dir)?;
        std::fs::create_dir_all(config.skills_dir.join("custom"))?;
        std::fs::create_dir_all(config.data_dir.join("tmp"))?;
        let store = Store::open(
            &config.database_location()?,
            config.database.max_connections,
        )
        .await?;
        let states = load_states(&store).await?;
        // Changes from this moment on are caught up once the watcher runs; a little earlier,
        // because file times come from a coarse clock.
        let scanned_from = std::time::SystemTime::now() - Duration::from_millis(50);
        let dir = config.skills_dir.clone();
        let limits = config.skills.limits();
        let catalog = Arc::new(
            tokio::task::spawn_blocking(move || Catalog::load(&dir, limits, states)).await?,
        );
        let mut warnings = Vec::new();
        let shared_warnings = Arc::new(std::sync::Mutex::new(Vec::new()));
        let watcher = Arc::new(std::sync::Mutex::new(None));
        if config.skills.watch {
            // Registering a watch on every folder of a large catalog takes a while: the
            // server answers meanwhile.
            let (catalog, debounce) = (
                catalog.clone(),
                Duration::from_millis(config.skills.watch_debounce_ms),
            );
            let (slot, warned) = (watcher.clone(), shared_warnings.clone());
            crate::background::run("skills-watch-start", move || {
                let guard = start_watcher(catalog.clone(), debounce, &warned);
                if guard.is_some() && catalog.changed_since(scanned_from) {
                    // Something changed between the first scan and the watch.
                    catalog.rescan();
                }
                *lock(&slot) = guard;
            })?;
        }
        let snapshot = catalog.snapshot();
        tracing::info!(
            skills = snapshot.list.skills.len(),
            errors = snapshot.list.errors.len(),
            dir = %config.skills_dir.display(),
            "skills catalog loaded"
        );
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
        if serving {
            let (data, skills, me) = (
                config.data_dir.clone(),
                config.skills_dir.clone(),
                instance.clone(),
            );
            let removed =
                tokio::task::spawn_blocking(move || crate::leftovers::sweep(&data, &skills, &me))
                    .await?;
            if removed > 0 {
                tracing::warn!(removed, "leftovers of stopped processes were removed");
            }
        }
        // Uploads arriving (servers only: a one-shot command receives none).
        let scratch = config.data_dir.join("tmp").join(&instance);
        if serving {
            std::fs::create_dir_all(&scratch)?;
        }
        let view =
            Arc::new(tokio::task::spawn_blocking(move || SkillsView::open(&view_root)).await??);
        let (synced_tx, synced) = tokio::sync::watch::channel(0);
        let mut tasks = Vec::new();
        if serving {
            tasks.push(AbortOnDrop(crate::sandbox::follow_catalog(
                view.clone(),
                catalog.clone(),
                synced_tx,
            )));
        }
        let personal = Arc::new(crate::skills::PersonalCatalogs::new(
            config.data_dir.join("users"),
            limits,
            config.skills.install.limits(),
            instance.clone(),
            store.clone(),
        ));
        let sandbox: Arc<dyn SandboxProvider> = Arc::new(ViewGate::new(
            crate::sandbox::start_provider(
                &config.sandbox,
                &config.data_dir,
                view.root(),
                &instance,
                personal.clone(),
                &mut warnings,
            )
            .await?,
            synced.clone(),
        ));
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
        let skills = Arc::new(SkillsService::new(
            store.clone(),
            catalog,
            Installer::new(&config.skills_dir, config.skills.install.limits())
                .with_owner(&instance),
            view,
            serving.then_some(synced),
            instance.clone(),
            personal,
            sandbox.clone(),
            crate::skills::ImportSettings::new(
                config.skills.import.limits(),
                config.skills.install.limits(),
                scratch.join("imports"),
            )
            .with_file_roots(config.skills.import.allowed_file_roots.clone()),
        ));
        // Stdio MCP servers work in their own folders under the instance's data.
        let hub = antler_mcp::McpHub::new(Arc::new(antler_mcp::client::RmcpConnector::new(
            config.data_dir.join("mcp").join(&instance),
        )));
        let mcp =
            McpService::start(hub, store.clone(), instance.clone(), &config.mcp.servers).await?;
        if serving {
            mcp.hub().start_eager();
            tasks.push(AbortOnDrop(mcp.follow_other_replicas()));
        }
        let memory = MemoryService::new(store.clone(), config.memory.clone());
        if serving {
            let model = crate::memory::extraction_model(&config, &models).cloned();
            if let Some(task) = memory.start_extraction(model, &instance) {
                tasks.push(AbortOnDrop(task));
            }
        }
        let secrets = Arc::new(
            SecretsService::new(
                store.secrets.clone(),
                std::env::var(crate::secrets::KEY_VAR).ok().as_deref(),
            )
            .map_err(|e| anyhow::anyhow!(e))?,
        );
        secrets.reload().await;
        if let Some(warning) = secrets.warning().await {
            warnings.push(warning);
        }
        let web = Arc::new(
            antler_agent_runtime::tools::web::Web::new(&config.web.tools())
                .map_err(|e| anyhow::anyhow!("configuration: {e}"))?,
        );
        let manager = RunManager::new(RunDeps {
            store: store.clone(),
            skills: skills.clone(),
            sandbox: sandbox.clone(),
            cfg: config.agent.clone(),
            models,
            prompt_budget: config.skills.prompt_budget_chars,
            instance: instance.clone(),
            mcp: Some(mcp.hub().clone()),
            mcp_search: config.mcp.tool_search.clone(),
            memory: Some(crate::memory::source(&memory)),
            memory_tools: config.memory.tools,
            secrets: Some(secrets.clone() as Arc<dyn antler_agent_runtime::secrets::SecretSource>),
            web: Some(web.clone()),
        });
        let threads = ThreadsService::new(
            store.clone(),
            config.data_dir.clone(),
            manager.clone(),
            sandbox.clone(),
        );
        if serving {
            let recovered = manager.recover().await?;
            if recovered > 0 {
                tracing::warn!(
                    recovered,
                    "runs left running by the previous process were marked interrupted"
                );
            }
            tasks.extend(manager.start_background().into_iter().map(AbortOnDrop));
            tasks.push(AbortOnDrop(crate::run_requests::sweep_every(
                threads.clone(),
                Duration::from_secs(config.threads.sweep_temporary_after_secs),
            )));
            tasks.push(AbortOnDrop(skills.follow_other_replicas()));
        }
        let accounts = Arc::new(
            AccountsService::new(store.clone(), config.auth.clone())
                .with_users_dir(config.data_dir.join("users")),
        );
        if config.auth.mode == antler_protocol::auth::AuthMode::None {
            warnings.push(
                "authentication is off (auth.mode: none): anyone who reaches this server can do everything".into(),
            );
        } else if serving {
            // Data of an earlier single-user (auth.mode: none) period joins the first admin's.
            accounts.adopt_local_data().await?;
            tasks.push(AbortOnDrop(accounts.follow_revocations()));
        }
        let assistants = Arc::new(AssistantsService::new(
            store.clone(),
            crate::assistants::Known {
                models: manager.model_names(),
                tools: manager.tool_names(),
            },
        ));
        let usage = crate::usage::UsageService::new(store.clone(), config.usage.clone());
        let crons = Arc::new(crate::crons::CronsService::new(
            store.clone(),
            RunsService::new(
                store.clone(),
                manager.clone(),
                assistants.clone(),
                config.threads.clone(),
            )
            .with_usage(usage.clone()),
            threads.clone(),
            assistants.clone(),
            config.crons.clone(),
        ));
        if serving && config.crons.enabled {
            tasks.push(AbortOnDrop(crons.start_scheduler(instance.clone())));
        }
        Ok(App {
            crons,
            accounts,
            files: FilesService::new(scratch, sandbox.file_access())
                .with_converter(crate::files::convert::Converter::new(sandbox.clone())),
            threads,
            runs: RunsService::new(
                store.clone(),
                manager,
                assistants.clone(),
                config.threads.clone(),
            )
            .with_usage(usage.clone()),
            usage,
            console: crate::console::ConsoleService::new(store.clone()),
            feedback: crate::feedback::FeedbackService::new(store.clone()),
            mcp,
            memory,
            secrets,
            items: ItemsService::new(store.items.clone()),
            assistants,
            skills,
            store,
            sandbox,
            warnings: {
                lock(&shared_warnings).extend(warnings);
                shared_warnings
            },
            instance,
            config,
            _watcher: watcher,
            _tasks: tasks,
            _claim: claim,
            web,
        })
    }

    /// Degradations reported by `/health`.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = lock(&self.warnings).clone();
        warnings.extend(self.web.warning());
        warnings
    }

    /// Stops the sandboxes (bounded).
    pub async fn shutdown(&self) {
        self.mcp.hub().shutdown().await;
        self.sandbox.shutdown().await;
    }
}

/// Starts the skills file watcher; a failure is a warning on `/health`, not a stop.
fn start_watcher(
    catalog: Arc<Catalog>,
    debounce: Duration,
    warnings: &std::sync::Mutex<Vec<String>>,
) -> Option<WatchGuard> {
    match antler_skills::watch::watch(catalog, debounce) {
        Ok(guard) => Some(guard),
        Err(error) => {
            tracing::warn!(%error, "skills file watcher failed to start; use POST /api/skills/reload after changes");
            lock(warnings).push(format!(
                "skills file watcher is not running ({error}); changes on disk need POST /api/skills/reload"
            ));
            None
        }
    }
}

/// A poisoned lock only means a thread panicked while holding it; the value is whole.
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
