//! Following skill changes made by other replicas (shared skills dir and database; the
//! notice stands in for a file watcher that cannot see network storage).

use std::sync::Arc;

use tokio::sync::broadcast::error::RecvError;

use super::SkillsService;

impl SkillsService {
    /// Refreshes the catalog (and so the view) when another replica changed skills, or when
    /// notices were missed. The task holds the service weakly and ends with it.
    pub(crate) fn follow_other_replicas(self: &Arc<Self>) -> tokio::task::JoinHandle<()> {
        let mut notices = self.store.bus.subscribe();
        let service = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                let from = match notices.recv().await {
                    Ok(n) if n.topic == antler_store::Topic::Skills => n.payload,
                    Ok(_) => continue,
                    Err(RecvError::Lagged(_)) => "unknown (notices were missed)".into(),
                    Err(RecvError::Closed) => return,
                };
                let Some(service) = service.upgrade() else {
                    return;
                };
                if from == service.instance {
                    continue;
                }
                match service.refresh().await {
                    Ok(_) => {
                        tracing::info!(%from, "skills changed on another replica; catalog refreshed")
                    }
                    Err(error) => {
                        tracing::warn!(%error, "could not refresh skills after a change elsewhere")
                    }
                }
            }
        })
    }
}
