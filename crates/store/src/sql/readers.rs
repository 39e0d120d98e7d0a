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
use tokio::sync::{Mutex, OwnedMutexGuard, OwnedSemaphorePermit, Semaphore};

/// One connection's place: empty until first needed (and after it failed).
type Slot = Arc<Mutex<Option<SqliteConnection>>>;

/// Up to `max` reading connections.
#[derive(Clone)]
pub(crate) struct Readers {
    options: Arc<SqliteConnectOptions>,
    slots: Arc<[Slot]>,
    /// Where the next search for a free connection starts (spreads reads over them).
    next: Arc<AtomicUsize>,
    /// One permit per place: a read holding one finds a place free, and reads that find
    /// none wait in turn for whichever is given back first, not for one chosen in advance
    /// (which a long read would hold up while the others were free).
    free: Arc<Semaphore>,
}

impl std::fmt::Debug for Readers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Readers")
            .field("max", &self.slots.len())
            .finish()
    }
}

/// A reading connection, given back when dropped.
// Fields drop in order: the place is unlocked before its permit goes to the next read.
pub(crate) struct Reader {
    conn: OwnedMutexGuard<Option<SqliteConnection>>,
    _permit: OwnedSemaphorePermit,
}

impl Reader {
    /// The connection.
    pub(crate) fn conn(&mut self) -> &mut SqliteConnection {
        self.conn
            .as_mut()
            .unwrap_or_else(|| unreachable!("a reader is handed out open"))
    }

    /// Answers `out`, closing the connection first when the error says it is broken (the
    /// next read opens a fresh one).
    pub(crate) async fn finish<T>(mut self, out: Result<T, sqlx::Error>) -> Result<T, sqlx::Error> {
        if let Err(e) = &out
            && broken(e)
            && let Some(conn) = self.conn.take()
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
            free: Arc::new(Semaphore::new(slots.len())),
            slots,
            next: Arc::new(AtomicUsize::new(0)),
        };
        drop(readers.get().await?);
        Ok(readers)
    }

    /// A connection: once a place is free (in turn), a free open one, else a free place
    /// opened now.
    pub(crate) async fn get(&self) -> Result<Reader, sqlx::Error> {
        let permit = self
            .free
            .clone()
            .acquire_owned()
            .await
            .unwrap_or_else(|_| unreachable!("the semaphore is never closed"));
        let n = self.slots.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        loop {
            let mut unopened = None;
            for i in 0..n {
                if let Ok(guard) = self.slots[(start + i) % n].clone().try_lock_owned() {
                    if guard.is_some() {
                        return Ok(Reader {
                            conn: guard,
                            _permit: permit,
                        });
                    }
                    unopened.get_or_insert(guard);
                }
            }
            if let Some(guard) = unopened {
                return self.ready(guard, permit).await;
            }
            // The free place is being looked at by `counts` (for a moment, never across an
            // await): look again.
            tokio::task::yield_now().await;
        }
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
        permit: OwnedSemaphorePermit,
    ) -> Result<Reader, sqlx::Error> {
        if guard.is_none() {
            *guard = Some(self.options.connect().await?);
        }
        Ok(Reader {
            conn: guard,
            _permit: permit,
        })
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
