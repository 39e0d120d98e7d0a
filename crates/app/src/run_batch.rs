//! Runs across a caller's threads: cancelling many at once (`interrupt` or `rollback`),
//! cancelling one with `rollback`, starting a batch, and the runs a thread's stream follows.
//!
//! A rollback waits until the run has stopped, then deletes it with its checkpoints and
//! events (the thread's values become its newest remaining checkpoint's). Files the run wrote
//! in the thread's directories stay: they may have been downloaded or changed since, and
//! the next run finds them as any other file. A run queued behind a rolled-back one may
//! start in between and continue from the rolled-back state; `multitask_strategy:
//! rollback` on the new run is the race-free way.

use std::collections::BTreeMap;

use antler_protocol::runs::{CancelAction, CancelRuns, CancelStatus, Run, RunBatchItem, RunStatus};

use crate::runs::{RunError, RunOpError, RunsService, wire};
use crate::{App, Caller};

/// Most runs one `cancel_many` or batch touches.
pub const MAX_RUNS_AT_ONCE: usize = 1000;
/// Most runs one batch starts.
pub const MAX_BATCH: usize = 100;

impl RunsService {
    /// Cancels one run of the caller's thread and deletes it with everything it wrote
    /// (answered once done): the run as it was when it stopped.
    pub async fn cancel_rollback(
        &self,
        caller: &Caller,
        thread_id: &str,
        run_id: &str,
    ) -> Result<Run, RunOpError> {
        self.record(caller, thread_id, run_id).await?;
        let stopped = self.manager().cancel(thread_id, run_id, true).await?;
        self.store
            .state
            .roll_back(thread_id, &[run_id.to_string()])
            .await?;
        tracing::info!(thread.id = thread_id, run.id = run_id, "run rolled back");
        Ok(wire(stopped))
    }

    /// Cancels the caller's runs `req` names (see [`CancelRuns`]) with `action`; runs that
    /// ended meanwhile are skipped. Answers how many were cancelled.
    pub async fn cancel_many(
        &self,
        caller: &Caller,
        req: CancelRuns,
        action: CancelAction,
    ) -> Result<usize, RunOpError> {
        let invalid = |m: &str| RunOpError::from(RunError::Invalid(m.to_string()));
        if let Some(tid) = &req.thread_id {
            self.thread(caller, tid).await?;
        }
        let limit = u32::try_from(MAX_RUNS_AT_ONCE).unwrap_or(u32::MAX);
        let active = self
            .store
            .runs
            .active_of_owner(caller.owner(), req.thread_id.as_deref(), limit)
            .await?;
        let runs: Vec<_> = match (req.status, &req.run_ids, &req.thread_id) {
            (Some(_), Some(_), _) => {
                return Err(invalid("give either status or run_ids, not both"));
            }
            (Some(status), None, _) => active
                .into_iter()
                .filter(|r| match status {
                    CancelStatus::Pending => r.status == RunStatus::Pending,
                    CancelStatus::Running => r.status == RunStatus::Running,
                    CancelStatus::All => true,
                })
                .collect(),
            (None, _, None) => {
                return Err(invalid(
                    "give thread_id (with run_ids, or for all its runs) or status",
                ));
            }
            (None, None, Some(_)) => active,
            (None, Some(ids), Some(tid)) => {
                if ids.len() > MAX_RUNS_AT_ONCE {
                    return Err(invalid(&format!(
                        "at most {MAX_RUNS_AT_ONCE} run_ids, not {}",
                        ids.len()
                    )));
                }
                for id in ids {
                    // Unknown ids are a 404 naming the first; ended ones are skipped.
                    self.record(caller, tid, id).await?;
                }
                active
                    .into_iter()
                    .filter(|r| ids.contains(&r.run_id))
                    .collect()
            }
        };
        let rollback = action == CancelAction::Rollback;
        let mut by_thread: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for run in &runs {
            match self
                .manager()
                .cancel(&run.thread_id, &run.run_id, rollback)
                .await
            {
                Ok(_) => by_thread
                    .entry(run.thread_id.clone())
                    .or_default()
                    .push(run.run_id.clone()),
                // It ended on its own in between: nothing to cancel.
                Err(RunError::Conflict(_)) => {}
                Err(e) => return Err(e.into()),
            }
        }
        if rollback {
            for (thread_id, run_ids) in &by_thread {
                self.store.state.roll_back(thread_id, run_ids).await?;
            }
        }
        let cancelled = by_thread.values().map(Vec::len).sum();
        tracing::info!(cancelled, action = action.as_str(), "runs cancelled");
        Ok(cancelled)
    }

    /// The ids of the caller's thread's pending and running runs, oldest first (what a
    /// thread's stream follows next).
    pub async fn active_run_ids(
        &self,
        caller: &Caller,
        thread_id: &str,
    ) -> Result<Vec<String>, RunOpError> {
        self.thread(caller, thread_id).await?;
        Ok(self
            .store
            .runs
            .active(thread_id)
            .await?
            .into_iter()
            .map(|r| r.run_id)
            .collect())
    }
}

/// A batch item that could not be started: its index and why. Items before it were started.
#[derive(Debug)]
pub struct BatchError {
    /// The item's index in the batch.
    pub index: usize,
    /// Why.
    pub error: RunOpError,
}

impl App {
    /// Starts each run of a batch in order (threaded or stateless), answering the runs as
    /// created. Threads are checked first, so an unknown or foreign thread refuses the whole
    /// batch before anything starts; a failure after that (a conflict, the quota) stops the
    /// batch at that item, leaving the runs before it started.
    pub async fn start_batch(
        &self,
        caller: &Caller,
        items: Vec<RunBatchItem>,
    ) -> Result<Vec<Run>, BatchError> {
        for (index, item) in items.iter().enumerate() {
            let creates =
                item.run.if_not_exists == Some(antler_protocol::runs::IfNotExists::Create);
            if let Some(tid) = &item.thread_id {
                let checked = match creates {
                    true => crate::threads::check_id(tid).map_err(RunOpError::from),
                    false => self.runs.thread(caller, tid).await.map(|_| ()),
                };
                checked.map_err(|error| BatchError { index, error })?;
            }
        }
        let mut runs = Vec::with_capacity(items.len());
        for (index, item) in items.into_iter().enumerate() {
            let started = match &item.thread_id {
                Some(tid) => self.start_run(caller, tid, item.run).await,
                None => self.start_stateless(caller, item.run).await.map(|s| {
                    if let Some(cleanup) = s.cleanup {
                        cleanup.after_run();
                    }
                    s.started
                }),
            };
            runs.push(started.map_err(|error| BatchError { index, error })?.record);
        }
        Ok(runs)
    }
}
