//! Feedback on answers, on both engines: stored per run and person (given again, replaced),
//! only on a run of the giver's own thread, gone with the thread, shown by the runs console
//! (and filtered there by rating), and exported a page at a time in a stable order.

#![expect(
    clippy::unwrap_used,
    reason = "tests: a failed step aborts with its message"
)]

mod common;

use antler_protocol::auth::Role;
use antler_protocol::feedback::Rating;
use antler_protocol::runs::{MultitaskStrategy, RunStatus, RunUsage};
use antler_store::{
    ConsoleFilter, ExportCursor, ExportRange, NewFeedback, RatedFilter, RunRecord, Store,
    UsageCounts, UsageEntry, UserRecord,
};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde_json::{Map, json};

async fn engines(f: impl AsyncFn(&str, Store)) {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        f(engine, store).await;
    }
}

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().to_utc()
}

fn run(id: &str, thread: &str, owner: &str, created: &str) -> RunRecord {
    RunRecord {
        run_id: id.into(),
        thread_id: thread.into(),
        owner: owner.into(),
        assistant_id: "lead_agent".into(),
        status: RunStatus::Success,
        stop_reason: None,
        error: None,
        multitask_strategy: MultitaskStrategy::Reject,
        metadata: Map::new(),
        kwargs: json!({}),
        instance: "i".into(),
        usage: RunUsage::default(),
        created_at: at(created),
        updated_at: at(created),
    }
}

fn feedback(owner: &str, thread: &str, run: &str, rating: Rating, at: &str) -> NewFeedback {
    NewFeedback {
        owner: owner.into(),
        thread_id: thread.into(),
        run_id: run.into(),
        rating,
        comment: None,
        at: self::at(at),
    }
}

/// Ann (an account) with thread `ta` (runs `a1`, `a2`), Bob with thread `tb` (run `b1`).
async fn seed(store: &Store) {
    store
        .accounts
        .create_user(&UserRecord {
            user_id: "ann".into(),
            email: "ann@antler.test".into(),
            password_hash: "x".into(),
            role: Role::User,
            disabled: false,
            created_at: Utc::now(),
        })
        .await
        .unwrap();
    for (owner, thread) in [("ann", "ta"), ("bob", "tb")] {
        store
            .threads
            .create(owner, thread, Map::new())
            .await
            .unwrap();
    }
    for r in [
        run("a1", "ta", "ann", "2025-03-01T09:00:00Z"),
        run("a2", "ta", "ann", "2025-03-01T10:00:00Z"),
        run("b1", "tb", "bob", "2025-03-01T11:00:00Z"),
    ] {
        store.runs.create(&r).await.unwrap();
    }
    let usage = |model: &str, calls: u64| UsageEntry {
        owner: "ann".into(),
        run_id: "a1".into(),
        thread_id: "ta".into(),
        model: model.into(),
        day: NaiveDate::from_ymd_opt(2025, 3, 1).unwrap(),
        counts: UsageCounts {
            model_calls: calls,
            ..UsageCounts::default()
        },
    };
    store
        .usage
        .record(&[usage("quick", 1), usage("deep", 3)])
        .await
        .unwrap();
}

#[tokio::test]
async fn feedback_is_replaced_per_run_and_person_and_kept_to_the_givers_threads() {
    engines(async |engine, store: Store| {
        seed(&store).await;
        let f = &store.feedback;
        let first = f
            .put(&feedback(
                "ann",
                "ta",
                "a1",
                Rating::Up,
                "2025-03-02T09:00:00Z",
            ))
            .await
            .unwrap()
            .unwrap();
        assert_eq!((first.rating, first.comment.as_deref()), (Rating::Up, None));
        let mut again = feedback("ann", "ta", "a1", Rating::Down, "2025-03-02T10:00:00Z");
        again.comment = Some("Wrong year".into());
        let replaced = f.put(&again).await.unwrap().unwrap();
        assert_eq!(replaced.rating, Rating::Down, "{engine}");
        assert_eq!(replaced.comment.as_deref(), Some("Wrong year"), "{engine}");
        assert_eq!(replaced.created_at, at("2025-03-02T09:00:00Z"), "{engine}");
        assert_eq!(replaced.updated_at, at("2025-03-02T10:00:00Z"), "{engine}");

        // Another person's thread, a run of another thread, a run that does not exist.
        for (owner, thread, run) in [
            ("bob", "ta", "a1"),
            ("ann", "ta", "b1"),
            ("ann", "ta", "zz"),
        ] {
            let refused = f
                .put(&feedback(
                    owner,
                    thread,
                    run,
                    Rating::Up,
                    "2025-03-02T11:00:00Z",
                ))
                .await
                .unwrap();
            assert_eq!(refused, None, "{engine}: {owner} {thread} {run}");
        }
        f.put(&feedback(
            "ann",
            "ta",
            "a2",
            Rating::Up,
            "2025-03-02T12:00:00Z",
        ))
        .await
        .unwrap()
        .unwrap();
        let listed = f.of_thread("ann", "ta").await.unwrap();
        let got: Vec<(&str, Rating)> = listed
            .iter()
            .map(|r| (r.run_id.as_str(), r.rating))
            .collect();
        assert_eq!(got, [("a1", Rating::Down), ("a2", Rating::Up)], "{engine}");
        assert!(
            f.of_thread("bob", "ta").await.unwrap().is_empty(),
            "{engine}"
        );

        assert!(!f.delete("bob", "ta", "a2").await.unwrap(), "{engine}");
        assert!(f.delete("ann", "ta", "a2").await.unwrap(), "{engine}");
        assert!(!f.delete("ann", "ta", "a2").await.unwrap(), "{engine}");
        assert_eq!(f.of_thread("ann", "ta").await.unwrap().len(), 1, "{engine}");

        // Deleting the thread deletes its runs, and their feedback with them.
        assert!(store.threads.delete("ann", "ta").await.unwrap());
        let left = f
            .export_page(&ExportRange::default(), None, 100)
            .await
            .unwrap();
        assert!(left.is_empty(), "{engine}: {left:?}");
    })
    .await;
}

#[tokio::test]
async fn the_console_shows_and_filters_runs_by_their_feedback() {
    engines(async |engine, store: Store| {
        seed(&store).await;
        let mut down = feedback("ann", "ta", "a1", Rating::Down, "2025-03-02T09:00:00Z");
        down.comment = Some("Too long".into());
        store.feedback.put(&down).await.unwrap().unwrap();
        store
            .feedback
            .put(&feedback(
                "bob",
                "tb",
                "b1",
                Rating::Up,
                "2025-03-02T09:30:00Z",
            ))
            .await
            .unwrap()
            .unwrap();
        let list = async |feedback: Option<RatedFilter>| {
            let filter = ConsoleFilter {
                feedback,
                ..ConsoleFilter::default()
            };
            let page = store.console.list(&filter, 50, 0).await.unwrap();
            let ids: Vec<String> = page.runs.iter().map(|r| r.run.run_id.clone()).collect();
            (ids, page.total)
        };
        assert_eq!(list(None).await.1, 3, "{engine}");
        assert_eq!(
            list(Some(RatedFilter::Any)).await,
            (vec!["b1".into(), "a1".into()], 2)
        );
        assert_eq!(
            list(Some(RatedFilter::Only(Rating::Down))).await,
            (vec!["a1".into()], 1),
            "{engine}"
        );
        assert_eq!(
            list(Some(RatedFilter::Only(Rating::Up))).await,
            (vec!["b1".into()], 1),
            "{engine}"
        );
        let a1 = store.console.get("a1").await.unwrap().unwrap();
        let shown = &a1.feedback[..];
        assert_eq!(shown.len(), 1, "{engine}");
        assert_eq!(shown[0].owner, "ann");
        assert_eq!(
            shown[0].owner_email.as_deref(),
            Some("ann@antler.test"),
            "{engine}"
        );
        assert_eq!(shown[0].comment.as_deref(), Some("Too long"), "{engine}");
        let a2 = store.console.get("a2").await.unwrap().unwrap();
        assert!(a2.feedback.is_empty(), "{engine}");
    })
    .await;
}

#[tokio::test]
async fn exports_page_by_time_of_change_within_bounds_with_the_runs_model() {
    engines(async |engine, store: Store| {
        seed(&store).await;
        let base = at("2025-03-02T09:00:00Z");
        // Two at the same moment: run and giver decide their order.
        let given = [
            ("ann", "ta", "a2", 0),
            ("ann", "ta", "a1", 0),
            ("bob", "tb", "b1", 60),
        ];
        for (owner, thread, run, secs) in given {
            let mut f = feedback(owner, thread, run, Rating::Up, "2025-03-02T09:00:00Z");
            f.at = base + Duration::seconds(secs);
            store.feedback.put(&f).await.unwrap().unwrap();
        }
        let range = ExportRange::default();
        let mut seen = Vec::new();
        let mut after: Option<ExportCursor> = None;
        loop {
            let page = store
                .feedback
                .export_page(&range, after.as_ref(), 2)
                .await
                .unwrap();
            let Some(last) = page.last() else { break };
            after = Some(ExportCursor::after(&last.feedback));
            seen.extend(page.into_iter().map(|e| (e.feedback.run_id.clone(), e)));
        }
        let ids: Vec<&str> = seen.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["a1", "a2", "b1"], "{engine}");
        let a1 = &seen[0].1;
        assert_eq!(a1.model.as_deref(), Some("deep"), "most calls: {engine}");
        assert_eq!(a1.assistant_id, "lead_agent");
        assert_eq!(a1.feedback.owner_email.as_deref(), Some("ann@antler.test"));
        assert_eq!(seen[2].1.model, None, "{engine}");
        assert_eq!(seen[2].1.feedback.owner_email, None, "{engine}");

        // `since` included, `until` left out.
        let bounded = ExportRange {
            since: Some(base),
            until: Some(base + Duration::seconds(60)),
        };
        let page = store
            .feedback
            .export_page(&bounded, None, 10)
            .await
            .unwrap();
        let ids: Vec<&str> = page.iter().map(|e| e.feedback.run_id.as_str()).collect();
        assert_eq!(ids, ["a1", "a2"], "{engine}");
    })
    .await;
}
