//! Following skill changes made by other replicas (shared skills dir and database; the
//! notice stands in for a file watcher that cannot see network storage).

use std::sync::Arc;

use tokio::sync::broadcast::error::RecvError;

use super::SkillsService;

/// The notice for a change to `owner`'s personal skills: instance ids and owner ids hold
/// no spaces.
pub(super) fn personal_notice(instance: &str, owner: &str) -> String {
    format!("{instance} user {owner}")
}

/// (sending instance, owner when only that person's skills changed).
fn parse_notice(payload: &str) -> (&str, Option<&str>) {
    match payload.split_once(" user ") {
        Some((instance, owner)) => (instance, Some(owner)),
        None => (payload, None),
    }
}

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
                let (from, owner) = parse_notice(&from);
                if from == service.instance {
                    continue;
                }
                if let Some(owner) = owner {
                    // Read again on next use; this server's sandboxes of that person follow.
                    service.personal.forget(Some(owner));
                    if let Err(error) = service.sandbox.refresh_personal(owner).await {
                        tracing::warn!(%error, "could not follow a personal skills change elsewhere");
                    }
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
