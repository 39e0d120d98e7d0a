//! The one SQLite connection that writes, with group commit.
//!
//! A SQLite commit costs far more than the statements in it (the WAL frames of every page
//! touched, the file locks, the checksums): with 200 runs writing at once, one commit per
//! statement was most of the server's time. So writers busy at the same time share one
//! transaction: the first begins it, each writes in turn, and it is committed once the
//! writers that were ready have written. Nobody is answered before that commit, so a write
//! that returns is durable and visible to readers as before; if the commit fails, every
//! member is told. An explicit transaction joins the group under a savepoint, so its own
//! rollback undoes only its own writes. A writer alone (no other in flight) writes in
//! autocommit or in its own transaction, as without grouping.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use sqlx::Executor;
use sqlx::sqlite::SqliteConnection;
use tokio::sync::{Mutex, OwnedMutexGuard, watch};

/// The writing connection; cheap to clone.
#[derive(Clone)]
pub(crate) struct Writer {
    slot: Arc<Mutex<Slot>>,
    /// Writers between asking for the connection and their answer (none: a writer may
    /// write alone).
    in_flight: Arc<AtomicUsize>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").finish_non_exhaustive()
    }
}

struct Slot {
    conn: SqliteConnection,
    /// The group transaction open on `conn`.
    group: Option<Arc<Group>>,
    /// What an explicit transaction left open when it was dropped before its end.
    dangling: Dangling,
    /// Groups committed so far.
    commits: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dangling {
    No,
    /// A transaction of its own (`BEGIN IMMEDIATE`).
    Transaction,
    /// A savepoint inside the group.
    Savepoint,
}

/// One group transaction: its members wait for its outcome.
struct Group {
    outcome: watch::Sender<Option<Result<(), String>>>,
    /// A member has taken on committing it.
    committer: std::sync::atomic::AtomicBool,
}

impl Group {
    fn new() -> Arc<Group> {
        Arc::new(Group {
            outcome: watch::Sender::new(None),
            committer: std::sync::atomic::AtomicBool::new(false),
        })
    }

    async fn outcome(&self) -> Result<(), sqlx::Error> {
        let mut rx = self.outcome.subscribe();
        let done = rx
            .wait_for(Option::is_some)
            .await
            .map_err(|_| not_committed("the writer went away"))?;
        match done.as_ref() {
            Some(Err(e)) => Err(not_committed(e)),
            _ => Ok(()),
        }
    }

    fn decided(&self) -> bool {
        self.outcome.borrow().is_some()
    }
}

fn not_committed(why: &str) -> sqlx::Error {
    sqlx::Error::Io(std::io::Error::other(format!(
        "the write was not committed: {why}"
    )))
}

/// Whether `e` may have rolled back the whole transaction, not just its statement (SQLite:
/// "if certain kinds of errors occur within a transaction, the transaction may or may not
/// be rolled back automatically" — I/O, full, busy, out of memory, corruption …).
fn may_end_transaction(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(d) => {
            // The extended result code; its low byte is the primary one. Statement-level:
            // SQL error, too big, constraint, type mismatch, out of range.
            let primary = d
                .code()
                .and_then(|c| c.parse::<i32>().ok())
                .map(|c| c & 0xff);
            !matches!(primary, Some(1 | 18 | 19 | 20 | 25))
        }
        sqlx::Error::Encode(_)
        | sqlx::Error::Decode(_)
        | sqlx::Error::ColumnDecode { .. }
        | sqlx::Error::ColumnNotFound(_)
        | sqlx::Error::ColumnIndexOutOfBounds { .. }
        | sqlx::Error::TypeNotFound { .. }
        | sqlx::Error::RowNotFound => false,
        _ => true,
    }
}

impl Slot {
    /// Undoes what a dropped transaction left.
    async fn clean(&mut self) -> Result<(), sqlx::Error> {
        let dangling = std::mem::replace(&mut self.dangling, Dangling::No);
        match dangling {
            Dangling::No => Ok(()),
            Dangling::Transaction => {
                // Already ended if an error rolled it back.
                let _ = self.conn.execute("ROLLBACK").await;
                Ok(())
            }
            Dangling::Savepoint => {
                if let Err(e) = self.conn.execute("ROLLBACK TO w; RELEASE w").await {
                    // The group's transaction ended under it: its members must know.
                    self.fail(&e.to_string()).await;
                    return Err(e);
                }
                Ok(())
            }
        }
    }

    /// The open group, begun with `begin` (`BEGIN IMMEDIATE`, perhaps followed by more in
    /// the same round trip) if there is none; also whether it was begun here.
    async fn open(&mut self, begin: &'static str) -> Result<(Arc<Group>, bool), sqlx::Error> {
        if let Some(g) = &self.group {
            return Ok((g.clone(), false));
        }
        // Marked first: a statement sent runs even if its sender is cancelled meanwhile, and
        // then whatever part of it ran is rolled back by the next holder (nobody wrote in
        // it: the connection was held throughout).
        self.dangling = Dangling::Transaction;
        if let Err(e) = self.conn.execute(begin).await {
            self.dangling = Dangling::No;
            // Whatever part of it ran is undone: the next group begins afresh.
            let _ = self.conn.execute("ROLLBACK").await;
            return Err(e);
        }
        self.dangling = Dangling::No;
        let g = Group::new();
        self.group = Some(g.clone());
        Ok((g, true))
    }

    /// Commits the open group in a task of its own, so that its members get an answer
    /// even when the member committing is cancelled.
    async fn commit_owned(slot: OwnedMutexGuard<Slot>) {
        let mut slot = slot;
        let _ = tokio::spawn(async move { slot.commit().await }).await;
    }

    async fn commit(&mut self) {
        let Some(group) = self.group.take() else {
            return;
        };
        let outcome = match self.conn.execute("COMMIT").await {
            Ok(_) => {
                self.commits += 1;
                Ok(())
            }
            Err(e) => {
                let _ = self.conn.execute("ROLLBACK").await;
                Err(e.to_string())
            }
        };
        group.outcome.send_replace(Some(outcome));
    }

    async fn fail(&mut self, why: &str) {
        if let Some(group) = self.group.take() {
            // Told first, so that a cancelled rollback (which still runs) leaves nobody
            // waiting.
            group.outcome.send_replace(Some(Err(why.to_string())));
            let _ = self.conn.execute("ROLLBACK").await;
        }
    }

    fn is_open(&self, group: &Arc<Group>) -> bool {
        self.group.as_ref().is_some_and(|g| Arc::ptr_eq(g, group))
    }
}

/// Asks for [`Writer::tidy_later`] when dropped still holding its writer.
struct TidyIfDropped(Option<Writer>);

impl Drop for TidyIfDropped {
    fn drop(&mut self) {
        if let Some(writer) = self.0.take() {
            writer.tidy_later();
        }
    }
}

/// Counts a writer as in flight until dropped (also when it is cancelled).
struct InFlight(Arc<AtomicUsize>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Writer {
    /// Writes through `conn` (migrated already).
    pub(crate) fn new(conn: SqliteConnection) -> Writer {
        Writer {
            slot: Arc::new(Mutex::new(Slot {
                conn,
                group: None,
                dangling: Dangling::No,
                commits: 0,
            })),
            in_flight: Arc::new(AtomicUsize::new(0)),
        }
    }

    async fn lock(&self) -> Result<OwnedMutexGuard<Slot>, sqlx::Error> {
        let mut slot = self.slot.clone().lock_owned().await;
        slot.clean().await?;
        Ok(slot)
    }

    /// Takes the connection to write: alone when no other writer is in flight, else in the
    /// open group.
    pub(crate) async fn join(&self) -> Result<Member, sqlx::Error> {
        Ok(self.join_opening("BEGIN IMMEDIATE").await?.0)
    }

    /// Runs `write` on the connection as a member ([`Writer::join`]) and answers once its
    /// group has committed.
    pub(crate) async fn run<T>(
        &self,
        write: impl AsyncFnOnce(&mut SqliteConnection) -> Result<T, sqlx::Error>,
    ) -> Result<T, sqlx::Error> {
        let mut member = self.join().await?;
        let out = write(member.conn()).await;
        member.finish(out).await
    }

    /// [`Writer::join`], beginning a new group with `begin`; also whether it did.
    async fn join_opening(&self, begin: &'static str) -> Result<(Member, bool), sqlx::Error> {
        let others = self.in_flight.fetch_add(1, Ordering::SeqCst);
        let in_flight = InFlight(self.in_flight.clone());
        let mut slot = self.lock().await?;
        let (group, opened) = if others == 0 && slot.group.is_none() {
            (None, false)
        } else {
            // Cancelled while the group is begun: a task rolls back what was begun, so that
            // no transaction is left holding the database.
            let mut opening = TidyIfDropped(Some(self.clone()));
            let begun = slot.open(begin).await;
            opening.0 = None;
            let (g, opened) = begun?;
            (Some(g), opened)
        };
        let member = Member {
            slot,
            watch: Watch {
                writer: self.clone(),
                group,
                in_tx: false,
                _in_flight: in_flight,
            },
        };
        Ok((member, opened))
    }

    /// Begins an explicit transaction.
    pub(crate) async fn begin(&self) -> Result<WriteTx, sqlx::Error> {
        // A group it opens is begun with its savepoint, in one round trip.
        let (mut member, opened) = self.join_opening("BEGIN IMMEDIATE; SAVEPOINT w").await?;
        let (sql, dangling) = match (&member.watch.group, opened) {
            (Some(_), true) => (None, Dangling::Savepoint),
            (Some(_), false) => (Some("SAVEPOINT w"), Dangling::Savepoint),
            (None, _) => (Some("BEGIN IMMEDIATE"), Dangling::Transaction),
        };
        // Set while it is open: if it is dropped unfinished, the next holder rolls it back.
        member.slot.dangling = dangling;
        member.watch.in_tx = true;
        if let Some(sql) = sql {
            member.conn().execute(sql).await?;
        }
        Ok(WriteTx { member })
    }

    /// Groups committed so far.
    #[cfg(test)]
    pub(crate) async fn group_commits(&self) -> u64 {
        self.slot.lock().await.commits
    }

    /// Whether nobody holds the connection (for pool statistics).
    pub(crate) fn idle(&self) -> bool {
        self.slot.try_lock().is_ok()
    }

    /// Commits `group` if it is still open (after a member went away mid-way); undoes what
    /// a dropped transaction left.
    fn tidy_later(&self) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let writer = self.clone();
        rt.spawn(async move {
            if let Ok(mut slot) = writer.lock().await {
                slot.commit().await;
            }
        });
    }
}

/// The connection held by one writer.
pub(crate) struct Member {
    slot: OwnedMutexGuard<Slot>,
    watch: Watch,
}

/// What a writer must see to its end; if it is dropped before (a cancelled request), a
/// task finishes it, so that no transaction stays open when no other writer comes.
struct Watch {
    writer: Writer,
    /// The group written in; `None` when writing alone.
    group: Option<Arc<Group>>,
    /// An explicit transaction is open.
    in_tx: bool,
    _in_flight: InFlight,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if self.in_tx || self.group.as_ref().is_some_and(|g| !g.decided()) {
            self.writer.tidy_later();
        }
    }
}

impl Member {
    /// The connection, to write on.
    pub(crate) fn conn(&mut self) -> &mut SqliteConnection {
        &mut self.slot.conn
    }

    /// After its writing: answers `out` once the group has committed (at once when alone).
    pub(crate) async fn finish<T>(mut self, out: Result<T, sqlx::Error>) -> Result<T, sqlx::Error> {
        if let Err(e) = &out
            && self.watch.group.is_some()
            && may_end_transaction(e)
        {
            self.slot.fail(&e.to_string()).await;
            return out;
        }
        self.settle().await?;
        out
    }

    /// Waits for the group's commit. The first member to get here commits it once every
    /// task ready to run has run (those about to write join first, the mutex being fair),
    /// so that one commit covers them all.
    async fn settle(self) -> Result<(), sqlx::Error> {
        let Member { slot, mut watch } = self;
        drop(slot);
        let Some(group) = watch.group.clone() else {
            return Ok(());
        };
        if !group.committer.swap(true, Ordering::SeqCst) {
            tokio::task::yield_now().await;
            let slot = watch.writer.lock().await?;
            if slot.is_open(&group) {
                Slot::commit_owned(slot).await;
            }
        }
        let done = group.outcome().await;
        watch.group = None;
        done
    }
}

/// An explicit write transaction; rolled back when dropped without [`WriteTx::commit`].
pub(crate) struct WriteTx {
    member: Member,
}

impl WriteTx {
    /// Commits: at once when alone, else with its group (answering after that commit).
    pub(crate) async fn commit(mut self) -> Result<(), sqlx::Error> {
        // Released, not left to the group's `COMMIT`: SQLite's cost of each page written
        // grows with the savepoints open (measured: hundreds in a busy group).
        let sql = if self.member.watch.group.is_some() {
            "RELEASE w"
        } else {
            "COMMIT"
        };
        self.member.conn().execute(sql).await?;
        self.member.slot.dangling = Dangling::No;
        self.member.watch.in_tx = false;
        self.member.settle().await
    }
}

impl std::ops::Deref for WriteTx {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        &self.member.slot.conn
    }
}

impl std::ops::DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        self.member.conn()
    }
}

#[cfg(test)]
#[path = "writer_tests.rs"]
mod tests;
