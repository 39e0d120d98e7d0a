//! Failed sign-ins counted per key (an account, a client address) in a sliding window.
//! Kept in memory: each replica counts its own, which bounds guessing per replica.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Keys tracked at most; beyond it, keys without recent failures are forgotten first.
const MAX_KEYS: usize = 50_000;

/// Counts failures and says when a key must wait.
#[derive(Debug)]
pub(crate) struct Throttle {
    window: Duration,
    failures: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl Throttle {
    /// Failures older than `window` no longer count.
    pub(crate) fn new(window: Duration) -> Self {
        Throttle {
            window,
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// How long `key` must wait when it has `limit` or more recent failures.
    pub(crate) fn wait(&self, key: &str, limit: u32) -> Option<Duration> {
        let now = Instant::now();
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let times = map.get_mut(key)?;
        while times
            .front()
            .is_some_and(|t| now.duration_since(*t) >= self.window)
        {
            times.pop_front();
        }
        if times.len() < usize::try_from(limit).unwrap_or(usize::MAX) {
            return None;
        }
        let oldest = *times.front()?;
        Some(self.window.saturating_sub(now.duration_since(oldest)))
    }

    /// Records a failure of `key`.
    pub(crate) fn fail(&self, key: &str) {
        let now = Instant::now();
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= MAX_KEYS && !map.contains_key(key) {
            let window = self.window;
            map.retain(|_, times| {
                times
                    .back()
                    .is_some_and(|t| now.duration_since(*t) < window)
            });
        }
        let times = map.entry(key.to_string()).or_default();
        times.push_back(now);
        // Only the last few matter for any limit in use.
        while times.len() > 1000 {
            times.pop_front();
        }
    }

    /// Forgets the failures of `key` (after a successful sign-in).
    pub(crate) fn clear(&self, key: &str) {
        self.failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_waits_after_the_limit_and_others_do_not() {
        let t = Throttle::new(Duration::from_secs(60));
        for _ in 0..3 {
            assert!(t.wait("a", 3).is_none());
            t.fail("a");
        }
        let wait = t.wait("a", 3).unwrap();
        assert!(wait <= Duration::from_secs(60) && wait > Duration::from_secs(50));
        assert!(t.wait("b", 3).is_none());
        t.clear("a");
        assert!(t.wait("a", 3).is_none());
    }

    #[test]
    fn failures_expire_with_the_window() {
        let t = Throttle::new(Duration::from_millis(20));
        t.fail("a");
        t.fail("a");
        assert!(t.wait("a", 2).is_some());
        std::thread::sleep(Duration::from_millis(30));
        assert!(t.wait("a", 2).is_none());
    }
}
