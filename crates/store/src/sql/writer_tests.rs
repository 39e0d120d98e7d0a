//! Group commit: what members of one group see of each other's failures and cancellations.

use std::sync::Arc;

use sqlx::Executor;

use crate::sql::Db;
use crate::sql::sqlite::SqliteDb;

async fn db(dir: &std::path::Path) -> Arc<SqliteDb> {
    let Db::Sqlite(db) = Db::sqlite(&dir.join("t.db"), 2).await.unwrap() else {
        unreachable!("a SQLite path opens SQLite")
    };
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)")
        .await
        .unwrap();
    Arc::new(db)
}

async fn values(db: &SqliteDb) -> Vec<String> {
    sqlx::query_scalar("SELECT v FROM t ORDER BY v")
        .fetch_all(db)
        .await
        .unwrap()
}

async fn insert(db: &SqliteDb, v: &str) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO t (v) VALUES ($1)")
        .bind(v)
        .execute(db)
        .await
        .map(|_| ())
}

#[tokio::test]
async fn concurrent_writes_commit_together_and_each_is_visible_when_answered() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db(tmp.path()).await;
    let before = db.writer().group_commits().await;
    let tasks: Vec<_> = (0..100)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move {
                insert(&db, &format!("v{i:03}")).await.unwrap();
                // Answered only after the commit: a reader (another connection) sees it.
                let seen: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM t WHERE v = $1")
                    .bind(format!("v{i:03}"))
                    .fetch_one(&*db)
                    .await
                    .unwrap();
                assert_eq!(seen, 1);
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(values(&db).await.len(), 100);
    let groups = db.writer().group_commits().await - before;
    assert!(
        groups < 50,
        "100 writes at once took {groups} group commits"
    );
}

#[tokio::test]
async fn a_failing_statement_or_transaction_undoes_only_itself() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db(tmp.path()).await;
    insert(&db, "taken").await.unwrap();
    let tasks: Vec<_> = (0..60)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move {
                match i % 3 {
                    // A unique violation fails that statement alone.
                    0 => insert(&db, "taken").await.is_err(),
                    // A transaction that writes, then fails, then is dropped: rolled back.
                    1 => {
                        let mut tx = crate::sql::Engine::begin_write(&*db).await.unwrap();
                        sqlx::query("INSERT INTO t (v) VALUES ($1)")
                            .bind(format!("undone{i}"))
                            .execute(&mut *tx)
                            .await
                            .unwrap();
                        sqlx::query("INSERT INTO t (v) VALUES ('taken')")
                            .execute(&mut *tx)
                            .await
                            .is_err()
                    }
                    _ => insert(&db, &format!("kept{i:02}")).await.is_ok(),
                }
            })
        })
        .collect();
    for t in tasks {
        assert!(t.await.unwrap());
    }
    let vs = values(&db).await;
    assert_eq!(vs.len(), 21, "{vs:?}");
    assert!(vs.iter().all(|v| v == "taken" || v.starts_with("kept")));
}

/// Transactions committed and rolled back in one group: each rollback undoes only its own
/// writes, and the group keeps the committed ones whole.
#[tokio::test]
async fn rollbacks_after_commits_in_a_group_undo_only_their_own() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db(tmp.path()).await;
    let tasks: Vec<_> = (0..60)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move {
                let mut tx = crate::sql::Engine::begin_write(&*db).await.unwrap();
                for k in 0..2 {
                    sqlx::query("INSERT INTO t (v) VALUES ($1)")
                        .bind(format!(
                            "{}{i:02}-{k}",
                            if i % 2 == 0 { "kept" } else { "undone" }
                        ))
                        .execute(&mut *tx)
                        .await
                        .unwrap();
                }
                if i % 2 == 0 {
                    tx.commit().await.unwrap();
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    insert(&db, "after").await.unwrap();
    let vs = values(&db).await;
    assert_eq!(vs.len(), 61, "{vs:?}");
    assert!(
        vs.iter().all(|v| v == "after" || v.starts_with("kept")),
        "{vs:?}"
    );
    assert!(
        db.writer().group_commits().await < 60,
        "the transactions were not grouped"
    );
}

#[tokio::test]
async fn a_committed_transaction_in_a_group_is_kept_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db(tmp.path()).await;
    let tasks: Vec<_> = (0..40)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move {
                let mut tx = crate::sql::Engine::begin_write(&*db).await.unwrap();
                for k in 0..3 {
                    sqlx::query("INSERT INTO t (v) VALUES ($1)")
                        .bind(format!("t{i:02}-{k}"))
                        .execute(&mut *tx)
                        .await
                        .unwrap();
                }
                tx.commit().await.unwrap();
                insert(&db, &format!("s{i:02}")).await.unwrap();
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(values(&db).await.len(), 160);
}

/// Ten writers of round `round`: those `abandons` picks open a transaction, write in it and
/// then wait forever (a client that went away); the others write `w{round:02}-{i}`.
fn writers(
    db: &Arc<SqliteDb>,
    round: usize,
    abandons: fn(usize) -> bool,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..10)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move {
                if abandons(i) {
                    let mut tx = crate::sql::Engine::begin_write(&*db).await.unwrap();
                    sqlx::query("INSERT INTO t (v) VALUES ($1)")
                        .bind(format!("abandoned{round}-{i}"))
                        .execute(&mut *tx)
                        .await
                        .unwrap();
                    std::future::pending::<()>().await;
                }
                insert(&db, &format!("w{round:02}-{i}")).await.unwrap();
            })
        })
        .collect()
}

#[tokio::test]
async fn writers_cancelled_mid_group_lose_nothing_answered_and_leave_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db(tmp.path()).await;
    for round in 0..20 {
        let tasks = writers(&db, round, |i| i % 2 == 0);
        for _ in 0..round % 5 {
            tokio::task::yield_now().await;
        }
        // Cancelled wherever they are: waiting, writing, holding their transaction or
        // waiting for the commit.
        for t in tasks.iter().step_by(2) {
            t.abort();
        }
        for t in tasks.into_iter().skip(1).step_by(2) {
            t.await.unwrap();
        }
    }
    // Every answered write is there, nothing of the abandoned transactions is.
    let vs = values(&db).await;
    assert_eq!(vs.len(), 100, "{vs:?}");
    assert!(vs.iter().all(|v| v.starts_with('w')), "{vs:?}");
    // And the writer is free: a new write goes through.
    insert(&db, "after").await.unwrap();
    assert_eq!(values(&db).await.len(), 101);
}

#[tokio::test]
async fn a_group_whose_members_all_went_away_is_still_closed() {
    use sqlx::Connection;
    let tmp = tempfile::tempdir().unwrap();
    let db = db(tmp.path()).await;
    for round in 0..10 {
        let tasks = writers(&db, round, |i| i == 0);
        for _ in 0..=round {
            tokio::task::yield_now().await;
        }
        for t in &tasks {
            t.abort();
        }
        for t in tasks {
            let _ = t.await;
        }
        // Another process (the command line beside the server) can write: no transaction
        // was left open holding the database.
        let mut other = sqlx::sqlite::SqliteConnection::connect_with(
            &sqlx::sqlite::SqliteConnectOptions::new()
                .filename(tmp.path().join("t.db"))
                .busy_timeout(std::time::Duration::from_secs(5)),
        )
        .await
        .unwrap();
        sqlx::query("INSERT INTO t (v) VALUES ($1)")
            .bind(format!("other{round}"))
            .execute(&mut other)
            .await
            .unwrap();
        other.close().await.unwrap();
    }
    let vs = values(&db).await;
    assert!(!vs.iter().any(|v| v.starts_with("abandoned")), "{vs:?}");
}

/// The writer (through which a `PRAGMA` goes) checkpoints the log every 10,000 pages.
#[tokio::test]
async fn the_writer_checkpoints_in_large_steps() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db(tmp.path()).await;
    let pages: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
        .fetch_one(&*db)
        .await
        .unwrap();
    assert_eq!(pages, 10_000);
}

/// A writer cancelled while it begins a group (its `BEGIN IMMEDIATE` sent, not answered)
/// leaves no transaction holding the database: another process can write.
#[tokio::test]
async fn a_writer_cancelled_while_beginning_a_group_leaves_nothing_open() {
    use sqlx::Connection;
    let tmp = tempfile::tempdir().unwrap();
    let db = db(tmp.path()).await;
    let writer = db.writer().clone();
    // Another writer counted in flight: the next one opens a group.
    writer
        .in_flight
        .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    // Polled once: it holds the connection and waits for its `BEGIN`'s answer. (On a busy
    // machine the answer may already be there: that group is closed and it is tried again.)
    let mut cancelled = false;
    for _ in 0..50 {
        let mut joining = Box::pin(writer.join());
        match futures::poll!(&mut joining) {
            std::task::Poll::Pending => {
                drop(joining);
                cancelled = true;
                break;
            }
            std::task::Poll::Ready(member) => {
                drop(member);
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
        }
    }
    assert!(cancelled, "every BEGIN was answered at once");
    writer
        .in_flight
        .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    let mut other = sqlx::sqlite::SqliteConnection::connect_with(
        &sqlx::sqlite::SqliteConnectOptions::new()
            .filename(tmp.path().join("t.db"))
            .busy_timeout(std::time::Duration::from_secs(3)),
    )
    .await
    .unwrap();
    sqlx::query("INSERT INTO t (v) VALUES ('other')")
        .execute(&mut other)
        .await
        .unwrap();
    other.close().await.unwrap();
    insert(&db, "after").await.unwrap();
    assert_eq!(values(&db).await, ["after", "other"]);
}
