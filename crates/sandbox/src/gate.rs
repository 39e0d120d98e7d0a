//! Sandboxes start only once the skills view has been filled, so that no sandbox ever sees
//! a partial `/mnt/skills`.

use std::sync::Arc;

use async_trait::async_trait;
use tokio::sync::watch;

use crate::api::{Sandbox, SandboxInfo};
use crate::{SandboxError, SandboxProvider};

/// A provider whose `acquire` waits until the view holds a catalog version (the version the
/// view follower last applied; 0 means not filled yet).
pub struct ViewGate {
    inner: Arc<dyn SandboxProvider>,
    synced: watch::Receiver<u64>,
}

impl ViewGate {
    /// Gates `inner` on `synced`, the follower's record of the version it applied. When the
    /// follower goes away before the first fill, acquiring fails instead of waiting forever.
    pub fn new(inner: Arc<dyn SandboxProvider>, synced: watch::Receiver<u64>) -> Self {
        ViewGate { inner, synced }
    }
}

#[async_trait]
impl SandboxProvider for ViewGate {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    async fn acquire_for(
        &self,
        thread_id: &str,
        with: crate::api::Acquire<'_>,
    ) -> Result<Arc<dyn Sandbox>, SandboxError> {
        let mut synced = self.synced.clone();
        if synced.wait_for(|v| *v > 0).await.is_err() {
            return Err(SandboxError::Infra(
                "the skills view could not be prepared".into(),
            ));
        }
        self.inner.acquire_for(thread_id, with).await
    }

    async fn refresh_personal(&self, owner: &str) -> Result<(), SandboxError> {
        self.inner.refresh_personal(owner).await
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

    fn file_access(&self) -> crate::FileAccess {
        self.inner.file_access()
    }

    fn image(&self) -> Option<antler_protocol::health::SandboxImage> {
        self.inner.image()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::LocalProvider;

    fn gate(dir: &std::path::Path, synced: watch::Receiver<u64>) -> ViewGate {
        ViewGate::new(
            Arc::new(LocalProvider::new(dir, &dir.join("view"), false, 1024)),
            synced,
        )
    }

    #[tokio::test]
    async fn sandboxes_start_only_once_the_view_is_filled() {
        let dir = tempfile::tempdir().expect("temp dir");
        // Never filled (the follower died): acquiring fails instead of starting a sandbox
        // with an empty /mnt/skills.
        let (tx, rx) = watch::channel(0);
        drop(tx);
        let err = gate(dir.path(), rx).acquire("t").await.err();
        assert!(matches!(err, Some(SandboxError::Infra(_))), "{err:?}");
        // Filled: acquiring goes through.
        let (tx, rx) = watch::channel(0);
        let gated = gate(dir.path(), rx);
        tx.send_replace(3);
        let sandbox = gated.acquire("t").await.expect("acquired");
        assert_eq!(sandbox.thread_id(), "t");
    }
}
