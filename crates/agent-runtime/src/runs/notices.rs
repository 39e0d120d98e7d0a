//! Waiting for word that a run's events were stored (on any replica).

use std::time::Duration;

use antler_store::{Notice, Topic};
use tokio::sync::broadcast::{self, error::RecvError};

/// Returns when events of one of `run_ids` (of any run with `None`) were stored, when
/// notices may have been missed (a lag, or a resync after the listener reconnected), or after
/// `at_most`. Other notices do not wake the caller.
pub(crate) async fn stored_events(
    notices: &mut broadcast::Receiver<Notice>,
    run_ids: Option<&[&str]>,
    at_most: Duration,
) {
    let deadline = tokio::time::sleep(at_most);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            () = &mut deadline => return,
            n = notices.recv() => match n {
                Ok(n) if n.payload.is_empty() => return,
                Ok(n) if n.topic == Topic::RunEvents
                    && run_ids.is_none_or(|ids| n.payload.split(':').next().is_some_and(|r| ids.contains(&r))) => return,
                Ok(_) => {}
                Err(RecvError::Lagged(_)) => return,
                Err(RecvError::Closed) => {
                    (&mut deadline).await;
                    return;
                }
            },
        }
    }
}
