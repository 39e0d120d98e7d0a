//! Containers: creating one for a thread, removing them, reconciling after a crash, and
//! reaping idle ones.

use std::path::Path;

use antler_protocol::egress::NetworkMode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bollard::query_parameters::{CreateContainerOptionsBuilder, RemoveContainerOptionsBuilder};
use tokio::sync::OwnedSemaphorePermit;

use super::admin;
use super::spec::{Binds, Net, container_body};
use super::{DockerSandbox, Inner};
use crate::egress::{self, Endpoint, Rules};
use crate::error::SandboxError;
use crate::files::HostFs;
use crate::paths::{LOCAL_OWNER, ThreadDirs};
use crate::personal::PersonalMount;
use crate::storage;

impl Inner {
    /// Removes every container labelled with this instance (left by a crash) and slots that
    /// no thread uses.
    pub(super) async fn reconcile(&self) -> Result<(), SandboxError> {
        self.reconcile_containers().await?;
        let data = self.data_dir.clone();
        let instance = self.instance.clone();
        let removed = tokio::task::spawn_blocking(move || {
            crate::personal::collect_garbage(&data, &instance)?;
            // Endpoints of containers a crash left behind (removed above).
            let _ = std::fs::remove_dir_all(egress::root(&data, &instance));
            storage::collect_garbage(&data, &instance)
        })
        .await
        .map_err(|e| SandboxError::Infra(e.to_string()))?
        .map_err(|e| SandboxError::Infra(format!("cannot clean sandbox slots: {e}")))?;
        if removed > 0 {
            tracing::info!(removed, "removed unused sandbox slots");
        }
        Ok(())
    }

    /// Removes every container labelled with this instance.
    pub(super) async fn reconcile_containers(&self) -> Result<(), SandboxError> {
        let stale = admin::list(&self.docker, Some(&self.instance)).await?;
        let ids: Vec<String> = stale
            .into_iter()
            .map(|c| c.id)
            .filter(|id| !id.is_empty())
            .collect();
        if !ids.is_empty() {
            tracing::warn!(count = ids.len(), instance = %self.instance, "removing sandbox containers left by a previous run");
        }
        futures::future::join_all(ids.iter().map(|id| self.remove(id))).await;
        Ok(())
    }

    pub(super) async fn remove(&self, id: &str) {
        let options = RemoveContainerOptionsBuilder::new()
            .force(true)
            .v(true)
            .build();
        match self.docker.remove_container(id, Some(options)).await {
            Ok(())
            | Err(bollard::errors::Error::DockerResponseServerError {
                status_code: 404 | 409,
                ..
            }) => {}
            Err(e) => {
                tracing::warn!(container = id, error = %e, "could not remove sandbox container")
            }
        }
    }

    /// Creates and starts a container whose user-data mounts come from `user_data`.
    pub(super) async fn create(
        &self,
        name: &str,
        user_data: &Path,
        personal: Option<&PersonalMount>,
        thread: Option<&str>,
        image: Option<&str>,
        network: &Network,
    ) -> Result<String, SandboxError> {
        let _creating = Creating::new();
        let personal_dir = personal.map(PersonalMount::dir);
        let net = match (network.rules.mode(), &network.endpoint) {
            (NetworkMode::Allowlist, Some(endpoint)) => Net::Proxied(endpoint.dir()),
            (NetworkMode::Open, _) => Net::Open(self.cfg.open_network()),
            _ => Net::None,
        };
        let mut body = container_body(
            &self.cfg,
            &Binds {
                user_data,
                skills_view: &self.skills_view,
                personal: personal_dir.as_deref(),
                network: net,
            },
            self.user,
            &self.instance,
            thread,
        );
        if let Some(image) = image {
            body.image = Some(image.to_string());
        }
        let options = CreateContainerOptionsBuilder::new().name(name).build();
        let created = match self
            .docker
            .create_container(Some(options.clone()), body.clone())
            .await
        {
            Ok(c) => c,
            Err(bollard::errors::Error::DockerResponseServerError {
                status_code: 409, ..
            }) => {
                // A container of that name survived an earlier failure: replace it.
                self.remove(name).await;
                self.docker
                    .create_container(Some(options), body)
                    .await
                    .map_err(|e| SandboxError::Infra(format!("docker create: {e}")))?
            }
            Err(e) => return Err(SandboxError::Infra(format!("docker create: {e}"))),
        };
        if let Err(e) = self
            .docker
            .start_container(
                &created.id,
                None::<bollard::query_parameters::StartContainerOptions>,
            )
            .await
        {
            self.remove(&created.id).await;
            return Err(SandboxError::Infra(format!("docker start: {e}")));
        }
        Ok(created.id)
    }

    /// The network of a new container under `rules`: an `allowlist` one gets its endpoint.
    pub(super) fn network(&self, rules: Rules) -> Result<Network, SandboxError> {
        let endpoint = if rules.mode() == NetworkMode::Allowlist {
            let id = uuid::Uuid::new_v4().simple().to_string();
            let dir = egress::root(&self.data_dir, &self.instance).join(&id[..16]);
            let endpoint = Endpoint::bind(dir, rules.clone()).map_err(|e| {
                SandboxError::Infra(format!("cannot start the sandbox's egress proxy: {e}"))
            })?;
            Some(endpoint)
        } else {
            None
        };
        Ok(Network { rules, endpoint })
    }

    pub(super) fn sandbox(
        &self,
        thread: &str,
        container_id: String,
        image: &str,
        network: Network,
        personal: Option<Arc<PersonalMount>>,
        permit: OwnedSemaphorePermit,
    ) -> Arc<DockerSandbox> {
        let dirs = ThreadDirs::new(&self.data_dir, LOCAL_OWNER, thread);
        let mut fs = HostFs::new(
            dirs.user_data().to_path_buf(),
            self.skills_view.clone(),
            self.access,
        );
        if let Some(mount) = &personal {
            fs = fs.with_personal(mount.dir());
        }
        Arc::new(DockerSandbox {
            thread_id: thread.to_string(),
            image: image.to_string(),
            mode: network.rules.mode(),
            egress: network.endpoint,
            container_id,
            docker: self.docker.clone(),
            fs,
            personal,
            max_output: self.cfg.max_output_bytes,
            max_timeout: Duration::from_secs(self.cfg.command_timeout_secs),
            busy: AtomicUsize::new(0),
            broken: AtomicBool::new(false),
            last_used: std::sync::Mutex::new(Instant::now()),
            permit: std::sync::Mutex::new(Some(permit)),
        })
    }

    pub(super) async fn cold(
        &self,
        thread: &str,
        owner: Option<&str>,
        image: Option<&str>,
        rules: Rules,
    ) -> Result<Arc<DockerSandbox>, SandboxError> {
        if let Some(image) = image
            && self.docker.inspect_image(image).await.is_err()
        {
            // The agent's configuration, not a passing failure: said to the model as is.
            return Err(SandboxError::Invalid(format!(
                "the agent's sandbox image {image} is not on the Docker engine; an admin must build or pull it, or change the agent's sandbox_image"
            )));
        }
        let wait = Duration::from_secs(self.cfg.docker.acquire_timeout_secs);
        let permit = tokio::time::timeout(wait, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| {
                SandboxError::Unavailable(format!(
                    "all {} sandboxes are in use; waited {}s",
                    self.cfg.docker.max_containers,
                    wait.as_secs()
                ))
            })?
            .map_err(|_| {
                SandboxError::Unavailable("the sandbox provider is shutting down".into())
            })?;
        let dirs = ThreadDirs::new(&self.data_dir, LOCAL_OWNER, thread);
        let access = self.access;
        let prepare = dirs.clone();
        let user_data = tokio::task::spawn_blocking(move || {
            prepare.create()?;
            let storage = storage::storage_of(&prepare);
            storage::give_dirs(&storage, access)?;
            std::io::Result::Ok(storage)
        })
        .await
        .map_err(|e| SandboxError::Infra(e.to_string()))?
        .map_err(|e| SandboxError::Infra(format!("cannot prepare thread directories: {e}")))?;
        let personal = match (&self.personal, owner) {
            (Some(source), Some(owner)) => Some(source.mount_for(owner).await?),
            _ => None,
        };
        let name = format!("antler-{}-{thread}", self.short_instance());
        let network = self.network(rules)?;
        let id = self
            .create(
                &name,
                &user_data,
                personal.as_deref(),
                Some(thread),
                image,
                &network,
            )
            .await?;
        let image = image.unwrap_or(&self.cfg.image);
        Ok(self.sandbox(thread, id, image, network, personal, permit))
    }
}

/// Removes containers idle past the timeout that nobody holds and that run no command.
pub(super) async fn reaper(inner: Arc<Inner>) {
    let every = Duration::from_secs(inner.cfg.docker.reap_interval_secs.max(1));
    let idle_limit = Duration::from_secs(inner.cfg.docker.idle_timeout_secs);
    loop {
        tokio::time::sleep(every).await;
        let victims: Vec<Arc<DockerSandbox>> = {
            let mut bound = inner.bound.lock().await;
            let idle: Vec<String> = bound
                .iter()
                .filter(|(_, sb)| {
                    Arc::strong_count(sb) == 1
                        && sb.busy.load(Ordering::SeqCst) == 0
                        && sb.idle() >= idle_limit
                })
                .map(|(t, _)| t.clone())
                .collect();
            idle.iter().filter_map(|t| bound.remove(t)).collect()
        };
        for sb in victims {
            tracing::info!(thread.id = %sb.thread_id, idle_secs = sb.idle().as_secs(), "reaping idle sandbox");
            inner.remove(&sb.container_id).await;
            sb.release_permit();
            inner.forget_lock(&sb.thread_id);
            inner.replenish.notify_one();
        }
    }
}

/// A new container's network: its rules and, for `allowlist`, its proxy endpoint.
pub(super) struct Network {
    pub(super) rules: Rules,
    pub(super) endpoint: Option<Arc<Endpoint>>,
}

/// Counts a container being created in `antler_sandboxes_creating` while it lives.
struct Creating;

impl Creating {
    fn new() -> Self {
        metrics::gauge!("antler_sandboxes_creating").increment(1.0);
        Creating
    }
}

impl Drop for Creating {
    fn drop(&mut self) {
        metrics::gauge!("antler_sandboxes_creating").decrement(1.0);
    }
}
