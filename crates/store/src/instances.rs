//! Heartbeats of server instances, so survivors can take over a dead replica's runs.

use async_trait::async_trait;

use crate::StoreError;

/// Instance liveness.
#[async_trait]
pub trait InstanceRepo: Send + Sync + 'static {
    /// Records that `instance` is alive now.
    async fn heartbeat(&self, instance: &str) -> Result<(), StoreError>;
    /// Instances whose last heartbeat is older than `max_age_secs`, other than `me`.
    async fn stale(&self, me: &str, max_age_secs: u64) -> Result<Vec<String>, StoreError>;
    /// Forgets an instance.
    async fn remove(&self, instance: &str) -> Result<(), StoreError>;
}
