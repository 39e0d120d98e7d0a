//! The warm pool: containers started before a thread needs one, handed over at once.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use bollard::query_parameters::RenameContainerOptionsBuilder;

use super::{DockerSandbox, Inner, Warm};
use crate::egress::Rules;
use crate::error::SandboxError;
use crate::paths::{LOCAL_OWNER, ThreadDirs};
use crate::storage;

impl Inner {
    /// Gives a warm container to `thread` when one is ready and the thread can move in.
    pub(super) async fn take_warm(
        &self,
        thread: &str,
        owner: Option<&str>,
        rules: Rules,
    ) -> Option<Arc<DockerSandbox>> {
        let dirs = ThreadDirs::new(&self.data_dir, LOCAL_OWNER, thread);
        if storage::is_slotted(&dirs) {
            return None;
        }
        let warm = self.warm.lock().await.pop()?;
        self.replenish.notify_one();
        let slot = warm.slot.clone();
        let bind_dirs = dirs.clone();
        let bound =
            tokio::task::spawn_blocking(move || storage::bind_into_slot(&bind_dirs, &slot)).await;
        if !matches!(bound, Ok(Ok(()))) {
            tracing::warn!(
                thread,
                "could not move thread files into a warm sandbox; starting a fresh one"
            );
            self.remove(&warm.container_id).await;
            return None;
        }
        if let (Some(source), Some(mount), Some(owner)) = (&self.personal, &warm.personal, owner)
            && let Err(error) = source.fill(mount, owner).await
        {
            // The thread's files already live in the slot, which stays theirs: a fresh
            // container mounts it like any other.
            tracing::warn!(thread, %error, "could not copy personal skills into a warm sandbox");
            self.remove(&warm.container_id).await;
            return None;
        }
        let docker = self.docker.clone();
        let (id, name) = (
            warm.container_id.clone(),
            format!("antler-{}-{thread}", self.short_instance()),
        );
        tokio::spawn(async move {
            let _ = docker
                .rename_container(
                    &id,
                    RenameContainerOptionsBuilder::new().name(&name).build(),
                )
                .await;
        });
        let network = super::lifecycle::Network {
            rules: rules.clone(),
            endpoint: warm.egress.clone(),
        };
        if let Some(endpoint) = &warm.egress {
            endpoint.set_rules(rules);
        }
        Some(self.sandbox(
            thread,
            warm.container_id,
            &self.cfg.image,
            network,
            warm.personal,
            warm.permit,
        ))
    }

    pub(super) async fn make_warm(&self) -> Result<bool, SandboxError> {
        let Ok(permit) = self.permits.clone().try_acquire_owned() else {
            return Ok(false);
        };
        // Before the slot, so a failure leaves nothing behind.
        let network = self.network(self.server_rules.clone())?;
        let slots = storage::slots_root(&self.data_dir, &self.instance);
        let access = self.access;
        let slot = tokio::task::spawn_blocking(move || storage::new_slot(&slots, access))
            .await
            .map_err(|e| SandboxError::Infra(e.to_string()))?
            .map_err(|e| SandboxError::Infra(format!("cannot create a slot: {e}")))?;
        let personal = match &self.personal {
            Some(source) => Some(source.empty_mount()?),
            None => None,
        };
        let name = format!(
            "antler-{}-warm-{}",
            self.short_instance(),
            &uuid::Uuid::new_v4().simple().to_string()[..12]
        );
        match self
            .create(&name, &slot, personal.as_deref(), None, None, &network)
            .await
        {
            Ok(container_id) => {
                self.warm.lock().await.push(Warm {
                    container_id,
                    slot,
                    personal,
                    egress: network.endpoint,
                    permit,
                });
                Ok(true)
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&slot);
                Err(e)
            }
        }
    }
}

/// Keeps `warm_pool` containers ready; ends (after any creation in progress) at shutdown.
pub(super) async fn replenisher(inner: Arc<Inner>) {
    let mut failures = 0u32;
    while !inner.shutting_down.load(Ordering::SeqCst) {
        while !inner.shutting_down.load(Ordering::SeqCst)
            && inner.warm.lock().await.len() < inner.cfg.docker.warm_pool
        {
            match inner.make_warm().await {
                Ok(true) => failures = 0,
                Ok(false) => break,
                Err(e) => {
                    failures += 1;
                    tracing::warn!(error = %e, "could not start a warm sandbox");
                    tokio::time::sleep(Duration::from_secs(u64::from(failures.min(6)) * 5)).await;
                    break;
                }
            }
        }
        tokio::select! {
            () = inner.replenish.notified() => {}
            () = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
    }
}
