//! A SQLite database as a pool of readers and one writing connection. SQLite lets one writer
//! in at a time, and a writer that finds the lock taken sleeps in its busy handler (1, 2, 5,
//! 10 … ms): with several connections writing at once, runs spent most of their time asleep
//! there. Queued for the one writing connection instead, each write starts the moment the
//! previous one ends, and writes queued together commit together ([`Writer`]). In WAL mode
//! readers never wait for the writer.

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use sqlx::sqlite::{Sqlite, SqliteConnection, SqliteQueryResult, SqliteRow, SqliteStatement};
use sqlx::{Describe, Either, Execute, Executor};

use super::readers::Readers;
use super::writer::Writer;

/// The readers and the writer of one SQLite file; used where a pool is
/// (`query.execute(&db)`), it sends each statement to the right one by its first word.
#[derive(Debug, Clone)]
pub(crate) struct SqliteDb {
    read: Readers,
    write: Writer,
}

impl SqliteDb {
    /// Reads through `read`, writes and transactions through `write`.
    pub(crate) fn new(read: Readers, write: Writer) -> SqliteDb {
        SqliteDb { read, write }
    }

    /// The connection that writes (and runs every transaction).
    pub(crate) fn writer(&self) -> &Writer {
        &self.write
    }

    /// The connections that read.
    pub(crate) fn readers(&self) -> &Readers {
        &self.read
    }
}

/// Whether `sql` only reads: a `SELECT` (a `WITH` may end in a write, so it writes).
fn is_read(sql: &str) -> bool {
    let sql = sql.trim_start();
    sql.get(..6)
        .is_some_and(|first| first.eq_ignore_ascii_case("select"))
        && !sql[6..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
}

impl<'p> Executor<'p> for &'_ SqliteDb {
    type Database = Sqlite;

    fn fetch_many<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxStream<'e, Result<Either<SqliteQueryResult, SqliteRow>, sqlx::Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Sqlite>,
    {
        let read = is_read(query.sql());
        // Collected: a write is answered after its commit, and no read here has a large
        // answer.
        let collect = async move |conn: &mut SqliteConnection| {
            conn.fetch_many(query).try_collect::<Vec<_>>().await
        };
        futures::stream::once(self.run(read, collect))
            .map_ok(|rows| futures::stream::iter(rows.into_iter().map(Ok)))
            .try_flatten()
            .boxed()
    }

    fn fetch_optional<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxFuture<'e, Result<Option<SqliteRow>, sqlx::Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Sqlite>,
    {
        let read = is_read(query.sql());
        Box::pin(self.run(read, async move |conn| conn.fetch_optional(query).await))
    }

    fn prepare_with<'e, 'q: 'e>(
        self,
        sql: &'q str,
        parameters: &'e [sqlx::sqlite::SqliteTypeInfo],
    ) -> BoxFuture<'e, Result<SqliteStatement<'q>, sqlx::Error>>
    where
        'p: 'e,
    {
        // Preparing writes nothing: any reader does.
        Box::pin(self.run(true, async move |conn| {
            conn.prepare_with(sql, parameters).await
        }))
    }

    fn describe<'e, 'q: 'e>(
        self,
        sql: &'q str,
    ) -> BoxFuture<'e, Result<Describe<Sqlite>, sqlx::Error>>
    where
        'p: 'e,
    {
        Box::pin(self.run(true, async move |conn| conn.describe(sql).await))
    }
}

impl SqliteDb {
    /// Runs `work` on a reader when `read`, else as a writer (the future holds its own handle
    /// to the one it uses).
    fn run<T, F>(
        &self,
        read: bool,
        work: F,
    ) -> impl Future<Output = Result<T, sqlx::Error>> + use<T, F>
    where
        F: AsyncFnOnce(&mut SqliteConnection) -> Result<T, sqlx::Error>,
    {
        let side = match read {
            true => Either::Left(self.read.clone()),
            false => Either::Right(self.write.clone()),
        };
        async move {
            match side {
                Either::Left(readers) => readers.run(work).await,
                Either::Right(writer) => writer.run(work).await,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_read;

    #[test]
    fn only_selects_are_reads() {
        for sql in ["SELECT 1", "\n  select x FROM t", "SELECT\n*", "Select(1)"] {
            assert!(is_read(sql), "{sql:?}");
        }
        for sql in [
            "INSERT INTO t VALUES (1)",
            "UPDATE t SET x = 1",
            "WITH a AS (SELECT 1) DELETE FROM t",
            "SELECTED",
            "select_x()",
            "PRAGMA optimize",
            "",
            "SEL",
        ] {
            assert!(!is_read(sql), "{sql:?}");
        }
    }
}
