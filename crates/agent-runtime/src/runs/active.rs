//! A run executing (or waiting its turn) in this process, and why a run request failed.

use std::sync::{Arc, Mutex};

use antler_protocol::runs::StopReason;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::log::EventLog;

/// Why a run request was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// Unknown thread or run.
    #[error("{0}")]
    NotFound(String),
    /// The thread is busy (`reject`), or the run is not active.
    #[error("{0}")]
    Conflict(String),
    /// The request is malformed.
    #[error("{0}")]
    Invalid(String),
    /// The thread's stored history does not parse (it is left as it is).
    #[error("{0}")]
    Unreadable(String),
    /// Storage failed.
    #[error("{0}")]
    Internal(String),
}

impl From<antler_store::StoreError> for RunError {
    fn from(e: antler_store::StoreError) -> Self {
        if let antler_store::StoreError::Unstorable(m) = e {
            return RunError::Invalid(m);
        }
        tracing::error!(error = %e, "run storage failed");
        RunError::Internal("the run could not be stored".into())
    }
}

/// A run executing (or waiting its turn) in this process.
pub struct ActiveRun {
    /// Run id.
    pub run_id: String,
    /// Thread id.
    pub thread_id: String,
    /// The thread's owner.
    pub owner: String,
    /// Its events.
    pub log: Arc<EventLog>,
    /// `cancel` (default) or `continue` when the streaming client goes away.
    pub on_disconnect_cancel: bool,
    pub(super) cancel: CancellationToken,
    reason: Mutex<Option<StopReason>>,
    finished: watch::Sender<bool>,
}

impl std::fmt::Debug for ActiveRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActiveRun")
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

impl ActiveRun {
    pub(super) fn new(
        run_id: &str,
        thread_id: &str,
        owner: &str,
        log: Arc<EventLog>,
        on_disconnect_cancel: bool,
    ) -> Self {
        ActiveRun {
            run_id: run_id.to_string(),
            thread_id: thread_id.to_string(),
            owner: owner.to_string(),
            log,
            on_disconnect_cancel,
            cancel: CancellationToken::new(),
            reason: Mutex::new(None),
            finished: watch::channel(false).0,
        }
    }

    /// Stops the run (model stream and running command at once), recording why.
    pub fn cancel(&self, reason: StopReason) {
        if let Ok(mut r) = self.reason.lock()
            && r.is_none()
        {
            *r = Some(reason);
        }
        self.cancel.cancel();
    }

    /// Resolves when the run has ended and everything is stored.
    pub async fn finished(&self) {
        let mut rx = self.finished.subscribe();
        let _ = rx.wait_for(|done| *done).await;
    }

    pub(super) fn mark_finished(&self) {
        self.finished.send_replace(true);
    }

    pub(super) fn reason(&self) -> Option<StopReason> {
        self.reason.lock().ok().and_then(|r| *r)
    }
}
