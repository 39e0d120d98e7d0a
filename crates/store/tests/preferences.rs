//! Preference repository tests against a real SQLite file and a real PostgreSQL database.

mod common;

use antler_store::preferences::Preferences;

#[tokio::test]
async fn preferences_default_to_on_and_are_kept_per_person() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let ann = format!("ann-{engine}");
        let bob = format!("bob-{engine}");
        assert!(
            store.preferences.get(&ann).await.unwrap().suggestions,
            "{engine}: on until chosen"
        );
        let off = Preferences { suggestions: false };
        store.preferences.set(&ann, off).await.unwrap();
        store.preferences.set(&ann, off).await.unwrap();
        assert_eq!(store.preferences.get(&ann).await.unwrap(), off, "{engine}");
        assert!(
            store.preferences.get(&bob).await.unwrap().suggestions,
            "{engine}: another person's choice is their own"
        );
        store
            .preferences
            .set(&ann, Preferences { suggestions: true })
            .await
            .unwrap();
        assert!(
            store.preferences.get(&ann).await.unwrap().suggestions,
            "{engine}: switched on again"
        );
    }
}
