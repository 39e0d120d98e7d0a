//! What one sandbox connected to: the records of its endpoint, read back per command.

use std::collections::{BTreeSet, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use antler_protocol::egress::NetworkConnection;
use tokio::sync::Notify;

/// Finished records kept per sandbox; a command's own are read right after it, so older
/// ones only matter to a command that opened more than this many.
const KEEP: usize = 2048;

#[derive(Default)]
struct State {
    next: u64,
    open: BTreeSet<u64>,
    done: VecDeque<(u64, NetworkConnection)>,
}

/// The connection records of one endpoint.
#[derive(Default)]
pub(crate) struct ConnLog {
    state: Mutex<State>,
    closed: Notify,
}

impl ConnLog {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Numbers a new connection and counts it open.
    pub(crate) fn open(&self) -> u64 {
        let mut s = self.state();
        let seq = s.next;
        s.next += 1;
        s.open.insert(seq);
        seq
    }

    /// Ends connection `seq`, keeping its record when there is one.
    pub(crate) fn close(&self, seq: u64, record: Option<NetworkConnection>) {
        {
            let mut s = self.state();
            s.open.remove(&seq);
            if let Some(record) = record {
                if s.done.len() == KEEP {
                    s.done.pop_front();
                }
                s.done.push_back((seq, record));
            }
        }
        self.closed.notify_waiters();
    }

    /// Where the next connection's number starts.
    pub(crate) fn mark(&self) -> u64 {
        self.state().next
    }

    /// The records of connections opened since `mark`, after waiting up to `wait` for the
    /// ones still open (a command's connections close as its processes exit).
    pub(crate) async fn since(&self, mark: u64, wait: Duration) -> Vec<NetworkConnection> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let closed = self.closed.notified();
            tokio::pin!(closed);
            closed.as_mut().enable();
            if self.state().open.range(mark..).next().is_none() {
                break;
            }
            if tokio::time::timeout_at(deadline, closed).await.is_err() {
                break;
            }
        }
        self.state()
            .done
            .iter()
            .filter(|(seq, _)| *seq >= mark)
            .map(|(_, r)| r.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(host: &str) -> NetworkConnection {
        NetworkConnection {
            host: host.into(),
            port: 443,
            method: "connect".into(),
            allowed: true,
            error: None,
            address: None,
            bytes_sent: 1,
            bytes_received: 2,
            duration_ms: 3,
        }
    }

    #[tokio::test]
    async fn a_command_reads_its_own_connections_once_they_close() {
        let log = std::sync::Arc::new(ConnLog::default());
        let before = log.open();
        log.close(before, Some(record("earlier")));
        let mark = log.mark();
        let a = log.open();
        let b = log.open();
        log.close(a, Some(record("a")));
        let later = log.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            later.close(b, Some(record("b")));
        });
        let got = log.since(mark, Duration::from_secs(5)).await;
        let hosts: Vec<_> = got.iter().map(|r| r.host.as_str()).collect();
        assert_eq!(hosts, ["a", "b"]);
    }

    #[tokio::test]
    async fn a_connection_left_open_does_not_hold_the_command() {
        let log = ConnLog::default();
        let mark = log.mark();
        let _open = log.open();
        let got = log.since(mark, Duration::from_millis(20)).await;
        assert!(got.is_empty());
    }
}
