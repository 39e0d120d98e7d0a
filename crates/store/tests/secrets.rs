//! Secret repository tests against a real SQLite file and a real PostgreSQL database.

mod common;

use antler_store::SecretRecord;
use chrono::{Duration, Utc};

fn record(name: &str, sealed: &[u8], by: &str) -> SecretRecord {
    let now = Utc::now();
    SecretRecord {
        name: name.into(),
        description: format!("{name} for tests"),
        agents: vec!["*".into()],
        skills: vec!["imagegen".into()],
        sealed: sealed.to_vec(),
        created_by: by.into(),
        created_at: now,
        updated_at: now,
    }
}

#[tokio::test]
async fn secrets_are_kept_by_name_and_a_replacement_keeps_who_made_it() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let repo = &store.secrets;
        assert!(repo.list().await.unwrap().is_empty(), "{engine}");
        let first = repo
            .put(&record("B_KEY", b"\x00sealed-1", "admin"))
            .await
            .unwrap();
        repo.put(&record("A_KEY", b"sealed-a", "admin"))
            .await
            .unwrap();
        let mut changed = record("B_KEY", b"sealed-2", "someone-else");
        changed.skills.clear();
        changed.updated_at = first.updated_at + Duration::seconds(5);
        let stored = repo.put(&changed).await.unwrap();
        assert_eq!(stored.sealed, b"sealed-2", "{engine}");
        assert_eq!(stored.created_by, "admin", "{engine}");
        assert!(stored.skills.is_empty(), "{engine}");
        assert!(stored.updated_at > stored.created_at, "{engine}");
        let names: Vec<String> = repo
            .list()
            .await
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["A_KEY", "B_KEY"], "{engine}");
        assert!(repo.delete("A_KEY").await.unwrap(), "{engine}");
        assert!(!repo.delete("A_KEY").await.unwrap(), "{engine}");
        assert_eq!(repo.list().await.unwrap().len(), 1, "{engine}");
    }
}
