//! The Docker provider (bollard only, never the docker CLI): one hardened container per
//! thread, a warm pool, a hard cap on containers, an idle reaper that never touches a busy
//! container, crash reconciliation by label, and bounded shutdown.

pub mod admin;
pub mod doctor;
mod exec;
mod lifecycle;
mod pool;
mod sandbox;
pub mod spec;
mod stdio;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use antler_protocol::health::SandboxImage;
use async_trait::async_trait;
use bollard::Docker;
use tokio::sync::{Mutex, Notify, OwnedSemaphorePermit, Semaphore};

pub use sandbox::DockerSandbox;

use crate::access::FileAccess;
use crate::api::{Sandbox, SandboxInfo, SandboxProvider};
use crate::config::{SandboxConfig, parse_user};
use crate::error::SandboxError;
use crate::personal::{PersonalMount, PersonalSkills, PersonalSource};

/// A started container not yet given to a thread.
struct Warm {
    container_id: String,
    slot: PathBuf,
    /// Its `/mnt/skills/user`, filled when the container is given to a thread.
    personal: Option<Arc<PersonalMount>>,
    /// Its egress proxy (`allowlist` servers), given the thread's rules when taken.
    egress: Option<Arc<crate::egress::Endpoint>>,
    permit: OwnedSemaphorePermit,
}

struct Inner {
    docker: Docker,
    cfg: SandboxConfig,
    /// The server's network rules (warm containers start under them).
    server_rules: crate::egress::Rules,
    /// The image new containers start from, as it was at start.
    image: SandboxImage,
    data_dir: PathBuf,
    skills_view: PathBuf,
    instance: String,
    user: (u32, u32),
    /// How files the server writes for a thread are made usable by the sandbox user.
    access: FileAccess,
    permits: Arc<Semaphore>,
    bound: Mutex<HashMap<String, Arc<DockerSandbox>>>,
    warm: Mutex<Vec<Warm>>,
    locks: std::sync::Mutex<HashMap<String, Arc<Mutex<()>>>>,
    replenish: Notify,
    shutting_down: AtomicBool,
    /// Whether every container of `instance` is this provider's to remove.
    owns_label: bool,
    /// Where each owner's personal skills come from, when they are shown.
    personal: Option<PersonalSource>,
}

/// Docker-backed sandboxes.
pub struct DockerProvider {
    inner: Arc<Inner>,
    replenisher: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
    reaper: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl std::fmt::Debug for DockerProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DockerProvider")
            .field("instance", &self.inner.instance)
            .finish_non_exhaustive()
    }
}

/// Connects to the engine named by the configuration (or the environment's default).
pub fn connect(cfg: &SandboxConfig) -> Result<Docker, SandboxError> {
    let unavailable = |e: bollard::errors::Error| SandboxError::Unavailable(format!("docker: {e}"));
    match cfg.docker.host.as_deref().filter(|h| !h.is_empty()) {
        None => Docker::connect_with_defaults().map_err(unavailable),
        Some(h) if h.starts_with("unix://") || h.starts_with('/') => Docker::connect_with_socket(
            h.trim_start_matches("unix://"),
            120,
            bollard::API_DEFAULT_VERSION,
        )
        .map_err(unavailable),
        Some(h) => {
            Docker::connect_with_http(h, 120, bollard::API_DEFAULT_VERSION).map_err(unavailable)
        }
    }
}

/// The label naming which of the project's images (`slim`, `full`) an image is.
pub const LABEL_VARIANT: &str = "antler.sandbox.variant";

/// The label saying in a line what an image holds.
pub const LABEL_CONTENTS: &str = "antler.sandbox.contents";

/// Whether the engine answers and the image exists; `Err` says which is missing. `Ok`
/// describes the image.
pub async fn check(docker: &Docker, image: &str) -> Result<SandboxImage, SandboxError> {
    tokio::time::timeout(Duration::from_secs(3), docker.ping())
        .await
        .map_err(|_| SandboxError::Unavailable("docker: the engine does not answer".into()))?
        .map_err(|e| SandboxError::Unavailable(format!("docker: {e}")))?;
    let found = docker.inspect_image(image).await.map_err(|_| {
        SandboxError::Unavailable(format!(
            "docker: image {image} not found; build it with `make sandbox-image`"
        ))
    })?;
    let mut labels = found.config.and_then(|c| c.labels).unwrap_or_default();
    Ok(SandboxImage {
        name: image.to_string(),
        id: found.id.unwrap_or_default(),
        variant: labels.remove(LABEL_VARIANT),
        contents: labels.remove(LABEL_CONTENTS),
        size_bytes: found.size.and_then(|s| u64::try_from(s).ok()).unwrap_or(0),
        created: found.created.filter(|c| !c.is_empty()),
    })
}

impl DockerProvider {
    /// Connects, removes what a previous run of this instance left behind, and starts the
    /// warm pool and the idle reaper.
    pub async fn start(
        cfg: SandboxConfig,
        data_dir: &Path,
        skills_view: &Path,
        instance: &str,
    ) -> Result<Self, SandboxError> {
        Self::start_with(cfg, data_dir, skills_view, instance, true, None).await
    }

    /// Like [`DockerProvider::start`]; `reconcile: false` leaves other containers of the
    /// label alone, at start and at shutdown (for a one-shot command next to a running
    /// server). With `personal`, each sandbox shows its owner's personal skills at
    /// `/mnt/skills/user`.
    pub async fn start_with(
        cfg: SandboxConfig,
        data_dir: &Path,
        skills_view: &Path,
        instance: &str,
        reconcile: bool,
        personal: Option<Arc<dyn PersonalSkills>>,
    ) -> Result<Self, SandboxError> {
        let docker = connect(&cfg)?;
        let image = check(&docker, &cfg.image).await?;
        let root = rustix::process::getuid().is_root();
        let user = cfg
            .docker
            .user
            .as_deref()
            .and_then(parse_user)
            .unwrap_or(if root {
                (1000, 1000)
            } else {
                (
                    rustix::process::getuid().as_raw(),
                    rustix::process::getgid().as_raw(),
                )
            });
        let server_rules = cfg
            .rules_for(None)
            .map_err(|m| SandboxError::Invalid(format!("sandbox.egress.{m}")))?;
        let inner = Arc::new(Inner {
            server_rules,
            permits: Arc::new(Semaphore::new(cfg.docker.max_containers)),
            docker,
            image,
            data_dir: data_dir.to_path_buf(),
            skills_view: skills_view.to_path_buf(),
            instance: instance.to_string(),
            user,
            access: FileAccess::for_sandbox_user(user.0, user.1),
            bound: Mutex::new(HashMap::new()),
            warm: Mutex::new(Vec::new()),
            locks: std::sync::Mutex::new(HashMap::new()),
            replenish: Notify::new(),
            shutting_down: AtomicBool::new(false),
            owns_label: reconcile,
            personal: personal.map(|source| {
                PersonalSource::new(source, crate::personal::personal_root(data_dir, instance))
            }),
            cfg,
        });
        if reconcile {
            inner.reconcile().await?;
        }
        let provider = DockerProvider {
            replenisher: std::sync::Mutex::new(Some(tokio::spawn(pool::replenisher(
                inner.clone(),
            )))),
            reaper: std::sync::Mutex::new(Some(tokio::spawn(lifecycle::reaper(inner.clone())))),
            inner,
        };
        Ok(provider)
    }

    /// Warm containers ready now.
    pub async fn warm_ready(&self) -> usize {
        self.inner.warm.lock().await.len()
    }
}

impl Inner {
    fn short_instance(&self) -> String {
        self.instance
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(12)
            .collect()
    }

    fn thread_lock(&self, thread: &str) -> Arc<Mutex<()>> {
        let mut locks = self
            .locks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        locks.entry(thread.to_string()).or_default().clone()
    }

    /// Drops the per-thread lock of a thread whose sandbox went, unless someone holds it:
    /// the map stays as small as the set of live threads.
    fn forget_lock(&self, thread: &str) {
        let mut locks = self
            .locks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if locks.get(thread).is_some_and(|l| Arc::strong_count(l) == 1) {
            locks.remove(thread);
        }
    }
}

#[async_trait]
impl SandboxProvider for DockerProvider {
    fn kind(&self) -> &'static str {
        "docker"
    }

    async fn acquire_for(
        &self,
        thread_id: &str,
        with: crate::api::Acquire<'_>,
    ) -> Result<Arc<dyn Sandbox>, SandboxError> {
        let inner = &self.inner;
        let owner = with.owner;
        // The configured image is what warm containers run; another one starts cold.
        let image = with.image.filter(|i| *i != inner.cfg.image);
        let rules = match with.network {
            None => inner.server_rules.clone(),
            Some(agent) => inner.cfg.rules_for(Some(agent)).map_err(|m| {
                SandboxError::Invalid(format!("the agent's sandbox network policy: {m}"))
            })?,
        };
        if inner.shutting_down.load(Ordering::SeqCst) {
            return Err(SandboxError::Unavailable(
                "the server is shutting down".into(),
            ));
        }
        let lock = inner.thread_lock(thread_id);
        let _one_at_a_time = lock.lock().await;
        let existing = inner.bound.lock().await.get(thread_id).cloned();
        if let Some(sb) = existing {
            let broken = sb.broken.load(Ordering::SeqCst);
            let wanted = image.unwrap_or(&inner.cfg.image);
            // Another image or network mode (the agent's changed): replaced, unless a
            // command runs in it or another run holds it (the map and `sb` are the only
            // holders otherwise).
            let free = sb.busy.load(Ordering::SeqCst) == 0 && Arc::strong_count(&sb) <= 2;
            let other_mode = sb.mode != rules.mode();
            let other_image = (sb.image != wanted || other_mode) && free;
            if !broken && with.keep {
                // A server job: the container as it is, its rules untouched.
                return Ok(sb);
            }
            if !broken && other_mode && !free {
                // Another run holds it under another network policy: neither policy may
                // stand in for the other.
                return Err(SandboxError::Unavailable(format!(
                    "the conversation's sandbox is in use by a run with another network policy ({}); try again when it ends",
                    sb.mode.as_str()
                )));
            }
            if !broken && !other_image {
                if let Some(endpoint) = &sb.egress {
                    endpoint.set_rules(rules);
                }
                return Ok(sb);
            }
            if broken {
                tracing::warn!(
                    thread.id = thread_id,
                    "replacing a sandbox that failed to run a command"
                );
            } else {
                tracing::info!(thread.id = thread_id, from = %sb.image, to = wanted, network = rules.mode().as_str(), "replacing a sandbox for another image or network");
            }
            inner.bound.lock().await.remove(thread_id);
            inner.remove(&sb.container_id).await;
            sb.release_permit();
        }
        let warm = match image {
            None if rules.mode() == inner.server_rules.mode() => {
                inner.take_warm(thread_id, owner, rules.clone()).await
            }
            _ => None,
        };
        let sb = match warm {
            Some(sb) => sb,
            None => inner.cold(thread_id, owner, image, rules).await?,
        };
        inner
            .bound
            .lock()
            .await
            .insert(thread_id.to_string(), sb.clone());
        Ok(sb)
    }

    async fn refresh_personal(&self, owner: &str) -> Result<(), SandboxError> {
        let Some(personal) = &self.inner.personal else {
            return Ok(());
        };
        let mounts: Vec<_> = self
            .inner
            .bound
            .lock()
            .await
            .values()
            .filter_map(|sb| sb.personal.clone())
            .collect();
        personal.refresh_owner(mounts, owner).await
    }

    async fn release(&self, thread_id: &str) {
        if let Some(sb) = self.inner.bound.lock().await.get(thread_id)
            && let Ok(mut t) = sb.last_used.lock()
        {
            *t = Instant::now();
        }
    }

    async fn destroy(&self, thread_id: &str) -> Result<(), SandboxError> {
        let removed = self.inner.bound.lock().await.remove(thread_id);
        if let Some(sb) = removed {
            self.inner.remove(&sb.container_id).await;
            sb.release_permit();
            self.inner.replenish.notify_one();
        }
        self.inner.forget_lock(thread_id);
        Ok(())
    }

    async fn list(&self) -> Vec<SandboxInfo> {
        let mut out: Vec<SandboxInfo> = self
            .inner
            .bound
            .lock()
            .await
            .values()
            .map(|sb| SandboxInfo {
                thread_id: Some(sb.thread_id.clone()),
                id: sb.container_id.clone(),
                busy: sb.busy.load(Ordering::SeqCst),
                idle_secs: sb.idle().as_secs(),
            })
            .collect();
        out.extend(self.inner.warm.lock().await.iter().map(|w| SandboxInfo {
            thread_id: None,
            id: w.container_id.clone(),
            busy: 0,
            idle_secs: 0,
        }));
        out
    }

    async fn shutdown(&self) {
        let inner = &self.inner;
        inner.shutting_down.store(true, Ordering::SeqCst);
        let take = |m: &std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>| {
            m.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
        };
        if let Some(reaper) = take(&self.reaper) {
            reaper.abort();
        }
        let limit = Duration::from_secs(inner.cfg.docker.shutdown_timeout_secs);
        if let Some(replenisher) = take(&self.replenisher) {
            // Let a warm container being created finish, so it is removed below rather than
            // appearing after the removal.
            inner.replenish.notify_one();
            let _ = tokio::time::timeout(limit, replenisher).await;
        }
        let mut ids: Vec<String> = inner
            .bound
            .lock()
            .await
            .drain()
            .map(|(_, sb)| sb.container_id.clone())
            .collect();
        ids.extend(inner.warm.lock().await.drain(..).map(|w| w.container_id));
        let count = ids.len();
        let removal = async {
            futures::future::join_all(ids.iter().map(|id| inner.remove(id))).await;
            // A warm container being created when the replenisher stopped is found by label
            // (unless the label belongs to a server this provider only borrows it from).
            if inner.owns_label {
                let _ = inner.reconcile_containers().await;
            }
        };
        if tokio::time::timeout(limit, removal).await.is_err() {
            tracing::error!(
                count,
                "sandbox containers were not all removed in time; the next start removes them"
            );
        } else {
            tracing::info!(count, "sandbox containers removed");
        }
    }

    fn file_access(&self) -> crate::FileAccess {
        self.inner.access
    }

    fn image(&self) -> Option<SandboxImage> {
        Some(self.inner.image.clone())
    }
}
