//! One writer of event batches for all the runs of this process. Each run gathers its events
//! for a moment; the sink writes what every run has gathered by then in one transaction, so
//! many concurrent runs cost the database one commit where each would have cost its own
//! (SQLite has a single writer: per-run commits queued behind each other).

use std::sync::Arc;

use antler_store::{StoreError, StoredEvent};
use tokio::sync::{mpsc, oneshot};

/// Rows one transaction takes at most (a backlog is written in several).
const MAX_ROWS: usize = 5_000;

struct Job {
    run_id: String,
    rows: Arc<Vec<StoredEvent>>,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// Sends runs' event batches to the shared writer.
#[derive(Clone)]
pub(crate) struct EventSink {
    jobs: mpsc::UnboundedSender<Job>,
    runs: Arc<dyn antler_store::RunRepo>,
}

impl EventSink {
    /// Starts the writer (on the current runtime); it ends when every sender is gone.
    pub(crate) fn start(runs: Arc<dyn antler_store::RunRepo>) -> EventSink {
        let (jobs, rx) = mpsc::unbounded_channel();
        tokio::spawn(write(rx, runs.clone()));
        EventSink { jobs, runs }
    }

    /// Appends `rows` to `run_id`'s log, with whatever other runs sent meanwhile; answers once
    /// they are stored (nothing when the run was deleted meanwhile, as `append_events`).
    pub(crate) async fn append(
        &self,
        run_id: &str,
        rows: Arc<Vec<StoredEvent>>,
    ) -> Result<(), StoreError> {
        let (done, answer) = oneshot::channel();
        let job = Job {
            run_id: run_id.to_string(),
            rows: rows.clone(),
            done,
        };
        if self.jobs.send(job).is_ok()
            && let Ok(result) = answer.await
        {
            return result;
        }
        // The writer is gone (its runtime is shutting down): written alone.
        self.runs.append_events(run_id, &rows).await
    }
}

async fn write(mut rx: mpsc::UnboundedReceiver<Job>, runs: Arc<dyn antler_store::RunRepo>) {
    while let Some(first) = rx.recv().await {
        // Everything already waiting goes into the same transaction: a batch grows while the
        // one before it is written, with no timer of its own.
        let mut rows = first.rows.len();
        let mut jobs = vec![first];
        while rows < MAX_ROWS
            && let Ok(job) = rx.try_recv()
        {
            rows += job.rows.len();
            jobs.push(job);
        }
        let batch: Vec<(&str, &[StoredEvent])> = jobs
            .iter()
            .map(|j| (j.run_id.as_str(), j.rows.as_slice()))
            .collect();
        match runs.append_events_of_runs(&batch).await {
            Ok(()) => {
                for job in jobs {
                    let _ = job.done.send(Ok(()));
                }
                continue;
            }
            // Each run's own write below reports what matters to it.
            Err(error) => {
                tracing::debug!(%error, runs = jobs.len(), "event batch failed; writing run by run")
            }
        }
        // One run deleted meanwhile (or one bad row) must not cost the others theirs: each
        // run on its own then, where a deleted run's events are dropped.
        for job in jobs {
            let result = runs.append_events(&job.run_id, &job.rows).await;
            let _ = job.done.send(result);
        }
    }
}

#[cfg(test)]
mod tests {
    use antler_protocol::runs::{MultitaskStrategy, RunStatus};
    use antler_store::{Location, RunRecord, Store};
    use serde_json::{Map, json};

    use super::*;

    fn record(run_id: &str, thread_id: &str) -> RunRecord {
        let now = chrono::Utc::now();
        RunRecord {
            run_id: run_id.into(),
            thread_id: thread_id.into(),
            owner: "me".into(),
            assistant_id: "agent".into(),
            status: RunStatus::Running,
            stop_reason: None,
            error: None,
            multitask_strategy: MultitaskStrategy::Enqueue,
            metadata: Map::new(),
            kwargs: json!({}),
            instance: "here".into(),
            usage: antler_protocol::runs::RunUsage::default(),
            created_at: now,
            updated_at: now,
        }
    }

    fn rows(run: usize, count: u64) -> Arc<Vec<StoredEvent>> {
        Arc::new(
            (1..=count)
                .map(|seq| StoredEvent {
                    seq,
                    event: "messages".into(),
                    data: format!("[{run},{seq}]"),
                })
                .collect(),
        )
    }

    /// Many runs appending at once all get their events stored, in order, even when a run
    /// deleted meanwhile shares their batch (its events are dropped, the others' kept).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_runs_share_batches_and_a_deleted_run_costs_the_others_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&Location::Sqlite(dir.path().join("antler.db")), 4)
            .await
            .unwrap();
        const RUNS: usize = 40;
        for i in 0..RUNS {
            let thread = format!("t{i}");
            store
                .threads
                .create("me", &thread, Map::new())
                .await
                .unwrap();
            store
                .runs
                .create(&record(&format!("r{i}"), &thread))
                .await
                .unwrap();
        }
        store.threads.delete("me", "t7").await.unwrap();
        let sink = EventSink::start(store.runs.clone());
        let appends = (0..RUNS).map(|i| {
            let sink = sink.clone();
            tokio::spawn(async move {
                for part in 0..3u64 {
                    let batch: Vec<StoredEvent> = rows(i, 30)
                        .iter()
                        .skip(usize::try_from(part * 10).unwrap())
                        .take(10)
                        .cloned()
                        .collect();
                    sink.append(&format!("r{i}"), Arc::new(batch)).await?;
                }
                Ok::<(), StoreError>(())
            })
        });
        for result in futures::future::join_all(appends).await {
            result.unwrap().unwrap();
        }
        for i in 0..RUNS {
            let stored = store.runs.events_after(&format!("r{i}"), 0).await.unwrap();
            if i == 7 {
                assert!(stored.is_empty(), "the deleted run's events are dropped");
            } else {
                assert_eq!(stored, *rows(i, 30), "run r{i}");
            }
        }
    }
}
