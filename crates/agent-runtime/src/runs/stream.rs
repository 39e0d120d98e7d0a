//! Following a run's events from a position: memory first, the database for what memory no
//! longer holds (or for runs that ended), then live. A reader that falls behind the broadcast
//! re-reads from its last position instead of slowing the run.

use std::collections::HashSet;
use std::sync::Arc;

use tokio::sync::{broadcast, mpsc};

use antler_protocol::stream::StreamMode;

use super::log::RunEvent;
use super::manager::RunManager;

/// The stored events of `run_id` after `last`; none when the database does not answer (the
/// callers read again on the next notice or poll).
async fn stored_after(runtime: &RunManager, run_id: &str, last: u64) -> Vec<Arc<RunEvent>> {
    runtime
        .deps()
        .store
        .runs
        .events_after(run_id, last)
        .await
        .unwrap_or_default()
        .into_iter()
        .map(|e| Arc::new(RunEvent::stored(e)))
        .collect()
}

/// The stored events after `last` and before `first_in_memory` (which memory no longer
/// holds). Read again while the database does not answer, so a joiner does not skip events
/// silently; only events whose write failed for good are skipped, with a warning.
async fn stored_gap(
    runtime: &RunManager,
    run_id: &str,
    last: u64,
    first_in_memory: u64,
) -> Vec<Arc<RunEvent>> {
    let mut stored = Vec::new();
    for attempt in 1..=5 {
        stored = stored_after(runtime, run_id, last).await;
        stored.retain(|e| e.seq < first_in_memory);
        if stored.last().is_some_and(|e| e.seq + 1 == first_in_memory) {
            return stored;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100 * attempt)).await;
    }
    tracing::warn!(run.id = %run_id, from = last + 1, to = first_in_memory - 1, "stored run events are missing; the stream skips them");
    stored
}

/// Streams the events of `run_id` after `after` (an SSE id) that `modes` want, ending with
/// `end`. An empty `modes` means every mode the run records.
pub fn follow(
    runtime: Arc<RunManager>,
    thread_id: String,
    run_id: String,
    after: u64,
    modes: HashSet<StreamMode>,
) -> mpsc::Receiver<Arc<RunEvent>> {
    let (tx, rx) = mpsc::channel(256);
    tokio::spawn(async move {
        let mut last = after;
        let send = |e: Arc<RunEvent>, last: &mut u64| {
            let tx = tx.clone();
            let modes = &modes;
            let keep = e.seq > *last && (modes.is_empty() || e.wanted(modes));
            if e.seq > *last {
                *last = e.seq;
            }
            async move { if keep { tx.send(e).await.is_ok() } else { true } }
        };
        loop {
            let Some(run) = runtime.active(&run_id) else {
                // Not running here: it ended, or it runs on another replica. Read the database
                // until `end`, woken by notices of new events (and polling, should one be lost).
                let mut notices = runtime.deps().store.bus.subscribe();
                // When the run was first seen finished with no new events since.
                let mut quiet_since: Option<tokio::time::Instant> = None;
                loop {
                    let stored = stored_after(&runtime, &run_id, last).await;
                    if !stored.is_empty() {
                        quiet_since = None;
                    }
                    for e in stored {
                        let end = e.is_end();
                        if !send(e, &mut last).await || end {
                            return;
                        }
                    }
                    if runtime.active(&run_id).is_some() {
                        break;
                    }
                    let active = runtime.run_is_active(&thread_id, &run_id).await;
                    // A finished run whose `end` never came (its process died before writing
                    // it) gets its terminal events written after a quiet spell, then they are
                    // read like any others. The spell counts from when the run was seen
                    // finished: a takeover marks the run first and writes `end` after.
                    if active {
                        quiet_since = None;
                    } else if quiet_since
                        .get_or_insert_with(tokio::time::Instant::now)
                        .elapsed()
                        > std::time::Duration::from_secs(5)
                    {
                        quiet_since = None;
                        if !runtime.end_missing_log(&thread_id, &run_id).await {
                            return;
                        }
                        continue;
                    }
                    let poll = std::time::Duration::from_millis(if active { 1000 } else { 200 });
                    super::notices::stored_events(&mut notices, Some(&run_id), poll).await;
                }
                continue;
            };
            let sub = run.log.subscribe(last);
            if let Some(first_in_memory) = sub.gap_until {
                for e in stored_gap(&runtime, &run_id, last, first_in_memory).await {
                    if !send(e, &mut last).await {
                        return;
                    }
                }
            }
            for e in sub.replay {
                let end = e.is_end();
                if !send(e, &mut last).await || end {
                    return;
                }
            }
            let mut live = sub.live;
            loop {
                match live.recv().await {
                    Ok(e) => {
                        let end = e.is_end();
                        if !send(e, &mut last).await || end {
                            return;
                        }
                    }
                    // Fell behind: start over from the last position sent.
                    Err(broadcast::error::RecvError::Lagged(_)) => break,
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        }
    });
    rx
}
