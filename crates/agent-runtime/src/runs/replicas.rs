//! What outlives one process: runs left behind by a restart or by a replica that died, and
//! the duties that find them (heartbeats, takeover, cancellation notices).

use std::sync::Arc;
use std::time::Duration;

use antler_protocol::runs::{RunStatus, StopReason};
use antler_protocol::stream::{RunErrorKind, RunFailure, StreamEvent};
use antler_store::{RunRecord, StoredEvent};

use super::active::RunError;
use super::log::RunEvent;
use super::manager::RunManager;

/// How often an instance says it is alive.
const HEARTBEAT: Duration = Duration::from_secs(2);
/// An instance silent this long is considered dead.
const DEAD_AFTER: Duration = Duration::from_secs(10);

impl RunManager {
    /// Marks runs left running by a previous process of this instance as interrupted and
    /// ends their event logs, so a replay ends like any other run's.
    pub async fn recover(&self) -> Result<usize, RunError> {
        let runs = self
            .deps
            .store
            .runs
            .interrupt_active(Some(&self.deps.instance), StopReason::ServerRestart)
            .await?;
        for r in &runs {
            tracing::warn!(run.id = %r.run_id, thread.id = %r.thread_id, "run interrupted by a server restart");
            self.end_stored_log(r).await?;
        }
        Ok(runs.len())
    }

    /// Starts the cross-replica duties: cancelling runs on request from other replicas,
    /// heartbeats, and taking over the runs of replicas that died.
    pub fn start_background(self: &Arc<Self>) -> Vec<tokio::task::JoinHandle<()>> {
        let cancels = {
            let weak = Arc::downgrade(self);
            let mut notices = self.deps.store.bus.subscribe();
            tokio::spawn(async move {
                loop {
                    match notices.recv().await {
                        Ok(n) if n.topic == antler_store::Topic::RunCancel => {
                            let Some(manager) = weak.upgrade() else {
                                return;
                            };
                            if let Some(run) = manager.active(&n.payload) {
                                tracing::info!(run.id = %n.payload, "run cancelled from another replica");
                                run.cancel(StopReason::Cancelled);
                            } else if manager.children.cancel(&n.payload) {
                                tracing::info!(run.id = %n.payload, "subagent run cancelled from another replica");
                            }
                        }
                        Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                    }
                }
            })
        };
        let liveness = {
            let weak = Arc::downgrade(self);
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(HEARTBEAT);
                loop {
                    tick.tick().await;
                    let Some(manager) = weak.upgrade() else {
                        return;
                    };
                    let store = &manager.deps.store;
                    if let Err(e) = store.instances.heartbeat(&manager.deps.instance).await {
                        tracing::warn!(error = %e, "heartbeat failed");
                        continue;
                    }
                    if let Err(e) = manager.take_over_dead().await {
                        tracing::warn!(error = %e, "could not take over the runs of a dead replica");
                    }
                }
            })
        };
        vec![cancels, liveness]
    }

    /// Interrupts the runs of instances whose heartbeat stopped, and ends their streams.
    async fn take_over_dead(&self) -> Result<(), RunError> {
        let store = &self.deps.store;
        let dead = store
            .instances
            .stale(&self.deps.instance, DEAD_AFTER.as_secs())
            .await?;
        for instance in dead {
            let runs = store
                .runs
                .interrupt_active(Some(&instance), StopReason::ReplicaLost)
                .await?;
            for r in &runs {
                tracing::warn!(run.id = %r.run_id, dead = %instance, "run interrupted: its replica stopped responding");
                self.end_stored_log(r).await?;
            }
            store.instances.remove(&instance).await?;
        }
        Ok(())
    }

    /// Ends the stored log of a finished run that has no `end` (see [`Self::end_stored_log`]);
    /// false when the run cannot be read.
    pub(crate) async fn end_missing_log(&self, thread_id: &str, run_id: &str) -> bool {
        match self.deps.store.runs.get(thread_id, run_id).await {
            Ok(Some(record)) if !record.status.is_active() => {
                tracing::warn!(run.id = %run_id, "a finished run had no end event; ending its log");
                self.end_stored_log(&record).await.is_ok()
            }
            _ => false,
        }
    }

    /// Appends the terminal events of a finished run whose process could not (`error` saying
    /// why, unless it succeeded, then `end`) after its last stored event. Appending is
    /// idempotent per sequence number, so two writers never produce two `end`s.
    pub(crate) async fn end_stored_log(&self, record: &RunRecord) -> Result<(), RunError> {
        let store = &self.deps.store;
        let mut log = super::stored::StoredLog::of(store, record).await;
        let last = match log.parent() {
            // A subagent's events are partly in its parent's log: read them all.
            Some(_) => log.after(store, 0).await?.pop(),
            None => match store.runs.last_event_seq(&record.run_id).await? {
                0 => None,
                seq => log.after(store, seq - 1).await?.pop(),
            },
        };
        if last.as_ref().is_some_and(RunEvent::is_end) {
            return Ok(());
        }
        let mut seq = last.map_or(0, |e| e.seq);
        let mut events = Vec::new();
        let failure = failure_of(record);
        if let Some(failure) = &failure {
            seq += 1;
            let error = StreamEvent::Error(failure);
            events.push(StoredEvent {
                seq,
                event: error.name().into(),
                data: error.data(),
            });
        }
        events.push(StoredEvent {
            seq: seq + 1,
            event: StreamEvent::End.name().into(),
            data: StreamEvent::End.data(),
        });
        store.runs.append_events(&record.run_id, &events).await?;
        Ok(())
    }
}

/// The `error` event a finished run's replay ends with, from its record (none on success).
pub(crate) fn failure_of(record: &RunRecord) -> Option<RunFailure> {
    let (kind, fallback) = match (record.status, record.stop_reason) {
        (RunStatus::Success, _) => return None,
        (_, Some(StopReason::ServerRestart)) => (
            RunErrorKind::ServerRestart,
            "The server restarted while this run was going on; the run was interrupted.",
        ),
        (_, Some(StopReason::ReplicaLost)) => (
            RunErrorKind::ReplicaLost,
            "The server running this run stopped responding; the run was interrupted.",
        ),
        (RunStatus::Timeout, _) => (
            RunErrorKind::TimeoutError,
            "The run exceeded its time limit.",
        ),
        (RunStatus::Interrupted, _) => (RunErrorKind::CancelledError, "The run was cancelled."),
        _ => (RunErrorKind::AgentError, "The run failed."),
    };
    let message = match record.stop_reason {
        Some(StopReason::ServerRestart | StopReason::ReplicaLost) => fallback.to_string(),
        _ => record
            .error
            .clone()
            .filter(|e| !e.is_empty())
            .unwrap_or_else(|| fallback.to_string()),
    };
    Some(RunFailure::new(kind, message))
}
