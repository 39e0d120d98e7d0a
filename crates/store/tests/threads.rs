//! Thread repository tests against a real SQLite file and a real PostgreSQL database.

#![expect(
    clippy::unwrap_used,
    reason = "tests: a failed step aborts with its message"
)]

mod common;

use antler_protocol::threads::{ThreadSortBy, ThreadStatus};
use antler_store::{Store, ThreadQuery};
use serde_json::{Map, Value, json};

async fn stores() -> (tempfile::TempDir, Vec<(&'static str, Store)>) {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    let stores = engines.open().await.unwrap();
    (tmp, stores)
}

fn map(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

#[tokio::test]
async fn create_is_idempotent_and_owner_scoped() {
    let (_tmp, stores) = stores().await;
    for (_engine, store) in stores {
        let first = store
            .threads
            .create("local", "t1", map(json!({"title": "a"})))
            .await
            .unwrap()
            .unwrap();
        assert!(first.created);
        assert_eq!(first.thread.status, ThreadStatus::Idle);
        let again = store
            .threads
            .create("local", "t1", map(json!({"title": "b"})))
            .await
            .unwrap()
            .unwrap();
        assert!(!again.created);
        assert_eq!(
            again.thread.metadata["title"], "a",
            "an existing thread is returned unchanged"
        );
        assert!(
            store
                .threads
                .create("someone", "t1", Map::new())
                .await
                .unwrap()
                .is_none(),
            "another owner's id is taken, and whose it is is not said"
        );
        assert!(store.threads.get("someone", "t1").await.unwrap().is_none());
    }
}

#[tokio::test]
async fn metadata_patches_merge_and_null_removes() {
    let (_tmp, stores) = stores().await;
    for (_engine, store) in stores {
        store
            .threads
            .create("local", "t", map(json!({"a": 1, "b": 2})))
            .await
            .unwrap();
        let t = store
            .threads
            .merge_metadata("local", "t", map(json!({"b": null, "c": {"x": true}})))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(Value::Object(t.metadata), json!({"a": 1, "c": {"x": true}}));
        assert!(t.updated_at > t.created_at);
        assert!(
            store
                .threads
                .merge_metadata("local", "nope", Map::new())
                .await
                .unwrap()
                .is_none()
        );
    }
}

#[tokio::test]
async fn search_filters_by_metadata_and_pages_newest_first() {
    let (_tmp, stores) = stores().await;
    for (_engine, store) in stores {
        // Created in an order unlike the ids' (t0 t3 t1 t4 t2): "newest first" cannot pass
        // by sorting ids.
        for i in 0..5 {
            let kind = if i % 2 == 0 { "even" } else { "odd" };
            store
                .threads
                .create(
                    "local",
                    &format!("t{}", i * 3 % 5),
                    map(json!({"kind": kind, "n": i, "tags": ["x"]})),
                )
                .await
                .unwrap();
        }
        let ids = |v: Vec<antler_store::ThreadRecord>| {
            v.into_iter().map(|t| t.thread_id).collect::<Vec<_>>()
        };
        let all = store
            .threads
            .search(
                "local",
                &ThreadQuery {
                    limit: 10,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(ids(all), ["t2", "t4", "t1", "t3", "t0"]);
        let even = store
            .threads
            .search(
                "local",
                &ThreadQuery {
                    metadata: map(json!({"kind": "even"})),
                    limit: 10,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(ids(even), ["t2", "t1", "t0"]);
        let by_number = store
            .threads
            .search(
                "local",
                &ThreadQuery {
                    metadata: map(json!({"n": 3})),
                    limit: 10,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(ids(by_number), ["t4"]);
        let by_array = store
            .threads
            .search(
                "local",
                &ThreadQuery {
                    metadata: map(json!({"tags": ["x"]})),
                    limit: 10,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(by_array.len(), 5);
        let page = store
            .threads
            .search(
                "local",
                &ThreadQuery {
                    limit: 2,
                    offset: 1,
                    sort: ThreadSortBy::ThreadId,
                    ascending: true,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(ids(page), ["t1", "t2"]);
        assert!(store.threads.delete("local", "t1").await.unwrap());
        assert!(!store.threads.delete("local", "t1").await.unwrap());
    }
}

#[tokio::test]
async fn metadata_keys_of_any_text_are_filtered_as_values_never_as_paths() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        let odd_keys = json!({"a \"quoted\" key": 1, "dotted.key": 2, "back\\slash": 3, "$[0]": 4});
        store
            .threads
            .create("local", "odd", map(odd_keys.clone()))
            .await
            .unwrap();
        store
            .threads
            .create("local", "plain", map(json!({"a": 1})))
            .await
            .unwrap();
        for (key, value) in odd_keys.as_object().unwrap() {
            let found = store
                .threads
                .search(
                    "local",
                    &ThreadQuery {
                        metadata: map(json!({ key: value })),
                        limit: 10,
                        ..Default::default()
                    },
                )
                .await
                .unwrap();
            let ids: Vec<_> = found.iter().map(|t| t.thread_id.as_str()).collect();
            assert_eq!(ids, ["odd"], "{engine}: key {key:?}");
        }
        // A NUL character: SQLite stores and finds it; PostgreSQL's jsonb cannot hold it, so
        // both the write and the filter are refused as such, and nothing is written.
        let nul = map(json!({"\u{0}key": "v\u{0}"}));
        let created = store.threads.create("local", "nul", nul.clone()).await;
        let found = store
            .threads
            .search(
                "local",
                &ThreadQuery {
                    metadata: nul,
                    limit: 10,
                    ..Default::default()
                },
            )
            .await;
        if engine == "postgres" {
            assert!(
                matches!(created, Err(antler_store::StoreError::Unstorable(_))),
                "{created:?}"
            );
            assert!(
                matches!(found, Err(antler_store::StoreError::Unstorable(_))),
                "{found:?}"
            );
            assert!(store.threads.get("local", "nul").await.unwrap().is_none());
        } else {
            created.unwrap();
            let ids: Vec<_> = found.unwrap().into_iter().map(|t| t.thread_id).collect();
            assert_eq!(ids, ["nul"], "{engine}");
        }
    }
}

/// A run records its graph and assistant in the thread's metadata in one statement: the
/// other keys stay, the two are replaced, and another owner's thread is left alone.
#[tokio::test]
async fn a_run_records_its_assistant_in_the_metadata_keeping_the_rest() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        let mut metadata = Map::new();
        metadata.insert("topic".into(), json!({"nested": [1, 2]}));
        metadata.insert("assistant_id".into(), json!("old"));
        store.threads.create("me", "t", metadata).await.unwrap();
        store
            .threads
            .record_assistant("me", "t", "lead_agent", "a-1")
            .await
            .unwrap();
        store
            .threads
            .record_assistant("someone-else", "t", "x", "y")
            .await
            .unwrap();
        let got = store
            .threads
            .get("me", "t")
            .await
            .unwrap()
            .unwrap()
            .metadata;
        assert_eq!(
            serde_json::Value::Object(got),
            json!({"topic": {"nested": [1, 2]}, "assistant_id": "a-1", "graph_id": "lead_agent"}),
            "{engine}"
        );
    }
}
