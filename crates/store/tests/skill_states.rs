//! Skill state repository tests against a real SQLite file and a real PostgreSQL database.

mod common;

use antler_protocol::skills::SkillCategory;
use antler_store::SkillState;

#[tokio::test]
async fn states_are_keyed_by_category_and_name_and_survive_reopening() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        assert!(
            store.skill_states.list().await.unwrap().is_empty(),
            "{engine}"
        );
        store
            .skill_states
            .set(SkillCategory::Public, "pdf", false)
            .await
            .unwrap();
        store
            .skill_states
            .set(SkillCategory::Custom, "pdf", true)
            .await
            .unwrap();
        store
            .skill_states
            .set(SkillCategory::Public, "pdf", false)
            .await
            .unwrap();
    }
    for (engine, store) in engines.open().await.unwrap() {
        let mut states = store.skill_states.list().await.unwrap();
        states.sort_by_key(|s| s.category);
        assert_eq!(
            states,
            [
                SkillState {
                    category: SkillCategory::Public,
                    name: "pdf".into(),
                    enabled: false
                },
                SkillState {
                    category: SkillCategory::Custom,
                    name: "pdf".into(),
                    enabled: true
                },
            ],
            "{engine}"
        );
        store
            .skill_states
            .remove(SkillCategory::Custom, "pdf")
            .await
            .unwrap();
        assert_eq!(
            store.skill_states.list().await.unwrap().len(),
            1,
            "{engine}"
        );
    }
    assert!(tmp.path().join("antler.db").is_file());
}

#[tokio::test]
async fn personal_states_belong_to_their_owner() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let states = &store.skill_states;
        states.set_personal("alice", "notes", false).await.unwrap();
        states.set_personal("bob", "notes", true).await.unwrap();
        states.set_personal("alice", "notes", true).await.unwrap();
        states.set_personal("alice", "todo", false).await.unwrap();
        let mut alice = states.list_personal("alice").await.unwrap();
        alice.sort();
        assert_eq!(
            alice,
            [("notes".to_string(), true), ("todo".to_string(), false)],
            "{engine}"
        );
        assert_eq!(
            states.list_personal("bob").await.unwrap(),
            [("notes".to_string(), true)],
            "{engine}"
        );
        assert!(
            states.list().await.unwrap().is_empty(),
            "personal states are not shared ones: {engine}"
        );
        states.remove_personal("alice", "notes").await.unwrap();
        assert_eq!(states.list_personal("alice").await.unwrap().len(), 1);
        assert_eq!(states.list_personal("bob").await.unwrap().len(), 1);
    }
}
