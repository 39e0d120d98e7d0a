//! One run at a time per thread: the local queue (in creation order) and waiting for older
//! runs of the thread on other replicas.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use antler_store::RunRecord;

use super::active::{ActiveRun, RunError};
use super::manager::{RunManager, lock};

/// The runs of one thread in this process.
#[derive(Default)]
pub(super) struct ThreadQueue {
    /// Held by the executing run; tokio's mutex is fair, so runs go in creation order.
    pub(super) turn: tokio::sync::Mutex<()>,
    /// Runs pending or running, oldest first.
    pub(super) runs: Mutex<Vec<Arc<ActiveRun>>>,
}

impl RunManager {
    /// The queue of `thread_id` (created on first use).
    pub(super) fn queue(&self, thread_id: &str) -> Arc<ThreadQueue> {
        lock(&self.threads)
            .entry(thread_id.to_string())
            .or_default()
            .clone()
    }

    /// Forgets the queue of a thread once nothing is in it (`held` handles besides the map's).
    pub(super) fn drop_queue_if_idle(
        &self,
        thread_id: &str,
        queue: &Arc<ThreadQueue>,
        held: usize,
    ) {
        let mut threads = lock(&self.threads);
        if lock(&queue.runs).is_empty() && Arc::strong_count(queue) <= held + 1 {
            threads.remove(thread_id);
        }
    }

    /// Runs of a thread active on other replicas.
    pub(super) async fn remote_active(&self, thread_id: &str) -> Result<Vec<RunRecord>, RunError> {
        Ok(self
            .deps
            .store
            .runs
            .active(thread_id)
            .await?
            .into_iter()
            // Subagents' runs belong to their lead, which is what waits or is waited for.
            .filter(|r| {
                r.instance != self.deps.instance && !r.metadata.contains_key("parent_run_id")
            })
            .collect())
    }

    /// Waits for this run's turn: older runs of the thread here (the queue's lock) and on
    /// other replicas (enqueue, or an interrupt in progress; only older ones, so two
    /// replicas' queued runs never wait for each other). A cancelled run stops waiting at
    /// once. Answers the turn, or `None` when cancelled first.
    pub(super) async fn wait_turn<'q>(
        &self,
        run: &ActiveRun,
        queue: &'q ThreadQueue,
        created_at: chrono::DateTime<chrono::Utc>,
    ) -> Option<tokio::sync::MutexGuard<'q, ()>> {
        let turn = tokio::select! {
            turn = queue.turn.lock() => Some(turn),
            () = run.cancel.cancelled() => None,
        };
        let mine = (created_at, &run.run_id);
        let mut notices = self.deps.store.bus.subscribe();
        while !run.cancel.is_cancelled()
            && self
                .remote_active(&run.thread_id)
                .await
                .unwrap_or_default()
                .iter()
                .any(|r| (r.created_at, &r.run_id) < mine)
        {
            tokio::select! {
                () = super::notices::stored_events(&mut notices, None, Duration::from_millis(300)) => {}
                () = run.cancel.cancelled() => {}
            }
        }
        turn
    }
}
