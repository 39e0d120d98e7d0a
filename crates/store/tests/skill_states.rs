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
