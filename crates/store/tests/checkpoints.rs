//! Checkpoint storage grows with what changed: messages are stored once per thread, the
//! history answer is bounded in bytes, and each thread counts the bytes it keeps.

#![expect(
    clippy::unwrap_used,
    reason = "tests: a failed step aborts with its message"
)]

mod common;

use antler_protocol::threads::ThreadStatus;
use antler_store::{NewCheckpoint, RunRecord, Store, StoredEvent};
use chrono::Utc;
use serde_json::{Map, Value, json};

async fn stores() -> (tempfile::TempDir, Vec<(&'static str, Store)>) {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    let stores = engines.open().await.unwrap();
    (tmp, stores)
}

async fn new_thread(store: &Store, owner: &str, id: &str) {
    store
        .threads
        .create(owner, id, Map::new())
        .await
        .unwrap()
        .unwrap();
}

async fn save(store: &Store, values: &Value, parent: Option<&str>) -> String {
    store
        .state
        .save(NewCheckpoint {
            thread_id: "t",
            values,
            status: ThreadStatus::Idle,
            run_id: None,
            parent_id: parent,
            metadata: &Map::new(),
        })
        .await
        .unwrap()
        .checkpoint_id
}

#[tokio::test]
async fn forks_of_a_large_message_store_only_what_changed() {
    let (tmp, stores) = stores().await;
    let big = "x".repeat(900 * 1024);
    for (engine, store) in stores {
        new_thread(&store, "local", "t").await;
        let mut values = json!({
            "messages": [{"type": "human", "id": "h1", "content": big}],
            "title": "start",
        });
        let first = save(&store, &values, None).await;
        let after_first = store.threads.stored_bytes("local").await.unwrap();
        let file_before = sqlite_bytes(tmp.path());
        assert!(after_first >= 900 * 1024, "{engine}: {after_first}");
        // 60 updates of 16 bytes each, as `update_state` forks.
        for i in 0..60 {
            values["title"] = json!(format!("title {i:>10}"));
            save(&store, &values, Some(&first)).await;
        }
        let grown = store.threads.stored_bytes("local").await.unwrap() - after_first;
        assert!(
            grown < 60 * 1024,
            "{engine}: 60 small forks added {grown} bytes"
        );
        if engine == "sqlite" {
            // The database file (and its write-ahead log) grows by as little.
            let file_grown = sqlite_bytes(tmp.path()).saturating_sub(file_before);
            assert!(
                file_grown < 8 * 1024 * 1024,
                "the database files grew by {file_grown} bytes"
            );
        }
        // Every state reads back whole.
        let latest = store.state.latest("t").await.unwrap().unwrap();
        assert_eq!(latest.state, values, "{engine}");
        let one = store.state.get("t", &first).await.unwrap().unwrap();
        assert_eq!(
            one.state["messages"][0]["content"].as_str().unwrap().len(),
            big.len()
        );
    }
}

/// A chain is saved at once, each checkpoint after the one before it; the thread takes the
/// last values; a message is stored and counted once however often it is offered (small
/// ones are offered with the insert, large ones asked about first).
#[tokio::test]
async fn a_chain_is_saved_in_order_and_counts_each_message_once() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        new_thread(&store, "local", "t").await;
        let head = save(&store, &json!({"messages": []}), None).await;
        let small = json!({"type": "human", "id": "h1", "content": "hello"});
        let large = json!({"type": "ai", "id": "a1", "content": "y".repeat(40 * 1024)});
        let one = json!({"messages": [small]});
        let two = json!({"messages": [small, large]});
        let meta = Map::new();
        let link = |values, parent| NewCheckpoint {
            thread_id: "t",
            values,
            status: ThreadStatus::Busy,
            run_id: None,
            parent_id: parent,
            metadata: &meta,
        };
        let before = store.threads.stored_bytes("local").await.unwrap();
        // The parent of every link after the first is ignored: each follows the one before.
        let saved = store
            .state
            .save_chain(&[
                link(&one, Some(&head)),
                link(&two, Some("ignored")),
                link(&two, None),
            ])
            .await
            .unwrap();
        let ids: Vec<&str> = saved.iter().map(|s| s.checkpoint_id.as_str()).collect();
        assert_eq!(
            saved.iter().map(|s| s.step).collect::<Vec<_>>(),
            [1, 2, 3],
            "{engine}"
        );
        assert_eq!(
            saved[0].parent_id.as_deref(),
            Some(head.as_str()),
            "{engine}"
        );
        assert_eq!(saved[1].parent_id.as_deref(), Some(ids[0]), "{engine}");
        assert_eq!(saved[2].parent_id.as_deref(), Some(ids[1]), "{engine}");
        let history = store
            .state
            .history("t", 10, None, usize::MAX)
            .await
            .unwrap();
        let listed: Vec<&str> = history.iter().map(|c| c.checkpoint_id.as_str()).collect();
        assert_eq!(listed, [ids[2], ids[1], ids[0], head.as_str()], "{engine}");
        assert_eq!(history[0].state, two, "{engine}");
        assert_eq!(history[2].state, one, "{engine}");
        let thread = store.threads.get("local", "t").await.unwrap().unwrap();
        assert_eq!(thread.values, two, "{engine}");
        assert_eq!(thread.status, ThreadStatus::Busy, "{engine}");
        // Each message once: the large one's 40 KiB, not 80, and the rows' few hundred bytes.
        let grown = store.threads.stored_bytes("local").await.unwrap() - before;
        assert!(
            (40 * 1024..44 * 1024).contains(&grown),
            "{engine}: the chain added {grown} bytes"
        );
        // Offered again (small: with the insert; large: asked about), nothing is counted twice.
        let again = store.threads.stored_bytes("local").await.unwrap();
        save(&store, &two, Some(ids[2])).await;
        let grown = store.threads.stored_bytes("local").await.unwrap() - again;
        assert!(
            grown < 1024,
            "{engine}: saving held messages again added {grown} bytes"
        );
        // An empty chain saves nothing.
        assert!(
            store.state.save_chain(&[]).await.unwrap().is_empty(),
            "{engine}"
        );
    }
}

#[tokio::test]
async fn history_answers_at_most_its_byte_budget_but_always_one_state() {
    let (_tmp, stores) = stores().await;
    let big = "y".repeat(300 * 1024);
    for (engine, store) in stores {
        new_thread(&store, "local", "t").await;
        let mut messages = Vec::new();
        let mut parent: Option<String> = None;
        for i in 0..10 {
            messages.push(json!({"type": "human", "id": format!("m{i}"), "content": big}));
            let values = json!({ "messages": messages });
            parent = Some(save(&store, &values, parent.as_deref()).await);
        }
        let all = store
            .state
            .history("t", 100, None, usize::MAX)
            .await
            .unwrap();
        assert_eq!(all.len(), 10, "{engine}");
        // The newest holds 10 messages of 300 KiB: 2 MiB allows only it and the one before
        // (3 MiB together would pass the budget).
        let capped = store
            .state
            .history("t", 100, None, 6 * 1024 * 1024)
            .await
            .unwrap();
        assert_eq!(capped.len(), 2, "{engine}");
        assert_eq!(capped[0].state["messages"].as_array().unwrap().len(), 10);
        let tiny = store.state.history("t", 100, None, 1).await.unwrap();
        assert_eq!(tiny.len(), 1, "{engine}: one state even over the budget");
        assert_eq!(tiny[0].checkpoint_id, all[0].checkpoint_id);
    }
}

#[tokio::test]
async fn threads_count_events_and_give_bytes_back_when_runs_go() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        new_thread(&store, "local", "t").await;
        new_thread(&store, "someone", "u").await;
        let now = Utc::now();
        let run = RunRecord {
            run_id: "r".into(),
            thread_id: "t".into(),
            owner: "local".into(),
            assistant_id: "a".into(),
            status: antler_protocol::runs::RunStatus::Success,
            stop_reason: None,
            error: None,
            multitask_strategy: antler_protocol::runs::MultitaskStrategy::Reject,
            metadata: Map::new(),
            kwargs: json!({}),
            instance: "i".into(),
            usage: antler_protocol::runs::RunUsage::default(),
            created_at: now,
            updated_at: now,
        };
        store.runs.create(&run).await.unwrap();
        let events: Vec<StoredEvent> = (1..=10)
            .map(|seq| StoredEvent {
                seq,
                event: "messages".into(),
                data: "d".repeat(1000),
            })
            .collect();
        store.runs.append_events("r", &events).await.unwrap();
        assert_eq!(
            store.threads.stored_bytes("local").await.unwrap(),
            10_000,
            "{engine}"
        );
        assert_eq!(
            store.threads.stored_bytes("someone").await.unwrap(),
            0,
            "{engine}"
        );
        assert!(store.runs.delete("t", "r").await.unwrap());
        assert_eq!(
            store.threads.stored_bytes("local").await.unwrap(),
            0,
            "{engine}"
        );
    }
}

/// The size of the SQLite database with its write-ahead log.
fn sqlite_bytes(dir: &std::path::Path) -> u64 {
    ["antler.db", "antler.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(dir.join(f)).ok())
        .map(|m| m.len())
        .sum()
}
