//! A SQLite database as two pools: reads share several connections, every write goes through
//! one. SQLite lets one writer in at a time, and a writer that finds the lock taken sleeps in
//! its busy handler (1, 2, 5, 10 … ms): with several connections writing at once, runs spent
//! most of their time asleep there. Queued for the one writing connection instead, each write
//! starts the moment the previous one ends. In WAL mode readers never wait for the writer.

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use sqlx::sqlite::{Sqlite, SqlitePool, SqliteQueryResult, SqliteRow, SqliteStatement};
use sqlx::{Describe, Either, Execute, Executor};

/// The two pools of one SQLite file; used where a pool is (`query.execute(&db)`), it sends
/// each statement to the right one by its first word.
#[derive(Debug, Clone)]
pub(crate) struct SqliteDb {
    read: SqlitePool,
    write: SqlitePool,
}

impl SqliteDb {
    /// Reads through `read`, writes and transactions through `write` (one connection).
    pub(crate) fn new(read: SqlitePool, write: SqlitePool) -> SqliteDb {
        SqliteDb { read, write }
    }

    /// The pool that writes (and runs every transaction).
    pub(crate) fn writer(&self) -> &SqlitePool {
        &self.write
    }

    /// The pool that reads.
    pub(crate) fn reader(&self) -> &SqlitePool {
        &self.read
    }

    fn pool_for(&self, sql: &str) -> &SqlitePool {
        if is_read(sql) {
            &self.read
        } else {
            &self.write
        }
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
        self.pool_for(query.sql()).fetch_many(query)
    }

    fn fetch_optional<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxFuture<'e, Result<Option<SqliteRow>, sqlx::Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Sqlite>,
    {
        self.pool_for(query.sql()).fetch_optional(query)
    }

    fn prepare_with<'e, 'q: 'e>(
        self,
        sql: &'q str,
        parameters: &'e [sqlx::sqlite::SqliteTypeInfo],
    ) -> BoxFuture<'e, Result<SqliteStatement<'q>, sqlx::Error>>
    where
        'p: 'e,
    {
        self.pool_for(sql).prepare_with(sql, parameters)
    }

    fn describe<'e, 'q: 'e>(
        self,
        sql: &'q str,
    ) -> BoxFuture<'e, Result<Describe<Sqlite>, sqlx::Error>>
    where
        'p: 'e,
    {
        self.pool_for(sql).describe(sql)
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
