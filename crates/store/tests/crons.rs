//! The crons repository on both engines: search and count, claims that never take a tick
//! twice however many claimants race, and takeover of a dead claimant's ticks.

mod common;

use std::collections::BTreeSet;

use antler_store::{CronFilter, CronPlan, CronRecord, CronSort};
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Map, json};

fn cron(id: &str, owner: &str, next: Option<DateTime<Utc>>) -> CronRecord {
    let now = Utc::now();
    CronRecord {
        cron_id: id.into(),
        owner: owner.into(),
        assistant_id: "agent".into(),
        thread_id: None,
        schedule: "* * * * * *".into(),
        timezone: None,
        end_time: None,
        on_run_completed: None,
        payload: json!({"input": {"messages": []}}),
        metadata: Map::new(),
        enabled: true,
        next_run_date: next,
        last_run: None,
        created_at: now,
        updated_at: now,
    }
}

/// Every due cron runs, and is next due an hour later.
fn hourly(c: &CronRecord, now: DateTime<Utc>) -> CronPlan {
    CronPlan {
        run: true,
        next: Some(c.next_run_date.unwrap_or(now).max(now) + TimeDelta::hours(1)),
    }
}

#[tokio::test]
async fn crons_are_searched_counted_and_owned() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let later = Utc::now() + TimeDelta::hours(1);
        let mut tagged = cron("c1", "ann", Some(later));
        tagged.metadata.insert("team".into(), json!("news"));
        store.crons.create(&tagged).await.unwrap();
        store.crons.create(&cron("c2", "ann", None)).await.unwrap();
        store.crons.create(&cron("c3", "bob", None)).await.unwrap();
        let mut filter = CronFilter::default();
        assert_eq!(
            store.crons.count("ann", &filter).await.unwrap(),
            2,
            "{engine}"
        );
        filter.metadata.insert("team".into(), json!("news"));
        let found = store
            .crons
            .search("ann", &filter, CronSort::CreatedAt, true, 10, 0)
            .await
            .unwrap();
        assert_eq!(found.len(), 1, "{engine}");
        assert_eq!(found[0].cron_id, "c1", "{engine}");
        assert_eq!(found[0].metadata, tagged.metadata, "{engine}");
        assert!(
            store.crons.get("bob", "c1").await.unwrap().is_none(),
            "{engine}"
        );
        assert!(!store.crons.delete("bob", "c1").await.unwrap(), "{engine}");
        assert!(store.crons.delete("ann", "c1").await.unwrap(), "{engine}");
    }
}

#[tokio::test]
async fn concurrent_claimers_never_take_a_tick_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let past = Utc::now() - TimeDelta::seconds(5);
        for i in 0..40 {
            store
                .crons
                .create(&cron(&format!("c{i}"), "ann", Some(past)))
                .await
                .unwrap();
        }
        let claimants: Vec<_> = (0..8)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    let mut got = Vec::new();
                    for _ in 0..5 {
                        let ticks = store
                            .crons
                            .claim_due(&format!("i{i}"), Utc::now(), 3, &hourly)
                            .await
                            .unwrap();
                        got.extend(ticks.into_iter().map(|t| t.cron.cron_id));
                    }
                    got
                })
            })
            .collect();
        let mut all = Vec::new();
        for c in claimants {
            all.extend(c.await.unwrap());
        }
        let distinct: BTreeSet<_> = all.iter().cloned().collect();
        assert_eq!(all.len(), 40, "{engine}: {all:?}");
        assert_eq!(distinct.len(), 40, "{engine}");
        // All moved on: nothing is due any more.
        let again = store
            .crons
            .claim_due("late", Utc::now(), 100, &hourly)
            .await
            .unwrap();
        assert!(again.is_empty(), "{engine}");
    }
}

#[tokio::test]
async fn a_dead_claimants_tick_is_taken_over_once_and_a_live_ones_never() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let past = Utc::now() - TimeDelta::seconds(5);
        store
            .crons
            .create(&cron("dead", "ann", Some(past)))
            .await
            .unwrap();
        store.instances.heartbeat("alive").await.unwrap();
        let ticks = store
            .crons
            .claim_due("gone", Utc::now(), 10, &hourly)
            .await
            .unwrap();
        assert_eq!(ticks.len(), 1, "{engine}");
        store
            .crons
            .create(&cron("live", "ann", Some(past)))
            .await
            .unwrap();
        let live = store
            .crons
            .claim_due("alive", Utc::now(), 10, &hourly)
            .await
            .unwrap();
        assert_eq!(live.len(), 1, "{engine}");
        let alive_after = Utc::now() - TimeDelta::seconds(10);
        let early = Utc::now() - TimeDelta::hours(1);
        store.instances.heartbeat("b").await.unwrap();
        let taken = store
            .crons
            .take_over("b", alive_after, early, 10)
            .await
            .unwrap();
        assert_eq!(taken.len(), 1, "{engine}");
        assert_eq!(taken[0].cron.cron_id, "dead", "{engine}");
        assert_eq!(taken[0].thread_id, ticks[0].thread_id, "{engine}");
        // Now b's: a second look finds nothing, and the first claimant cannot record it.
        assert!(
            store
                .crons
                .take_over("c", alive_after, early, 10)
                .await
                .unwrap()
                .is_empty()
        );
        assert!(
            !store
                .crons
                .tick_started(&ticks[0], "r0", Utc::now())
                .await
                .unwrap()
        );
        assert!(
            store
                .crons
                .tick_started(&taken[0], "r1", Utc::now())
                .await
                .unwrap()
        );
        let c = store.crons.get("ann", "dead").await.unwrap().unwrap();
        assert_eq!(c.last_run.unwrap().run_id, "r1", "{engine}");
        // A restarted process of the same id takes back what its earlier self claimed.
        let restarted = Utc::now() + TimeDelta::seconds(1);
        let back = store
            .crons
            .take_over("alive", alive_after, restarted, 10)
            .await
            .unwrap();
        assert_eq!(back.len(), 1, "{engine}");
        assert_eq!(back[0].cron.cron_id, "live", "{engine}");
        store.crons.disable("live", "owner_gone").await.unwrap();
        let c = store.crons.get("ann", "live").await.unwrap().unwrap();
        assert!(!c.enabled && c.next_run_date.is_none(), "{engine}");
        assert_eq!(c.metadata["disabled_reason"], "owner_gone", "{engine}");
    }
}
