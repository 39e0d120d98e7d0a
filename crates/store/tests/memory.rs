//! Memory repository tests against a real SQLite file and a real PostgreSQL database.

mod common;

use antler_store::{FactQuery, FactRecord, Learned, MemorySettings};
use chrono::Utc;

fn fact(id: &str, owner: &str, content: &str) -> FactRecord {
    let now = Utc::now();
    FactRecord {
        fact_id: id.into(),
        owner: owner.into(),
        assistant_id: None,
        content: content.into(),
        category: antler_protocol::memory::FactCategory::Preference,
        confidence: 0.9,
        confirmations: 0,
        source_thread: Some("t".into()),
        supersedes: None,
        active: true,
        created_at: now,
        updated_at: now,
        last_used_at: None,
    }
}

fn search(text: &str) -> FactQuery {
    FactQuery {
        search: Some(text.into()),
        limit: 10,
        ..FactQuery::default()
    }
}

#[tokio::test]
async fn facts_are_searched_superseded_deleted_and_kept_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let m = &store.memory;
        m.add(&fact("f1", "ann", "Prefers Python for data analysis"))
            .await
            .unwrap();
        m.add(&fact("f2", "ann", "Works at a bakery in Lyon"))
            .await
            .unwrap();
        m.add(&fact("f3", "bob", "Prefers Python too"))
            .await
            .unwrap();
        let found = m
            .list("ann", &search("which python version?"))
            .await
            .unwrap();
        assert_eq!(
            found
                .iter()
                .map(|(f, _)| f.fact_id.as_str())
                .collect::<Vec<_>>(),
            ["f1"],
            "{engine}: only ann's, only matching"
        );
        assert!(found[0].1 > 0.0, "{engine}: ranked");
        // Search syntax in a person's text is just words.
        assert!(
            m.list("ann", &search("\"NEAR(* OR"))
                .await
                .unwrap()
                .is_empty()
        );

        let mut next = fact("f1b", "ann", "Prefers Rust for data analysis");
        next.supersedes = Some("f1".into());
        assert!(m.supersede("ann", "f1", &next).await.unwrap());
        assert!(!m.supersede("bob", "f1b", &next).await.unwrap(), "{engine}");
        let active = m
            .list(
                "ann",
                &FactQuery {
                    limit: 10,
                    ..FactQuery::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(active.len(), 2, "{engine}: the superseded fact is history");
        assert_eq!(m.count("ann").await.unwrap(), 2);
        let all = m
            .list(
                "ann",
                &FactQuery {
                    limit: 10,
                    include_inactive: true,
                    ..FactQuery::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(
            m.list("ann", &search("rust")).await.unwrap()[0].0.fact_id,
            "f1b"
        );

        m.touch("ann", &["f2".into()]).await.unwrap();
        assert!(
            m.get("ann", "f2")
                .await
                .unwrap()
                .unwrap()
                .last_used_at
                .is_some()
        );

        // Deleting the new version removes its history too.
        assert!(m.delete("ann", "f1b").await.unwrap());
        assert!(m.get("ann", "f1").await.unwrap().is_none(), "{engine}");
        assert!(!m.delete("ann", "f3").await.unwrap(), "{engine}: bob's");
        assert_eq!(m.forget_all("ann").await.unwrap(), 1);
        assert_eq!(m.count("bob").await.unwrap(), 1);

        assert_eq!(m.settings("ann").await.unwrap(), MemorySettings::default());
        let off = MemorySettings {
            enabled: false,
            summary: Some("A baker".into()),
        };
        m.set_settings("ann", &off).await.unwrap();
        assert_eq!(m.settings("ann").await.unwrap(), off, "{engine}");
    }
}

#[tokio::test]
async fn queued_turns_are_debounced_claimed_once_and_kept_when_newer() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let q = &store.memory_queue;
        let now = Utc::now();
        let stale = now - chrono::Duration::minutes(5);
        q.enqueue(
            "ann",
            "t1",
            Some("agent"),
            now + chrono::Duration::seconds(60),
        )
        .await
        .unwrap();
        assert!(
            q.claim("a", stale).await.unwrap().is_none(),
            "{engine}: not due yet"
        );
        // A newer turn moves it (debounced: one row per thread).
        q.enqueue(
            "ann",
            "t1",
            Some("agent"),
            now - chrono::Duration::seconds(1),
        )
        .await
        .unwrap();
        assert_eq!(q.queued().await.unwrap(), 1);
        let item = q.claim("a", stale).await.unwrap().unwrap();
        assert_eq!((item.thread_id.as_str(), item.attempts), ("t1", 1));
        assert!(
            q.claim("b", stale).await.unwrap().is_none(),
            "{engine}: claimed once"
        );
        // A turn after the claim keeps it queued once finished.
        q.enqueue("ann", "t1", None, Utc::now()).await.unwrap();
        q.finish(&item).await.unwrap();
        assert_eq!(q.queued().await.unwrap(), 1, "{engine}");
        let again = q.claim("b", stale).await.unwrap().unwrap();
        q.finish(&again).await.unwrap();
        assert_eq!(q.queued().await.unwrap(), 0, "{engine}");
        // A failed one comes back later; a dead claimant's claim is taken over.
        q.enqueue("bob", "t2", None, now).await.unwrap();
        let failed = q.claim("a", stale).await.unwrap().unwrap();
        q.retry(&failed, Utc::now() + chrono::Duration::seconds(60))
            .await
            .unwrap();
        assert!(q.claim("a", stale).await.unwrap().is_none());
        q.enqueue("cat", "t3", None, now).await.unwrap();
        let stalled = q.claim("dead", stale).await.unwrap().unwrap();
        let later = Utc::now() + chrono::Duration::seconds(1);
        let taken = q.claim("alive", later).await.unwrap().unwrap();
        assert_eq!(taken.owner, "cat", "{engine}");
        // The stalled claimant, back, neither renews, finishes nor retries what was taken over.
        assert!(!q.renew(&stalled, "dead").await.unwrap(), "{engine}");
        q.finish(&stalled).await.unwrap();
        q.retry(&stalled, Utc::now()).await.unwrap();
        // bob's retried turn, and cat's, still the new claimant's.
        assert_eq!(q.queued().await.unwrap(), 2, "{engine}");
        assert!(
            q.claim("third", stale).await.unwrap().is_none(),
            "{engine}: claimed once"
        );
        assert!(q.renew(&taken, "alive").await.unwrap());
        q.finish(&taken).await.unwrap();
        assert_eq!(q.queued().await.unwrap(), 1, "{engine}");
    }
}

#[tokio::test]
async fn what_a_reading_learned_is_applied_once_with_its_turn_or_not_at_all() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let (q, memory) = (&store.memory_queue, &store.memory);
        memory
            .add(&fact("known", "ann", "Likes tea"))
            .await
            .unwrap();
        memory
            .add(&fact("weak", "ann", "Maybe likes golf"))
            .await
            .unwrap();
        let stale = Utc::now() - chrono::Duration::minutes(5);
        q.enqueue("ann", "t", None, Utc::now()).await.unwrap();
        let item = q.claim("a", stale).await.unwrap().unwrap();
        let learned = Learned {
            add: vec![fact("new", "ann", "Plays chess")],
            confirm: vec!["known".into()],
            evict: vec!["weak".into()],
            ..Learned::default()
        };
        assert!(q.apply_learned(&item, &learned).await.unwrap(), "{engine}");
        assert_eq!(
            q.queued().await.unwrap(),
            0,
            "{engine}: the turn ended with it"
        );
        // The same reading again (a crash after the commit, retried): nothing is counted
        // twice, the claim is gone.
        assert!(!q.apply_learned(&item, &learned).await.unwrap(), "{engine}");
        let known = memory.get("ann", "known").await.unwrap().unwrap();
        assert_eq!(known.confirmations, 1, "{engine}");
        assert!(memory.get("ann", "weak").await.unwrap().is_none());
        assert_eq!(memory.count("ann").await.unwrap(), 2, "{engine}");
        // A claim another replica took over changes nothing.
        q.enqueue("ann", "t2", None, Utc::now()).await.unwrap();
        let stalled = q.claim("dead", stale).await.unwrap().unwrap();
        let later = Utc::now() + chrono::Duration::seconds(1);
        let _taken = q.claim("alive", later).await.unwrap().unwrap();
        let other = Learned {
            confirm: vec!["known".into()],
            ..Learned::default()
        };
        assert!(
            !q.apply_learned(&stalled, &other).await.unwrap(),
            "{engine}"
        );
        let known = memory.get("ann", "known").await.unwrap().unwrap();
        assert_eq!(known.confirmations, 1, "{engine}");
        assert_eq!(
            q.queued().await.unwrap(),
            1,
            "{engine}: still the new claimant's"
        );
    }
}

/// What a run reads before ranking facts, in one query: the facts' version while memory
/// is on, nothing once the person switched it off; and a finished turn of someone with
/// memory off is not queued for learning.
#[tokio::test]
async fn memory_switched_off_hides_the_version_and_queues_no_turns() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let m = &store.memory;
        assert_eq!(
            m.version_if_enabled("ann").await.unwrap(),
            Some(0),
            "{engine}"
        );
        m.add(&fact("f1", "ann", "likes rust")).await.unwrap();
        let version = m.version("ann").await.unwrap();
        assert_ne!(version, 0, "{engine}");
        assert_eq!(
            m.version_if_enabled("ann").await.unwrap(),
            Some(version),
            "{engine}"
        );
        let off = MemorySettings {
            enabled: false,
            summary: None,
        };
        m.set_settings("ann", &off).await.unwrap();
        assert_eq!(m.version_if_enabled("ann").await.unwrap(), None, "{engine}");

        let due = Utc::now() - chrono::Duration::seconds(1);
        let stale = Utc::now() - chrono::Duration::minutes(5);
        store
            .memory_queue
            .enqueue("ann", "t1", None, due)
            .await
            .unwrap();
        assert!(
            store
                .memory_queue
                .claim("w", stale)
                .await
                .unwrap()
                .is_none(),
            "{engine}: memory is off"
        );
        store
            .memory_queue
            .enqueue("bob", "t2", None, due)
            .await
            .unwrap();
        let claimed = store.memory_queue.claim("w", stale).await.unwrap().unwrap();
        assert_eq!(claimed.owner, "bob", "{engine}");
    }
}
