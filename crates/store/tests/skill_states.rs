//! Repository tests against a real SQLite file.

use antler_protocol::skills::SkillCategory;
use antler_store::{Location, SkillState, Store};

async fn open(dir: &std::path::Path) -> Result<Store, antler_store::StoreError> {
    Store::open(&Location::resolve(None, dir)?, 2).await
}

#[tokio::test]
async fn states_are_keyed_by_category_and_name_and_survive_reopening() {
    let tmp = tempfile::tempdir().unwrap();
    let store = open(tmp.path()).await.unwrap();
    assert!(store.skill_states.list().await.unwrap().is_empty());
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
    drop(store);

    let store = open(tmp.path()).await.unwrap();
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
        ]
    );
    store
        .skill_states
        .remove(SkillCategory::Custom, "pdf")
        .await
        .unwrap();
    assert_eq!(store.skill_states.list().await.unwrap().len(), 1);
    assert!(tmp.path().join("antler.db").is_file());
}
