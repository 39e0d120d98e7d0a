//! Resolved credentials, kept briefly so a request costs no database round trip. Every
//! revocation (sign-out, password change, token revoked, account changed) clears the cache
//! here and, through the bus, on every replica; entries also expire after a few seconds, which
//! bounds what a change made by another process without the bus (a command next to a SQLite
//! server) can miss.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use super::Authenticated;

/// How long a resolved credential is reused.
pub(crate) const TTL: Duration = Duration::from_secs(5);
/// Entries kept at most (a flood of distinct credentials cannot grow memory).
const MAX_ENTRIES: usize = 10_000;

#[derive(Debug)]
struct Entry {
    auth: Authenticated,
    fetched: Instant,
    expires: Option<DateTime<Utc>>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Bumped by every clear, so a lookup that started before a revocation cannot store
    /// what it read.
    generation: u64,
    entries: HashMap<String, Entry>,
}

/// The cache.
#[derive(Debug, Default)]
pub(crate) struct CredentialCache {
    inner: Mutex<Inner>,
}

impl CredentialCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh, unexpired entry for `key`.
    pub(crate) fn get(&self, key: &str) -> Option<Authenticated> {
        let inner = self.lock();
        let entry = inner.entries.get(key)?;
        let fresh = entry.fetched.elapsed() < TTL && entry.expires.is_none_or(|e| e > Utc::now());
        fresh.then(|| entry.auth.clone())
    }

    /// The generation a lookup starts in.
    pub(crate) fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// Keeps what a lookup that started in `generation` found, unless a clear came since.
    pub(crate) fn put(
        &self,
        generation: u64,
        key: String,
        auth: Authenticated,
        expires: Option<DateTime<Utc>>,
    ) {
        let mut inner = self.lock();
        if inner.generation != generation {
            return;
        }
        if inner.entries.len() >= MAX_ENTRIES {
            inner.entries.clear();
        }
        inner.entries.insert(
            key,
            Entry {
                auth,
                fetched: Instant::now(),
                expires,
            },
        );
    }

    /// Forgets everything.
    pub(crate) fn clear(&self) {
        let mut inner = self.lock();
        inner.generation += 1;
        inner.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Caller;

    fn token() -> Authenticated {
        Authenticated::Token {
            caller: Caller::local(),
        }
    }

    #[test]
    fn entries_are_reused_until_cleared_or_expired() {
        let cache = CredentialCache::default();
        let g = cache.generation();
        cache.put(g, "a".into(), token(), None);
        assert!(cache.get("a").is_some());
        cache.put(
            g,
            "old".into(),
            token(),
            Some(Utc::now() - chrono::Duration::seconds(1)),
        );
        assert!(
            cache.get("old").is_none(),
            "an expired credential is not served"
        );
        cache.clear();
        assert!(cache.get("a").is_none());
    }

    #[test]
    fn a_lookup_that_raced_a_revocation_is_not_kept() {
        let cache = CredentialCache::default();
        let before = cache.generation();
        cache.clear();
        cache.put(before, "a".into(), token(), None);
        assert!(cache.get("a").is_none());
    }
}
