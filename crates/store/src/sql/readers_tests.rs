//! Reading connections: shared by many readers, never more than allowed, and a read given up
//! half-way leaves its connection usable.

use std::time::Duration;

use crate::sql::Db;
use crate::sql::sqlite::SqliteDb;

async fn db(dir: &std::path::Path, max: u32) -> SqliteDb {
    let Db::Sqlite(db) = Db::sqlite(&dir.join("r.db"), max).await.unwrap() else {
        unreachable!("a SQLite path opens SQLite")
    };
    db
}

/// A read that takes a while (counts to five million).
const SLOW: &str = "SELECT (SELECT count(*) FROM (WITH RECURSIVE c(x) AS \
     (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT x FROM c))";

#[tokio::test]
async fn many_readers_share_at_most_the_connections_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    let db = std::sync::Arc::new(db(tmp.path(), 3).await);
    let reads: Vec<_> = (0..50i64)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move {
                let n: i64 = sqlx::query_scalar("SELECT $1 + 1")
                    .bind(i)
                    .fetch_one(&*db)
                    .await
                    .unwrap();
                assert_eq!(n, i + 1);
            })
        })
        .collect();
    for r in reads {
        r.await.unwrap();
    }
    let (open, idle, max) = db.readers().counts();
    assert_eq!(max, 3);
    assert!((1..=3).contains(&open), "{open} open");
    assert_eq!(idle, open, "every connection was given back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_go_to_whichever_connection_is_free_while_one_is_held() {
    let tmp = tempfile::tempdir().unwrap();
    let db = std::sync::Arc::new(db(tmp.path(), 2).await);
    // A long read: its connection is taken until the end of the test.
    let held = db.readers().get().await.unwrap();
    let reads: Vec<_> = (0..50i64)
        .map(|i| {
            let db = db.clone();
            tokio::spawn(async move {
                sqlx::query_scalar::<_, i64>("SELECT $1 + 1")
                    .bind(i)
                    .fetch_one(&*db)
                    .await
                    .unwrap()
            })
        })
        .collect();
    // Reads that found both connections taken must not have queued for the held one. The
    // limit only turns a hang into a failure.
    let all = futures::future::join_all(reads);
    let done = tokio::time::timeout(Duration::from_secs(60), all)
        .await
        .expect("reads waited for the held connection");
    for (i, n) in done.into_iter().enumerate() {
        assert_eq!(n.unwrap(), i as i64 + 1);
    }
    assert_eq!(db.readers().counts(), (2, 1, 2));
    drop(held);
    assert_eq!(db.readers().counts(), (2, 2, 2));
}

#[tokio::test]
async fn a_read_given_up_half_way_leaves_its_connection_usable() {
    let tmp = tempfile::tempdir().unwrap();
    // One connection: the next read must use the very one the abandoned read had.
    let db = db(tmp.path(), 1).await;
    let slow = sqlx::query_scalar::<_, i64>(SLOW).fetch_one(&db);
    assert!(
        tokio::time::timeout(Duration::from_millis(20), slow)
            .await
            .is_err(),
        "the slow read finished too soon to be given up"
    );
    let n: i64 = sqlx::query_scalar("SELECT 41 + 1")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(n, 42);
    let rows: Vec<i64> = sqlx::query_scalar("SELECT value FROM json_each('[1,2,3]')")
        .fetch_all(&db)
        .await
        .unwrap();
    assert_eq!(rows, [1, 2, 3]);
    assert_eq!(db.readers().counts(), (1, 1, 1));
}
