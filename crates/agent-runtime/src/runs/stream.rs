//! Following a run's events from a position: memory first, the database for what memory no
//! longer holds (or for runs that ended), then live. A reader that falls behind the broadcast
//! re-reads from its last position instead of slowing the run.

use std::collections::HashSet;
use std::sync::Arc;

use tokio::sync::{broadcast, mpsc};

use super::log::{Mode, RunEvent};
use super::manager::Runtime;

/// Streams the events of `run_id` after `after` (an SSE id) that `modes` want, ending with
/// `end`. An empty `modes` means every mode the run records.
pub fn follow(
    runtime: Arc<Runtime>,
    run_id: String,
    after: u64,
    modes: HashSet<Mode>,
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
                // Ended (or never ran here): everything is in the database.
                let stored = runtime
                    .deps()
                    .store
                    .runs
                    .events_after(&run_id, last)
                    .await
                    .unwrap_or_default();
                for e in stored {
                    let mode = RunEvent::mode_of(&e.event);
                    let event = Arc::new(RunEvent {
                        seq: e.seq,
                        event: e.event,
                        data: e.data,
                        mode,
                    });
                    if !send(event, &mut last).await {
                        return;
                    }
                }
                return;
            };
            let sub = run.log.subscribe(last);
            if let Some(first_in_memory) = sub.gap_until {
                let stored = runtime
                    .deps()
                    .store
                    .runs
                    .events_after(&run_id, last)
                    .await
                    .unwrap_or_default();
                for e in stored.into_iter().filter(|e| e.seq < first_in_memory) {
                    let mode = RunEvent::mode_of(&e.event);
                    let event = Arc::new(RunEvent {
                        seq: e.seq,
                        event: e.event,
                        data: e.data,
                        mode,
                    });
                    if !send(event, &mut last).await {
                        return;
                    }
                }
            }
            for e in sub.replay {
                let end = e.event == "end";
                if !send(e, &mut last).await || end {
                    return;
                }
            }
            let mut live = sub.live;
            loop {
                match live.recv().await {
                    Ok(e) => {
                        let end = e.event == "end";
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
