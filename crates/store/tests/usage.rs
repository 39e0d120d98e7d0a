//! Model usage and daily limits, on both engines.

#![expect(
    clippy::unwrap_used,
    reason = "tests: a failed step aborts with its message"
)]

mod common;

use antler_store::{Store, UsageCounts, UsageEntry, UsageGrouping, UsageLimitRecord, UsageQuery};
use chrono::{NaiveDate, Utc};

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

fn counts(calls: u64, input: u64, output: u64, cost: f64) -> UsageCounts {
    UsageCounts {
        model_calls: calls,
        input_tokens: input,
        cached_input_tokens: input / 2,
        cache_write_tokens: 1,
        output_tokens: output,
        reasoning_tokens: output / 2,
        cost_usd: cost,
    }
}

fn entry(owner: &str, run: &str, model: &str, on: &str, c: UsageCounts) -> UsageEntry {
    UsageEntry {
        owner: owner.into(),
        run_id: run.into(),
        thread_id: format!("t-{run}"),
        model: model.into(),
        day: day(on),
        counts: c,
    }
}

fn query(owner: Option<&str>, day: bool, model: bool, user: bool) -> UsageQuery {
    UsageQuery {
        owner: owner.map(str::to_string),
        from: self::day("2025-03-01"),
        to: self::day("2025-03-31"),
        group: UsageGrouping { day, model, user },
    }
}

async fn engines(f: impl AsyncFn(&str, Store)) {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        f(engine, store).await;
    }
}

#[tokio::test]
async fn recording_a_run_twice_adds_to_its_rows() {
    engines(async |engine, store: Store| {
        let e = entry("ann", "r1", "quick", "2025-03-02", counts(2, 100, 40, 0.5));
        store.usage.record(std::slice::from_ref(&e)).await.unwrap();
        store.usage.record(&[e]).await.unwrap();
        let total = store
            .usage
            .day_total("ann", day("2025-03-02"))
            .await
            .unwrap();
        assert_eq!(total.model_calls, 4, "{engine}");
        assert_eq!(total.input_tokens, 200, "{engine}");
        assert_eq!(total.cached_input_tokens, 100, "{engine}");
        assert_eq!(total.cache_write_tokens, 2, "{engine}");
        assert_eq!(total.output_tokens, 80, "{engine}");
        assert_eq!(total.reasoning_tokens, 40, "{engine}");
        assert!((total.cost_usd - 1.0).abs() < 1e-9, "{engine}");
        assert_eq!(total.tokens(), 280, "{engine}");
        let other_day = store
            .usage
            .day_total("ann", day("2025-03-03"))
            .await
            .unwrap();
        assert_eq!(other_day, UsageCounts::default(), "{engine}");
    })
    .await;
}

#[tokio::test]
async fn usage_sums_per_day_model_and_user_within_the_range() {
    engines(async |engine, store: Store| {
        store
            .usage
            .record(&[
                entry("ann", "r1", "quick", "2025-03-02", counts(1, 10, 5, 0.1)),
                entry("ann", "r1", "smart", "2025-03-02", counts(2, 20, 6, 0.2)),
                entry("ann", "r2", "quick", "2025-03-02", counts(1, 30, 7, 0.3)),
                entry("ann", "r3", "quick", "2025-03-05", counts(1, 40, 8, 0.4)),
                entry("bob", "r4", "quick", "2025-03-02", counts(1, 50, 9, 0.5)),
                // Outside the range: never counted.
                entry("ann", "r5", "quick", "2025-04-01", counts(9, 999, 99, 9.0)),
                entry("ann", "r6", "quick", "2025-02-28", counts(9, 999, 99, 9.0)),
            ])
            .await
            .unwrap();

        let rows = store
            .usage
            .summary(&query(Some("ann"), true, true, false))
            .await
            .unwrap();
        let seen: Vec<(String, String, u64, u64)> = rows
            .iter()
            .map(|r| {
                (
                    r.day.unwrap().to_string(),
                    r.model.clone().unwrap(),
                    r.counts.model_calls,
                    r.counts.input_tokens,
                )
            })
            .collect();
        assert_eq!(
            seen,
            vec![
                ("2025-03-02".into(), "quick".into(), 2, 40),
                ("2025-03-02".into(), "smart".into(), 2, 20),
                ("2025-03-05".into(), "quick".into(), 1, 40),
            ],
            "{engine}"
        );
        assert!(rows.iter().all(|r| r.owner.is_none()), "{engine}");

        let by_user = store
            .usage
            .summary(&query(None, false, false, true))
            .await
            .unwrap();
        let users: Vec<(Option<String>, u64, u64)> = by_user
            .iter()
            .map(|r| {
                (
                    r.owner.clone(),
                    r.counts.model_calls,
                    r.counts.output_tokens,
                )
            })
            .collect();
        assert_eq!(
            users,
            vec![(Some("ann".into()), 5, 26), (Some("bob".into()), 1, 9)],
            "{engine}"
        );
        assert!((by_user[0].counts.cost_usd - 1.0).abs() < 1e-9, "{engine}");

        let by_model = store
            .usage
            .summary(&query(None, false, true, false))
            .await
            .unwrap();
        assert_eq!(by_model.len(), 2, "{engine}");
        assert_eq!(by_model[0].model.as_deref(), Some("quick"), "{engine}");
        assert_eq!(by_model[0].counts.input_tokens, 130, "{engine}");

        let nobody = store
            .usage
            .summary(&query(Some("carl"), true, true, false))
            .await
            .unwrap();
        assert!(nobody.is_empty(), "{engine}");
    })
    .await;
}

#[tokio::test]
async fn concurrent_recording_of_many_runs_loses_nothing() {
    engines(async |engine, store: Store| {
        let writes: Vec<_> = (0..40)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    // Half the runs share a row key with another run's second write.
                    let run = format!("r{}", i % 20);
                    let model = if i % 2 == 0 { "quick" } else { "smart" };
                    store
                        .usage
                        .record(&[
                            entry("ann", &run, model, "2025-03-10", counts(1, 10, 3, 0.25)),
                            entry("ann", &run, "title", "2025-03-10", counts(1, 1, 1, 0.0)),
                        ])
                        .await
                })
            })
            .collect();
        for w in writes {
            w.await.unwrap().unwrap();
        }
        let total = store
            .usage
            .day_total("ann", day("2025-03-10"))
            .await
            .unwrap();
        assert_eq!(total.model_calls, 80, "{engine}");
        assert_eq!(total.input_tokens, 40 * 11, "{engine}");
        assert_eq!(total.output_tokens, 40 * 4, "{engine}");
        assert!((total.cost_usd - 10.0).abs() < 1e-9, "{engine}");
    })
    .await;
}

#[tokio::test]
async fn limits_are_set_replaced_and_cleared() {
    engines(async |engine, store: Store| {
        assert!(
            store.usage.limit("ann").await.unwrap().is_none(),
            "{engine}"
        );
        let mut limit = UsageLimitRecord {
            owner: "ann".into(),
            tokens_per_day: Some(1000),
            cost_usd_per_day: None,
            updated_at: Utc::now(),
        };
        store.usage.set_limit(&limit).await.unwrap();
        limit.tokens_per_day = None;
        limit.cost_usd_per_day = Some(2.5);
        store.usage.set_limit(&limit).await.unwrap();
        let got = store.usage.limit("ann").await.unwrap().unwrap();
        assert_eq!(
            (got.tokens_per_day, got.cost_usd_per_day),
            (None, Some(2.5)),
            "{engine}"
        );
        store
            .usage
            .set_limit(&UsageLimitRecord {
                owner: "bob".into(),
                tokens_per_day: Some(5),
                cost_usd_per_day: None,
                updated_at: Utc::now(),
            })
            .await
            .unwrap();
        let owners: Vec<String> = store
            .usage
            .limits()
            .await
            .unwrap()
            .into_iter()
            .map(|l| l.owner)
            .collect();
        assert_eq!(owners, vec!["ann", "bob"], "{engine}");
        limit.cost_usd_per_day = None;
        store.usage.set_limit(&limit).await.unwrap();
        assert!(
            store.usage.limit("ann").await.unwrap().is_none(),
            "both cleared: the defaults apply ({engine})"
        );
    })
    .await;
}
