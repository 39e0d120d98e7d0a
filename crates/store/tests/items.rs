//! Store item repository tests against a real SQLite file and a real PostgreSQL database.

#![expect(
    clippy::unwrap_used,
    reason = "tests: a failed step should abort the test with its message"
)]

mod common;

use antler_store::items::{Condition, Op};
use antler_store::{ItemQuery, NamespaceQuery, NewItem, Store};
use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

fn ns(labels: &[&str]) -> Vec<String> {
    labels.iter().map(|l| l.to_string()).collect()
}

fn new_item(owner: &str, namespace: &[&str], key: &str, value: Value) -> NewItem {
    let Value::Object(value) = value else {
        unreachable!("test values are objects")
    };
    NewItem {
        owner: owner.into(),
        namespace: ns(namespace),
        key: key.into(),
        search_text: Some(
            value
                .values()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        value,
        ttl_minutes: None,
        now: Utc::now(),
    }
}

async fn put(store: &Store, owner: &str, namespace: &[&str], key: &str, value: Value) {
    store
        .items
        .put(&new_item(owner, namespace, key, value))
        .await
        .unwrap();
}

async fn keys(store: &Store, owner: &str, query: ItemQuery) -> Vec<String> {
    store
        .items
        .search(owner, &query, Utc::now(), true)
        .await
        .unwrap()
        .into_iter()
        .map(|(i, _)| i.key)
        .collect()
}

fn query(prefix: &[&str]) -> ItemQuery {
    ItemQuery {
        prefix: ns(prefix),
        limit: 100,
        ..ItemQuery::default()
    }
}

#[tokio::test]
async fn items_are_stored_replaced_and_deleted_per_owner() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let repo = &store.items;
        let now = Utc::now();
        put(
            &store,
            "ann",
            &["notes", "work"],
            "k1",
            json!({"text": "first"}),
        )
        .await;
        put(
            &store,
            "bob",
            &["notes", "work"],
            "k1",
            json!({"text": "bob's"}),
        )
        .await;
        let first = repo
            .get("ann", &ns(&["notes", "work"]), "k1", now, true)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(first.value["text"], "first", "{engine}");
        assert_eq!(first.namespace, ns(&["notes", "work"]), "{engine}");
        // A replacement keeps the creation time.
        let mut again = new_item("ann", &["notes", "work"], "k1", json!({"text": "second"}));
        again.now = first.updated_at + Duration::seconds(3);
        repo.put(&again).await.unwrap();
        let second = repo
            .get("ann", &ns(&["notes", "work"]), "k1", now, true)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(second.value["text"], "second", "{engine}");
        assert_eq!(second.created_at, first.created_at, "{engine}");
        assert!(second.updated_at > first.updated_at, "{engine}");
        // Bob's item is his own.
        let bobs = repo
            .get("bob", &ns(&["notes", "work"]), "k1", now, true)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(bobs.value["text"], "bob's", "{engine}");
        assert!(
            repo.delete("ann", &ns(&["notes", "work"]), "k1")
                .await
                .unwrap()
        );
        assert!(
            !repo
                .delete("ann", &ns(&["notes", "work"]), "k1")
                .await
                .unwrap()
        );
        assert!(
            repo.get("ann", &ns(&["notes", "work"]), "k1", now, true)
                .await
                .unwrap()
                .is_none(),
            "{engine}"
        );
        assert!(
            repo.get("bob", &ns(&["notes", "work"]), "k1", now, true)
                .await
                .unwrap()
                .is_some(),
            "{engine}: another owner's delete leaves it"
        );
    }
}

#[tokio::test]
async fn a_prefix_matches_whole_labels_and_filters_compare_json_values() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        put(
            &store,
            "ann",
            &["a", "b"],
            "1",
            json!({"n": 1, "kind": "x", "tags": {"t": [1, 2]}}),
        )
        .await;
        put(
            &store,
            "ann",
            &["a", "b", "c"],
            "2",
            json!({"n": 2.5, "kind": "y", "ok": true}),
        )
        .await;
        put(&store, "ann", &["ab"], "3", json!({"n": "5", "kind": "x"})).await;
        put(&store, "ann", &["a"], "4", json!({"n": 10, "kind": null})).await;
        put(&store, "bob", &["a", "b"], "5", json!({"n": 1})).await;

        let mut found = keys(&store, "ann", query(&["a"])).await;
        found.sort();
        assert_eq!(found, ["1", "2", "4"], "{engine}: ab is not under a");
        let mut found = keys(&store, "ann", query(&["a", "b"])).await;
        found.sort();
        assert_eq!(found, ["1", "2"], "{engine}");
        assert_eq!(keys(&store, "ann", query(&[])).await.len(), 4, "{engine}");

        let cases: Vec<(Vec<Condition>, Vec<&str>)> = vec![
            (vec![cond("kind", Op::Eq, json!("x"))], vec!["1", "3"]),
            (vec![cond("n", Op::Eq, json!(1.0))], vec!["1"]),
            (vec![cond("n", Op::Gt, json!(1))], vec!["2", "4"]),
            (
                vec![cond("n", Op::Gte, json!(1)), cond("n", Op::Lt, json!(10))],
                vec!["1", "2"],
            ),
            (vec![cond("n", Op::Lte, json!(2.5))], vec!["1", "2"]),
            (vec![cond("n", Op::Gt, json!("4"))], vec!["3"]),
            (vec![cond("kind", Op::Ne, json!("x"))], vec!["2", "4"]),
            (vec![cond("ok", Op::Ne, json!(true))], vec!["1", "3", "4"]),
            (vec![cond("ok", Op::Eq, json!(1))], vec![]),
            (vec![cond("kind", Op::Eq, Value::Null)], vec!["4"]),
            (vec![cond("tags", Op::Eq, json!({"t": [1, 2]}))], vec!["1"]),
            (vec![cond("missing", Op::Gt, json!(0))], vec![]),
        ];
        for (conditions, expected) in cases {
            let mut found = keys(
                &store,
                "ann",
                ItemQuery {
                    conditions: conditions.clone(),
                    ..query(&[])
                },
            )
            .await;
            found.sort();
            assert_eq!(found, expected, "{engine}: {conditions:?}");
        }
    }
}

fn cond(key: &str, op: Op, value: Value) -> Condition {
    Condition {
        key: key.into(),
        op,
        value,
    }
}

#[tokio::test]
async fn full_text_search_ranks_by_relevance_and_skips_unindexed_items() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        put(
            &store,
            "ann",
            &["docs"],
            "weak",
            json!({"text": "rust is mentioned once among many other words here"}),
        )
        .await;
        put(
            &store,
            "ann",
            &["docs"],
            "strong",
            json!({"text": "rust rust ownership rust borrow"}),
        )
        .await;
        put(
            &store,
            "ann",
            &["docs"],
            "none",
            json!({"text": "python snakes"}),
        )
        .await;
        let mut hidden = new_item(
            "ann",
            &["docs"],
            "hidden",
            json!({"text": "rust rust rust"}),
        );
        hidden.search_text = None;
        store.items.put(&hidden).await.unwrap();
        put(
            &store,
            "bob",
            &["docs"],
            "bobs",
            json!({"text": "rust rust rust rust"}),
        )
        .await;
        let found = store
            .items
            .search(
                "ann",
                &ItemQuery {
                    text: Some("Rust ownership?".into()),
                    ..query(&["docs"])
                },
                Utc::now(),
                true,
            )
            .await
            .unwrap();
        let ranked: Vec<&str> = found.iter().map(|(i, _)| i.key.as_str()).collect();
        assert_eq!(ranked, ["strong", "weak"], "{engine}");
        let scores: Vec<f64> = found.iter().map(|(_, s)| s.unwrap()).collect();
        assert!(
            scores[0] > scores[1] && scores[1] > 0.0,
            "{engine}: {scores:?}"
        );
        let plain = store
            .items
            .search("ann", &query(&["docs"]), Utc::now(), true)
            .await
            .unwrap();
        assert!(plain.iter().all(|(_, s)| s.is_none()), "{engine}");
        assert_eq!(plain.len(), 4, "{engine}");
    }
}

#[tokio::test]
async fn expired_items_are_invisible_until_swept_and_reads_refresh_their_time() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let repo = &store.items;
        // Whole microseconds: what both engines keep.
        let t0 = DateTime::from_timestamp_micros(Utc::now().timestamp_micros()).unwrap();
        let at = |secs: i64| t0 + Duration::seconds(secs);
        let mut short = new_item("ann", &["tmp"], "short", json!({"text": "short lived"}));
        short.ttl_minutes = Some(1.0);
        short.now = t0;
        repo.put(&short).await.unwrap();
        let mut other = short.clone();
        other.key = "other".into();
        repo.put(&other).await.unwrap();
        put(&store, "ann", &["keep"], "forever", json!({"text": "kept"})).await;

        // Read at 50 s with a refresh: now it lives until 110 s.
        let read = repo
            .get("ann", &ns(&["tmp"]), "short", at(50), true)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(read.expires_at, Some(at(110)), "{engine}");
        // Read without a refresh at 55 s: `other` still ends at 60 s.
        assert!(
            repo.get("ann", &ns(&["tmp"]), "other", at(55), false)
                .await
                .unwrap()
                .is_some()
        );
        assert!(
            repo.get("ann", &ns(&["tmp"]), "other", at(61), false)
                .await
                .unwrap()
                .is_none(),
            "{engine}: expired"
        );
        let seen = repo
            .search("ann", &query(&[]), at(100), false)
            .await
            .unwrap();
        let names: Vec<&str> = seen.iter().map(|(i, _)| i.key.as_str()).collect();
        assert!(
            names.contains(&"short") && !names.contains(&"other"),
            "{engine}: {names:?}"
        );
        let spaces = repo
            .namespaces(
                "ann",
                &NamespaceQuery {
                    limit: 100,
                    ..NamespaceQuery::default()
                },
                at(200),
            )
            .await
            .unwrap();
        assert_eq!(
            spaces,
            [ns(&["keep"])],
            "{engine}: expired namespaces are not listed"
        );
        // A sweep removes both once expired, and only those.
        assert_eq!(repo.sweep(at(100), 100).await.unwrap(), 1, "{engine}");
        assert_eq!(repo.sweep(at(200), 100).await.unwrap(), 1, "{engine}");
        assert_eq!(
            repo.search("ann", &query(&[]), at(200), true)
                .await
                .unwrap()
                .len(),
            1,
            "{engine}"
        );
        // Stored again after expiring, an item is new.
        let mut back = short.clone();
        back.now = at(300);
        repo.put(&back).await.unwrap();
        let back = repo
            .get("ann", &ns(&["tmp"]), "short", at(301), false)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(back.created_at, at(300), "{engine}");
    }
}

#[tokio::test]
async fn namespaces_are_listed_with_prefix_suffix_wildcards_and_depth() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        for (n, labels) in [
            ["users", "u1", "notes"],
            ["users", "u2", "notes"],
            ["users", "u2", "prefs"],
            ["docs", "u1", "notes"],
        ]
        .iter()
        .enumerate()
        {
            put(&store, "ann", labels, &n.to_string(), json!({})).await;
        }
        put(&store, "bob", &["secret", "ns"], "x", json!({})).await;
        let list = |prefix: &[&str], suffix: &[&str], max_depth: Option<usize>| NamespaceQuery {
            prefix: ns(prefix),
            suffix: ns(suffix),
            max_depth,
            limit: 100,
            offset: 0,
        };
        let repo = &store.items;
        let now = Utc::now();
        let all = repo
            .namespaces("ann", &list(&[], &[], None), now)
            .await
            .unwrap();
        assert_eq!(all.len(), 4, "{engine}: {all:?}");
        assert_eq!(all[0], ns(&["docs", "u1", "notes"]), "{engine}: sorted");
        let users = repo
            .namespaces("ann", &list(&["users"], &["notes"], None), now)
            .await
            .unwrap();
        assert_eq!(
            users,
            [ns(&["users", "u1", "notes"]), ns(&["users", "u2", "notes"])]
        );
        let wild = repo
            .namespaces("ann", &list(&["*", "u1"], &[], None), now)
            .await
            .unwrap();
        assert_eq!(
            wild,
            [ns(&["docs", "u1", "notes"]), ns(&["users", "u1", "notes"])]
        );
        let shallow = repo
            .namespaces("ann", &list(&[], &[], Some(2)), now)
            .await
            .unwrap();
        assert_eq!(
            shallow,
            [
                ns(&["docs", "u1"]),
                ns(&["users", "u1"]),
                ns(&["users", "u2"])
            ],
            "{engine}"
        );
        let mut page = list(&[], &[], Some(1));
        page.offset = 1;
        assert_eq!(
            repo.namespaces("ann", &page, now).await.unwrap(),
            [ns(&["users"])]
        );
    }
}
