//! Assistant repository tests against a real SQLite file and a real PostgreSQL database.

mod common;

use antler_protocol::assistants::AssistantSortBy;
use antler_store::{AssistantFilter, AssistantOrder, AssistantRecord, MAX_VERSIONS, SortKey};
use chrono::Utc;
use serde_json::{Map, json};

fn assistant(id: &str, owner: &str, name: &str) -> AssistantRecord {
    let now = Utc::now();
    AssistantRecord {
        assistant_id: id.into(),
        owner: owner.into(),
        graph_id: "agent".into(),
        name: name.into(),
        description: Some("helps".into()),
        config: json!({}),
        context: json!({"system_prompt": "Be brief."}),
        metadata: Map::new(),
        version: 1,
        created_at: now,
        updated_at: now,
    }
}

#[tokio::test]
async fn assistants_keep_their_versions_and_belong_to_their_owner() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let repo = &store.assistants;
        let first = assistant("a1", "ann", "Writer");
        assert!(repo.create(&first).await.unwrap(), "{engine}");
        assert!(
            !repo.create(&assistant("a1", "bob", "Taken")).await.unwrap(),
            "{engine}: an id is taken for everyone"
        );
        assert!(repo.create(&assistant("b1", "bob", "Bob's")).await.unwrap());
        let stored = repo.get("ann", "a1").await.unwrap().unwrap();
        assert_eq!((stored.name.as_str(), stored.version), ("Writer", 1));
        assert!(repo.get("bob", "a1").await.unwrap().is_none(), "{engine}");

        let renamed = repo
            .update(&AssistantRecord {
                name: "Editor".into(),
                context: json!({"system_prompt": "Be thorough."}),
                updated_at: Utc::now(),
                ..first.clone()
            })
            .await
            .unwrap()
            .unwrap();
        assert_eq!(renamed.version, 2);
        assert_eq!(
            renamed.created_at, stored.created_at,
            "{engine}: created once"
        );
        let other = AssistantRecord {
            owner: "bob".into(),
            ..first.clone()
        };
        assert!(repo.update(&other).await.unwrap().is_none(), "{engine}");

        let versions = repo
            .versions("ann", "a1", &Map::new(), 100, 0)
            .await
            .unwrap();
        assert_eq!(
            versions
                .iter()
                .map(|v| (v.version, v.name.as_str()))
                .collect::<Vec<_>>(),
            [(2, "Editor"), (1, "Writer")],
            "{engine}"
        );
        assert!(
            repo.versions("bob", "a1", &Map::new(), 100, 0)
                .await
                .unwrap()
                .is_empty()
        );

        // Back to version 1; a later update is numbered after the newest version.
        let back = repo.set_version("ann", "a1", 1).await.unwrap().unwrap();
        assert_eq!((back.version, back.name.as_str()), (1, "Writer"));
        assert_eq!(repo.get("ann", "a1").await.unwrap().unwrap().version, 1);
        assert!(repo.set_version("ann", "a1", 9).await.unwrap().is_none());
        assert!(repo.set_version("bob", "a1", 1).await.unwrap().is_none());
        let third = repo
            .update(&AssistantRecord {
                description: None,
                ..back
            })
            .await
            .unwrap()
            .unwrap();
        assert_eq!(third.version, 3, "{engine}");

        assert_eq!(
            repo.count("ann", &AssistantFilter::default())
                .await
                .unwrap(),
            1
        );
        assert!(!repo.delete("bob", "a1").await.unwrap());
        assert!(repo.delete("ann", "a1").await.unwrap());
        assert!(repo.get("ann", "a1").await.unwrap().is_none());
        assert!(
            repo.versions("ann", "a1", &Map::new(), 100, 0)
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            repo.count("bob", &AssistantFilter::default())
                .await
                .unwrap(),
            1
        );
    }
}

#[tokio::test]
async fn searches_filter_count_order_and_page_in_the_database() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let repo = &store.assistants;
        for (i, name) in ["Alpha", "beta", "Gamma 100%", "delta_x", "Epsilon"]
            .iter()
            .enumerate()
        {
            let mut a = assistant(&format!("id{i}"), "ann", name);
            a.metadata = json!({"team": if i % 2 == 0 { "red" } else { "blue" }, "n": i})
                .as_object()
                .cloned()
                .unwrap();
            assert!(repo.create(&a).await.unwrap());
        }
        assert!(
            repo.create(&assistant("other", "bob", "Alpha"))
                .await
                .unwrap()
        );
        let all = AssistantFilter::default();
        assert_eq!(repo.count("ann", &all).await.unwrap(), 5, "{engine}");
        let red = AssistantFilter {
            metadata: json!({"team": "red"}).as_object().cloned().unwrap(),
            ..AssistantFilter::default()
        };
        assert_eq!(repo.count("ann", &red).await.unwrap(), 3, "{engine}");
        let named = |n: &str| AssistantFilter {
            name: Some(n.into()),
            ..AssistantFilter::default()
        };
        assert_eq!(
            repo.count("ann", &named("ALPH")).await.unwrap(),
            1,
            "{engine}"
        );
        // LIKE's own characters match only themselves.
        assert_eq!(repo.count("ann", &named("%")).await.unwrap(), 1, "{engine}");
        assert_eq!(repo.count("ann", &named("_")).await.unwrap(), 1, "{engine}");
        let by_name = AssistantOrder {
            by: AssistantSortBy::Name,
            ascending: true,
        };
        let page = repo.search("ann", &all, by_name, 2, 1).await.unwrap();
        let names: Vec<&str> = page.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(
            names,
            ["beta", "delta_x"],
            "{engine}: ordered ignoring case, paged"
        );
        let key = SortKey::Text("c".into(), "zzz".into());
        assert_eq!(
            repo.count_before("ann", &all, by_name, &key).await.unwrap(),
            2,
            "{engine}: alpha and beta come before 'c'"
        );
        let desc = AssistantOrder {
            by: AssistantSortBy::Name,
            ascending: false,
        };
        assert_eq!(
            repo.count_before("ann", &all, desc, &key).await.unwrap(),
            3,
            "{engine}"
        );
        let now = SortKey::Time(Utc::now() + chrono::Duration::seconds(5), String::new());
        let newest = AssistantOrder::default();
        assert_eq!(
            repo.count_before("ann", &all, newest, &now).await.unwrap(),
            0,
            "{engine}"
        );
    }
}

#[tokio::test]
async fn only_the_newest_versions_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let repo = &store.assistants;
        let first = assistant("v", "ann", "Edited");
        assert!(repo.create(&first).await.unwrap());
        let edits = usize::try_from(MAX_VERSIONS).unwrap() + 5;
        for i in 0..edits {
            repo.update(&AssistantRecord {
                name: format!("Edit {i}"),
                ..first.clone()
            })
            .await
            .unwrap()
            .unwrap();
        }
        let kept = repo
            .versions("ann", "v", &Map::new(), 1000, 0)
            .await
            .unwrap();
        assert_eq!(kept.len() as i64, MAX_VERSIONS, "{engine}");
        assert_eq!(kept[0].version, edits as i64 + 1, "{engine}");
    }
}
