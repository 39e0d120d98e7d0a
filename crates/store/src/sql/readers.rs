//! The reading connections of one SQLite file, opened when first needed.
//!
//! Not an `sqlx` pool: a pool sends every connection it takes back a test query (`ping`),
//! which for SQLite is one more round trip to the connection's thread per read, and reads
//! were most of a run's statements. A read cannot leave anything behind that such a test
//! would clear (it opens no transaction; a read dropped half-way only stops its statement,
//! which the connection's thread resets before the next command).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions, Connection};
use tokio::sync::{Mutex, OwnedMutexGuard};

/// One connection's place: empty until first needed (and after it failed).
type Slot = Arc<Mutex<Option<SqliteConnection>>>;

/// Up to `max` reading connections.
#[derive(Clone)]
pub(crate) struct Readers {
    options: Arc<SqliteConnectOptions>,
    slots: Arc<[Slot]>,
    /// Where the next search for a free connection starts (spreads reads over them).
    next: Arc<AtomicUsize>,
}

impl std::fmt::Debug for Readers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Readers")
            .field("max", &self.slots.len())
            .finish()
    }
}

/// A reading connection, given back when dropped.
pub(crate) struct Reader(OwnedMutexGuard<Option<SqliteConnection>>);

impl Reader {
    /// The connection.
    pub(crate) fn conn(&mut self) -> &mut SqliteConnection {
        self.0
            .as_mut()
            .unwrap_or_else(|| unreachable!("a reader is handed out open"))
    }

    /// Answers `out`, closing the connection first when the error says it is broken (the
    /// next read opens a fresh one).
    pub(crate) async fn finish<T>(mut self, out: Result<T, sqlx::Error>) -> Result<T, sqlx::Error> {
        if let Err(e) = &out
            && broken(e)
            && let Some(conn) = self.0.take()
        {
            let _ = conn.close_hard().await;
        }
        out
    }
}

/// Errors after which the connection is not trusted again.
fn broken(e: &sqlx::Error) -> bool {
    matches!(
        e,
        sqlx::Error::Io(_) | sqlx::Error::Protocol(_) | sqlx::Error::WorkerCrashed
    )
}

impl Readers {
    /// At most `max` (at least one) connections made with `options`; one is opened now, so
    /// that a database that cannot be read fails here.
    pub(crate) async fn open(
        options: SqliteConnectOptions,
        max: u32,
    ) -> Result<Readers, sqlx::Error> {
        let slots: Arc<[Slot]> = (0..max.max(1))
            .map(|_| Arc::new(Mutex::new(None)))
            .collect();
        let readers = Readers {
            options: Arc::new(options),
            slots,
            next: Arc::new(AtomicUsize::new(0)),
        };
        drop(readers.get().await?);
        Ok(readers)
    }

    /// A connection: a free open one, else a free place opened now, else the next one in
    /// turn once it is free.
    pub(crate) async fn get(&self) -> Result<Reader, sqlx::Error> {
        let n = self.slots.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        let order = || (0..n).map(move |i| &self.slots[(start + i) % n]);
        let mut unopened = None;
        for slot in order() {
            if let Ok(guard) = slot.clone().try_lock_owned() {
                if guard.is_some() {
                    return Ok(Reader(guard));
                }
                unopened.get_or_insert(guard);
            }
        }
        let guard = match unopened {
            Some(guard) => guard,
            None => self.slots[start].clone().lock_owned().await,
        };
        self.ready(guard).await
    }

    /// Runs `read` on a reading connection ([`Readers::get`], [`Reader::finish`]).
    pub(crate) async fn run<T>(
        &self,
        read: impl AsyncFnOnce(&mut SqliteConnection) -> Result<T, sqlx::Error>,
    ) -> Result<T, sqlx::Error> {
        let mut reader = self.get().await?;
        let out = read(reader.conn()).await;
        reader.finish(out).await
    }

    async fn ready(
        &self,
        mut guard: OwnedMutexGuard<Option<SqliteConnection>>,
    ) -> Result<Reader, sqlx::Error> {
        if guard.is_none() {
            *guard = Some(self.options.connect().await?);
        }
        Ok(Reader(guard))
    }

    /// Connections open, of them free, and the most there may be.
    pub(crate) fn counts(&self) -> (u32, u32, u32) {
        let (mut open, mut idle) = (0u32, 0u32);
        for slot in self.slots.iter() {
            match slot.try_lock() {
                Ok(guard) if guard.is_some() => {
                    open += 1;
                    idle += 1;
                }
                Ok(_) => {}
                // Taken: in use, so open (or being opened).
                Err(_) => open += 1,
            }
        }
        let max = u32::try_from(self.slots.len()).unwrap_or(u32::MAX);
        (open, idle, max)
    }
}

#[cfg(test)]
#[path = "readers_tests.rs"]
mod tests;
