//! The run manager: creates runs (multitask strategies `reject`, `interrupt`, `enqueue`;
//! [`create`](super::create)), executes them one after another per thread
//! ([`execute`](super::execute), [`queue`](super::queue)), cancels them, and recovers after a
//! restart or a lost replica ([`replicas`](super::replicas)).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use antler_protocol::runs::{RunUsage, StopReason};
use antler_sandbox::SandboxProvider;
use antler_skills::{Catalog, Snapshot};
use antler_store::{RunRecord, Store};
use async_trait::async_trait;

use super::active::{ActiveRun, RunError};
use super::queue::ThreadQueue;
use crate::config::AgentConfig;
use crate::hooks::{Hook, pipeline};
use crate::model::ModelClient;
use crate::tools::ToolRegistry;

/// Everything the manager works with.
pub struct RunDeps {
    /// Persistence.
    pub store: Store,
    /// Skills: what each owner's runs see.
    pub skills: Arc<dyn SkillSource>,
    /// Sandboxes.
    pub sandbox: Arc<dyn SandboxProvider>,
    /// Agent limits.
    pub cfg: AgentConfig,
    /// Configured models (first is the default unless `cfg.default_model`).
    pub models: Vec<ModelClient>,
    /// Skills section budget.
    pub prompt_budget: usize,
    /// This server's id (stored with runs).
    pub instance: String,
    /// The MCP servers, when any are configured.
    pub mcp: Option<Arc<antler_mcp::McpHub>>,
    /// When MCP tools are deferred behind `tool_search`.
    pub mcp_search: antler_mcp::ToolSearchConfig,
    /// What runs remember about their person.
    pub memory: Option<Arc<dyn crate::memory::MemorySource>>,
    /// Memory tools for every run (an assistant's `memory_tools` wins).
    pub memory_tools: bool,
    /// The secrets runs may hand their commands, when the application keeps any.
    pub secrets: Option<Arc<dyn crate::secrets::SecretSource>>,
    /// The web tools, when the server offers any.
    pub web: Option<Arc<crate::tools::web::Web>>,
}

/// The skills a run of one owner sees: the shared catalog, plus the owner's personal skills
/// where the application has them.
#[async_trait]
pub trait SkillSource: Send + Sync {
    /// The snapshot for a run of `owner`.
    async fn snapshot_for(&self, owner: &str) -> Arc<Snapshot>;
}

/// A bare catalog: the same skills for everyone.
#[async_trait]
impl SkillSource for Catalog {
    async fn snapshot_for(&self, _owner: &str) -> Arc<Snapshot> {
        self.snapshot()
    }
}

/// How busy the run manager is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunLoad {
    /// Runs pending or running here.
    pub active: usize,
    /// Of those, runs waiting for an earlier run of their thread.
    pub waiting: usize,
}

/// The run manager.
pub struct RunManager {
    pub(super) deps: RunDeps,
    pub(super) hooks: Vec<Box<dyn Hook>>,
    pub(super) tools: ToolRegistry,
    /// The skills each person used lately (listed first in a prompt that cannot hold all).
    pub(super) recent: super::recent::RecentSkills,
    pub(super) active: Mutex<HashMap<String, Arc<ActiveRun>>>,
    pub(super) threads: Mutex<HashMap<String, Arc<ThreadQueue>>>,
    /// Subagent runs working here (cancelled by id like the others).
    pub(super) children: Arc<crate::agent::ChildRuns>,
    /// The writer of every run's events, started with the first run (on its runtime).
    pub(super) sink: std::sync::OnceLock<super::sink::EventSink>,
    /// Follow-up suggestions being written, by thread.
    pub(super) suggestions: crate::suggestions::Pending,
}

/// A poisoned lock only means another thread panicked mid-update; the maps stay usable.
pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl RunManager {
    /// A manager over `deps` with the built-in tools.
    pub fn new(deps: RunDeps) -> Arc<Self> {
        Self::with_tools(deps, ToolRegistry::builtin())
    }

    /// A manager whose runs have `tools` (besides each run's own: memory, `task`, MCP).
    pub fn with_tools(deps: RunDeps, tools: ToolRegistry) -> Arc<Self> {
        Arc::new(RunManager {
            deps,
            hooks: pipeline(),
            tools,
            recent: super::recent::RecentSkills::default(),
            active: Mutex::new(HashMap::new()),
            threads: Mutex::new(HashMap::new()),
            children: Arc::default(),
            sink: std::sync::OnceLock::new(),
            suggestions: crate::suggestions::Pending::default(),
        })
    }

    /// The writer of runs' events (started on first use).
    pub(super) fn sink(&self) -> super::sink::EventSink {
        self.sink
            .get_or_init(|| super::sink::EventSink::start(self.deps.store.runs.clone()))
            .clone()
    }

    /// Runs of this process: pending or running, and of those, waiting behind an earlier
    /// run of their thread (for the metrics).
    pub fn load(&self) -> RunLoad {
        let active = lock(&self.active).len();
        let waiting = lock(&self.threads)
            .values()
            .map(|q| lock(&q.runs).len().saturating_sub(1))
            .sum();
        RunLoad { active, waiting }
    }

    /// The dependencies.
    pub fn deps(&self) -> &RunDeps {
        &self.deps
    }

    /// Follow-up suggestions being written here (a thread's stream waits for its thread's).
    pub fn suggestions(&self) -> &crate::suggestions::Pending {
        &self.suggestions
    }

    /// The names of the tools runs may call.
    pub fn tool_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tools.names().into_iter().map(str::to_string).collect();
        // Known even while the server offers them not: an agent may name them beforehand.
        names.extend(
            [crate::tools::web::WEB_SEARCH, crate::tools::web::WEB_FETCH].map(String::from),
        );
        names
    }

    /// The names of the configured models.
    pub fn model_names(&self) -> Vec<String> {
        self.deps
            .models
            .iter()
            .map(|m| m.config().name.clone())
            .collect()
    }

    /// A run of this process, if it is still active.
    pub fn active(&self, run_id: &str) -> Option<Arc<ActiveRun>> {
        lock(&self.active).get(run_id).cloned()
    }

    /// The in-memory log of a run working in this process (a subagent's included).
    pub(crate) fn live_log(&self, run_id: &str) -> Option<Arc<super::log::EventLog>> {
        match self.active(run_id) {
            Some(run) => Some(run.log.clone()),
            None => self.children.log(run_id),
        }
    }

    /// Cancels an active run (here, or on another replica through the bus); `wait` returns
    /// once it has stopped.
    pub async fn cancel(
        &self,
        thread_id: &str,
        run_id: &str,
        wait: bool,
    ) -> Result<RunRecord, RunError> {
        let store = &self.deps.store;
        let record = store.runs.get(thread_id, run_id).await?.ok_or_else(|| {
            RunError::NotFound(format!("no run '{run_id}' in thread '{thread_id}'"))
        })?;
        if let Some(run) = self.active(run_id) {
            run.cancel(StopReason::Cancelled);
        } else if self.children.cancel(run_id) {
            // A subagent's run of this process.
        } else if record.status.is_active() {
            store
                .bus
                .publish(antler_store::Topic::RunCancel, run_id)
                .await?;
        } else {
            return Err(RunError::Conflict(format!(
                "run '{run_id}' is not active (status {})",
                record.status
            )));
        }
        if wait {
            self.wait_finished(thread_id, run_id).await;
        }
        Ok(store.runs.get(thread_id, run_id).await?.unwrap_or(record))
    }

    /// Whether the stored run is pending or running (on any replica).
    pub async fn run_is_active(&self, thread_id: &str, run_id: &str) -> bool {
        matches!(
            self.deps.store.runs.get(thread_id, run_id).await,
            Ok(Some(r)) if r.status.is_active()
        )
    }

    /// Resolves when the run has ended, wherever it runs.
    pub async fn wait_finished(&self, thread_id: &str, run_id: &str) {
        if let Some(run) = self.active(run_id) {
            run.finished().await;
            return;
        }
        let mut notices = self.deps.store.bus.subscribe();
        while self.run_is_active(thread_id, run_id).await {
            super::notices::stored_events(
                &mut notices,
                Some(&[run_id]),
                Duration::from_millis(500),
            )
            .await;
        }
    }

    /// Cancels every run of a thread and waits until they have stopped (before deleting it).
    pub async fn cancel_thread(&self, thread_id: &str) {
        let runs: Vec<Arc<ActiveRun>> = lock(&self.active)
            .values()
            .filter(|r| r.thread_id == thread_id)
            .cloned()
            .collect();
        for r in &runs {
            r.cancel(StopReason::Cancelled);
        }
        for r in runs {
            r.finished().await;
        }
    }

    /// Counters of a stored run.
    pub fn usage(r: &RunRecord) -> RunUsage {
        r.usage
    }
}
