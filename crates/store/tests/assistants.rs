//! Assistant repository tests against a real SQLite file and a real PostgreSQL database.

mod common;

use antler_store::AssistantRecord;
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

        let versions = repo.versions("ann", "a1").await.unwrap();
        assert_eq!(
            versions
                .iter()
                .map(|v| (v.version, v.name.as_str()))
                .collect::<Vec<_>>(),
            [(2, "Editor"), (1, "Writer")],
            "{engine}"
        );
        assert!(repo.versions("bob", "a1").await.unwrap().is_empty());

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

        assert_eq!(repo.list("ann").await.unwrap().len(), 1);
        assert!(!repo.delete("bob", "a1").await.unwrap());
        assert!(repo.delete("ann", "a1").await.unwrap());
        assert!(repo.get("ann", "a1").await.unwrap().is_none());
        assert!(repo.versions("ann", "a1").await.unwrap().is_empty());
        assert_eq!(repo.list("bob").await.unwrap().len(), 1);
    }
}
