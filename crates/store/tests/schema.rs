//! The schema: migrations kept in step between the engines, an upgrade that keeps data, and
//! the constraints the repositories rely on.

#![expect(
    clippy::unwrap_used,
    reason = "tests: a failed step aborts with its message"
)]

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use antler_protocol::threads::ThreadStatus;
use antler_store::{Location, NewCheckpoint, Store};
use serde_json::{Map, json};

fn versions(engine: &str) -> BTreeSet<u32> {
    let dir = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("../../migrations")
        .join(engine);
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".sql"))
        .map(|n| n.split('_').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn migrations_are_numbered_alike_in_both_engines() {
    let sqlite = versions("sqlite");
    assert_eq!(sqlite, versions("postgres"));
    let expected: BTreeSet<u32> = (1..=u32::try_from(sqlite.len()).unwrap()).collect();
    assert_eq!(sqlite, expected, "numbers run from 1 without gaps");
}

#[tokio::test]
async fn concurrent_saves_of_one_thread_get_distinct_steps() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        store
            .threads
            .create("local", "t", Map::new())
            .await
            .unwrap();
        let saves: Vec<_> = (0..20)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    let values = json!({"messages": [i]});
                    let metadata = serde_json::Map::new();
                    store
                        .state
                        .save(NewCheckpoint {
                            thread_id: "t",
                            values: &values,
                            status: ThreadStatus::Busy,
                            run_id: None,
                            parent_id: None,
                            metadata: &metadata,
                        })
                        .await
                })
            })
            .collect();
        let mut steps = BTreeSet::new();
        for save in saves {
            steps.insert(save.await.unwrap().unwrap().step);
        }
        assert_eq!(steps, (0..20).collect(), "{engine}");
        let history = store
            .state
            .history("t", 100, None, usize::MAX)
            .await
            .unwrap();
        for pair in history.windows(2) {
            assert!(
                pair[0].checkpoint_id > pair[1].checkpoint_id,
                "{engine}: newest first, and ids sort in the order they were saved"
            );
        }
    }
}

/// The previous schema (migrations 1-4) with data in it, written as that schema had it.
const OLD_DATA: &[&str] = &[
    "INSERT INTO threads (thread_id, owner, created_at, updated_at, metadata, status, state) \
     VALUES ('kept', 'local', NOW, NOW, '{\"title\": \"Kept\"}', 'idle', '{\"messages\": []}')",
    "INSERT INTO runs (run_id, thread_id, owner, assistant_id, status, stop_reason, error, \
     multitask_strategy, metadata, kwargs, instance, input_tokens, output_tokens, model_calls, \
     created_at, updated_at) VALUES ('r1', 'kept', 'local', 'lead_agent', 'success', 'completed', \
     NULL, 'reject', '{}', '{}', 'a', 5, 6, 1, NOW, NOW)",
    "INSERT INTO runs (run_id, thread_id, owner, assistant_id, status, stop_reason, error, \
     multitask_strategy, metadata, kwargs, instance, input_tokens, output_tokens, model_calls, \
     created_at, updated_at) VALUES ('orphan', 'gone', 'local', 'lead_agent', 'success', \
     'completed', NULL, 'reject', '{}', '{}', 'a', 0, 0, 1, NOW, NOW)",
    "INSERT INTO run_events (run_id, seq, event, data) VALUES ('r1', 1, 'metadata', '{}'), \
     ('r1', 2, 'end', 'null'), ('orphan', 1, 'end', 'null')",
    // Two saves that raced left one step twice.
    "INSERT INTO thread_checkpoints (checkpoint_id, thread_id, run_id, parent_id, step, state, \
     created_at) VALUES ('c0', 'kept', 'r1', NULL, 0, '{\"messages\": []}', NOW), \
     ('c1', 'kept', 'r1', 'c0', 1, '{\"messages\": []}', NOW), \
     ('c1b', 'kept', 'r1', 'c0', 1, '{\"messages\": []}', NOW), \
     ('x', 'gone', NULL, NULL, 0, '{}', NOW)",
];

async fn check_upgraded(engine: &str, store: &Store) {
    let thread = store.threads.get("local", "kept").await.unwrap().unwrap();
    assert_eq!(thread.metadata["title"], "Kept", "{engine}");
    let run = store.runs.get("kept", "r1").await.unwrap().unwrap();
    assert_eq!(
        (run.usage.input_tokens, run.usage.output_tokens),
        (5, 6),
        "{engine}"
    );
    assert_eq!(
        store.runs.events_after("r1", 0).await.unwrap().len(),
        2,
        "{engine}"
    );
    assert!(
        store.runs.get("gone", "orphan").await.unwrap().is_none(),
        "{engine}"
    );
    assert!(
        store
            .runs
            .events_after("orphan", 0)
            .await
            .unwrap()
            .is_empty(),
        "{engine}"
    );
    let steps: Vec<i64> = store
        .state
        .history("kept", 10, None, usize::MAX)
        .await
        .unwrap()
        .iter()
        .map(|c| c.step)
        .collect();
    assert_eq!(
        steps,
        [2, 1, 0],
        "{engine}: duplicate steps renumbered, none lost"
    );
    assert!(
        store.state.latest("gone").await.unwrap().is_none(),
        "{engine}"
    );
    // The new constraints hold: deleting the thread takes everything with it.
    assert!(store.threads.delete("local", "kept").await.unwrap());
    assert!(
        store.runs.events_after("r1", 0).await.unwrap().is_empty(),
        "{engine}"
    );
    assert!(
        store.state.latest("kept").await.unwrap().is_none(),
        "{engine}"
    );
}

#[tokio::test]
async fn upgrading_a_sqlite_database_of_the_previous_schema_keeps_its_data() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("antler.db");
    {
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        let mut old = sqlx::migrate!("../../migrations/sqlite");
        old.migrations = old
            .migrations
            .iter()
            .filter(|m| m.version <= 4)
            .cloned()
            .collect();
        old.run(&pool).await.unwrap();
        for sql in OLD_DATA {
            sqlx::query(&sql.replace("NOW", "'2026-11-01T10:00:00.000000Z'"))
                .execute(&pool)
                .await
                .unwrap();
        }
        pool.close().await;
    }
    let store = Store::open(&Location::Sqlite(path), 2).await.unwrap();
    check_upgraded("sqlite", &store).await;
}

#[tokio::test]
async fn upgrading_a_postgres_database_of_the_previous_schema_keeps_its_data() {
    let Ok(admin) = std::env::var("ANTLER_TEST_POSTGRES_URL") else {
        assert!(
            std::env::var_os("ANTLER_REQUIRE_POSTGRES").is_none(),
            "ANTLER_REQUIRE_POSTGRES is set but ANTLER_TEST_POSTGRES_URL is not"
        );
        return;
    };
    let url = common::fresh_database(&admin).await.unwrap();
    {
        let pool = sqlx::PgPool::connect(&url).await.unwrap();
        let mut old = sqlx::migrate!("../../migrations/postgres");
        // The previous schema: 0001 as it was (0002-0004 did not exist on this engine).
        old.migrations = old
            .migrations
            .iter()
            .filter(|m| m.version == 1)
            .cloned()
            .collect();
        old.run(&pool).await.unwrap();
        for sql in OLD_DATA {
            sqlx::query(&sql.replace("NOW", "now()"))
                .execute(&pool)
                .await
                .unwrap();
        }
        pool.close().await;
    }
    let store = Store::open(&Location::Postgres(url), 2).await.unwrap();
    check_upgraded("postgres", &store).await;
}
