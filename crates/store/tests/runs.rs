//! Run, event log and checkpoint repositories against a real SQLite file and a real
//! PostgreSQL database.

#![expect(
    clippy::unwrap_used,
    reason = "tests: a failed step aborts with its message"
)]

mod common;

use antler_protocol::runs::{MultitaskStrategy, RunStatus, RunUsage, StopReason};
use antler_protocol::threads::ThreadStatus;
use antler_store::{NewCheckpoint, RunRecord, RunUpdate, Store, StoredEvent, Topic};
use chrono::Utc;
use serde_json::{Map, json};

async fn stores() -> (tempfile::TempDir, Vec<(&'static str, Store)>) {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    let stores = engines.open().await.unwrap();
    (tmp, stores)
}

/// Creates thread `thread` of `local` with `runs`.
async fn thread_with_runs(store: &Store, thread: &str, runs: &[RunRecord]) {
    store
        .threads
        .create("local", thread, Map::new())
        .await
        .unwrap();
    for r in runs {
        store.runs.create(r).await.unwrap();
    }
}

fn run(id: &str, thread: &str, status: RunStatus, instance: &str) -> RunRecord {
    RunRecord {
        run_id: id.into(),
        thread_id: thread.into(),
        owner: "local".into(),
        assistant_id: "lead_agent".into(),
        status,
        stop_reason: None,
        error: None,
        multitask_strategy: MultitaskStrategy::Reject,
        metadata: Map::new(),
        kwargs: json!({"input": {"messages": []}}),
        instance: instance.into(),
        usage: antler_protocol::runs::RunUsage::default(),
        created_at: Utc::now(),
        updated_at: Utc::now(),
    }
}

#[tokio::test]
async fn runs_are_stored_updated_listed_and_interrupted_after_a_restart() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        thread_with_runs(
            &store,
            "t",
            &[
                run("r1", "t", RunStatus::Success, "a"),
                run("r2", "t", RunStatus::Running, "a"),
                run("r3", "t", RunStatus::Pending, "b"),
            ],
        )
        .await;
        store
            .runs
            .update(
                "r1",
                &RunUpdate {
                    status: RunStatus::Success,
                    stop_reason: Some(StopReason::Completed),
                    error: None,
                    usage: RunUsage {
                        input_tokens: 10,
                        cached_input_tokens: 4,
                        output_tokens: 5,
                        reasoning_tokens: 3,
                        model_calls: 2,
                        cost_usd: 0.25,
                    },
                    metadata: None,
                    timeline: None,
                },
            )
            .await
            .unwrap();
        let r1 = store.runs.get("t", "r1").await.unwrap().unwrap();
        assert_eq!(
            (
                r1.usage.input_tokens,
                r1.usage.output_tokens,
                r1.usage.model_calls
            ),
            (10, 5, 2)
        );
        assert_eq!(
            (
                r1.usage.cached_input_tokens,
                r1.usage.reasoning_tokens,
                r1.usage.cost_usd
            ),
            (4, 3, 0.25),
            "the cached and reasoning tokens and the cost are kept too"
        );
        assert_eq!(r1.stop_reason, Some(StopReason::Completed));
        let kept = r1.metadata.clone();
        // New metadata replaces the old; an update without any keeps it.
        let mut more = kept.clone();
        more.insert("sources".into(), serde_json::json!([{"index": 1}]));
        let update = |metadata| RunUpdate {
            status: RunStatus::Success,
            stop_reason: Some(StopReason::Completed),
            error: None,
            usage: RunUsage {
                input_tokens: 10,
                cached_input_tokens: 4,
                output_tokens: 5,
                reasoning_tokens: 3,
                model_calls: 2,
                cost_usd: 0.25,
            },
            metadata,
            timeline: None,
        };
        store
            .runs
            .update("r1", &update(Some(more.clone())))
            .await
            .unwrap();
        store.runs.update("r1", &update(None)).await.unwrap();
        let r1 = store.runs.get("t", "r1").await.unwrap().unwrap();
        assert_eq!(r1.metadata, more, "{engine}");
        assert!(store.runs.get("other", "r1").await.unwrap().is_none());
        let listed: Vec<String> = store
            .runs
            .list("t", None, 10, 0)
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.run_id)
            .collect();
        assert_eq!(listed, ["r3", "r2", "r1"]);
        // The status filter applies before the page: the one success is found past r3 and r2.
        let succeeded = store
            .runs
            .list("t", Some(RunStatus::Success), 1, 0)
            .await
            .unwrap();
        assert_eq!(succeeded.len(), 1);
        assert_eq!(succeeded[0].run_id, "r1");

        let interrupted = store
            .runs
            .interrupt_active(Some("a"), StopReason::ServerRestart)
            .await
            .unwrap();
        assert_eq!(interrupted.len(), 1);
        assert_eq!(
            interrupted[0].status,
            RunStatus::Interrupted,
            "{engine}: the record after the update"
        );
        let r2 = store.runs.get("t", "r2").await.unwrap().unwrap();
        assert_eq!(r2.status, RunStatus::Interrupted);
        assert_eq!(r2.stop_reason, Some(StopReason::ServerRestart));
        assert_eq!(
            store.runs.get("t", "r3").await.unwrap().unwrap().status,
            RunStatus::Pending,
            "other instance untouched"
        );
        assert_eq!(
            store
                .runs
                .interrupt_active(None, StopReason::ServerRestart)
                .await
                .unwrap()
                .len(),
            1
        );
    }
}

#[tokio::test]
async fn finished_runs_are_deleted_with_their_events_and_active_ones_are_kept() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        store
            .threads
            .create("local", "t", Map::new())
            .await
            .unwrap();
        for (id, status) in [("done", RunStatus::Success), ("live", RunStatus::Running)] {
            store.runs.create(&run(id, "t", status, "a")).await.unwrap();
            let event = StoredEvent {
                seq: 1,
                event: "end".into(),
                data: "null".into(),
            };
            store.runs.append_events(id, &[event]).await.unwrap();
        }
        assert!(
            !store.runs.delete("other", "done").await.unwrap(),
            "{engine}"
        );
        assert!(!store.runs.delete("t", "live").await.unwrap(), "{engine}");
        assert!(store.runs.delete("t", "done").await.unwrap(), "{engine}");
        assert!(!store.runs.delete("t", "done").await.unwrap(), "{engine}");
        assert!(
            store.runs.get("t", "done").await.unwrap().is_none(),
            "{engine}"
        );
        assert!(
            store.runs.events_after("done", 0).await.unwrap().is_empty(),
            "{engine}"
        );
        assert_eq!(
            store.runs.events_after("live", 0).await.unwrap().len(),
            1,
            "{engine}"
        );
    }
}

/// A run deleted with its thread while its last events were on their way: appending them is
/// not an error (the writer would retry and report data lost), and nothing is stored.
#[tokio::test]
async fn events_of_a_deleted_run_are_dropped_without_an_error() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        thread_with_runs(&store, "t", &[run("r", "t", RunStatus::Running, "a")]).await;
        assert!(
            store.threads.delete("local", "t").await.unwrap(),
            "{engine}"
        );
        let late = [StoredEvent {
            seq: 7,
            event: "messages".into(),
            data: "[]".into(),
        }];
        store.runs.append_events("r", &late).await.unwrap();
        assert!(
            store.runs.events_after("r", 0).await.unwrap().is_empty(),
            "{engine}"
        );
    }
}

#[tokio::test]
async fn event_logs_replay_after_a_position() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        thread_with_runs(&store, "t", &[run("r", "t", RunStatus::Running, "a")]).await;
        let events: Vec<StoredEvent> = (1..=450)
            .map(|i| StoredEvent {
                seq: i,
                event: "messages".into(),
                data: format!("[{i}]"),
            })
            .collect();
        store.runs.append_events("r", &events[..300]).await.unwrap();
        store.runs.append_events("r", &events[290..]).await.unwrap();
        let after = store.runs.events_after("r", 440).await.unwrap();
        assert_eq!(
            after.iter().map(|e| e.seq).collect::<Vec<_>>(),
            (441..=450).collect::<Vec<_>>()
        );
        assert_eq!(
            store.runs.events_after("r", 0).await.unwrap().len(),
            450,
            "duplicates ignored"
        );
        assert_eq!(store.runs.last_event_seq("r").await.unwrap(), 450);
        let meta = Map::new();
        store
            .state
            .save(checkpoint("t", &json!({}), Some("r"), None, &meta))
            .await
            .unwrap();
        // Deleting the thread is one statement: its runs, events and checkpoints go with it.
        assert!(store.threads.delete("local", "t").await.unwrap());
        assert!(store.runs.events_after("r", 0).await.unwrap().is_empty());
        assert_eq!(store.runs.last_event_seq("r").await.unwrap(), 0);
        assert!(
            store.runs.get("t", "r").await.unwrap().is_none(),
            "{engine}"
        );
        assert!(store.state.latest("t").await.unwrap().is_none(), "{engine}");
    }
}

#[tokio::test]
async fn events_are_found_by_name_and_the_beginning_of_their_data() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        thread_with_runs(&store, "t", &[run("r", "t", RunStatus::Running, "a")]).await;
        let event = |seq: u64, event: &str, data: &str| StoredEvent {
            seq,
            event: event.into(),
            data: data.into(),
        };
        store
            .runs
            .append_events(
                "r",
                &[
                    event(1, "custom", r#"{"task_id":"a_1","n":1}"#),
                    event(2, "custom", r#"{"task_id":"ab1","n":2}"#),
                    event(3, "messages", r#"{"task_id":"a_1","n":3}"#),
                    event(4, "custom", r#"{"task_id":"a_1","é":4}"#),
                    event(5, "custom", r#"{"task_id":"a%1","n":5}"#),
                    event(6, "custom", r#"{"task_id":"a_1"}"#),
                ],
            )
            .await
            .unwrap();
        let seqs = |found: Vec<StoredEvent>| found.iter().map(|e| e.seq).collect::<Vec<_>>();
        let prefix = r#"{"task_id":"a_1","#;
        // `_` and `%` are plain characters here, not patterns.
        assert_eq!(
            seqs(
                store
                    .runs
                    .events_with_prefix("r", 0, "custom", prefix)
                    .await
                    .unwrap()
            ),
            [1, 4],
            "{engine}"
        );
        assert_eq!(
            seqs(
                store
                    .runs
                    .events_with_prefix("r", 1, "custom", prefix)
                    .await
                    .unwrap()
            ),
            [4],
            "{engine}"
        );
        assert_eq!(
            seqs(
                store
                    .runs
                    .events_with_prefix("r", 0, "custom", r#"{"task_id":"a_1","é""#)
                    .await
                    .unwrap()
            ),
            [4],
            "{engine}: counted in characters"
        );
        assert!(
            store
                .runs
                .events_with_prefix("other", 0, "custom", prefix)
                .await
                .unwrap()
                .is_empty()
        );
    }
}

#[tokio::test]
async fn state_saves_are_checkpoints_with_history() {
    let (_tmp, stores) = stores().await;
    for (_engine, store) in stores {
        store
            .threads
            .create("local", "t", Map::new())
            .await
            .unwrap();
        let meta: Map<String, serde_json::Value> = json!({"source": "loop", "step": 0})
            .as_object()
            .unwrap()
            .clone();
        let first = store
            .state
            .save(NewCheckpoint {
                status: ThreadStatus::Busy,
                ..checkpoint("t", &json!({"messages": [1]}), Some("r1"), None, &meta)
            })
            .await
            .unwrap();
        // A branch from the first checkpoint, then the original line continued.
        let fork = store
            .state
            .save(checkpoint(
                "t",
                &json!({"messages": [1, 3]}),
                Some("r2"),
                Some(&first.checkpoint_id),
                &meta,
            ))
            .await
            .unwrap();
        assert_eq!(fork.step, 1);
        let second = store
            .state
            .save(checkpoint(
                "t",
                &json!({"messages": [1, 2]}),
                Some("r1"),
                Some(&first.checkpoint_id),
                &meta,
            ))
            .await
            .unwrap();
        assert_eq!(
            second.parent_id.as_deref(),
            Some(first.checkpoint_id.as_str())
        );
        assert_eq!(second.step, 2, "positions count every branch");
        assert!(
            first.checkpoint_id < fork.checkpoint_id && fork.checkpoint_id < second.checkpoint_id,
            "ids are time-ordered"
        );
        let got = store
            .state
            .get("t", &fork.checkpoint_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(got.state, json!({"messages": [1, 3]}));
        assert_eq!(got.metadata, meta);
        assert_eq!(got.parent_id.as_deref(), Some(first.checkpoint_id.as_str()));
        assert!(
            store
                .state
                .get("other", &fork.checkpoint_id)
                .await
                .unwrap()
                .is_none()
        );
        let thread = store.threads.get("local", "t").await.unwrap().unwrap();
        assert_eq!(thread.values, json!({"messages": [1, 2]}));
        assert_eq!(thread.status, ThreadStatus::Idle);
        let history = store
            .state
            .history("t", 10, None, usize::MAX)
            .await
            .unwrap();
        assert_eq!(history.len(), 3);
        assert_eq!(history[0].checkpoint_id, second.checkpoint_id);
        let before = store
            .state
            .history("t", 10, Some(&second.checkpoint_id), usize::MAX)
            .await
            .unwrap();
        assert_eq!(before.len(), 2);
        assert_eq!(
            store.state.latest("t").await.unwrap().unwrap().state,
            json!({"messages": [1, 2]})
        );
        store
            .state
            .set_status("t", ThreadStatus::Busy)
            .await
            .unwrap();
        assert_eq!(
            store
                .threads
                .get("local", "t")
                .await
                .unwrap()
                .unwrap()
                .status,
            ThreadStatus::Busy
        );
    }
}

#[tokio::test]
async fn stored_events_and_published_notices_reach_subscribers() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        let mut rx = store.bus.subscribe();
        thread_with_runs(&store, "t", &[run("rn", "t", RunStatus::Running, "a")]).await;
        store
            .runs
            .append_events(
                "rn",
                &[StoredEvent {
                    seq: 1,
                    event: "values".into(),
                    data: "{}".into(),
                }],
            )
            .await
            .unwrap();
        store.bus.publish(Topic::RunCancel, "rn").await.unwrap();
        let mut seen = Vec::new();
        while seen.len() < if store.bus.shared() { 2 } else { 1 } {
            let n = tokio::time::timeout(std::time::Duration::from_secs(5), rx.recv())
                .await
                .unwrap()
                .unwrap();
            seen.push((n.topic, n.payload));
        }
        assert!(
            seen.contains(&(Topic::RunCancel, "rn".to_string())),
            "{engine}: {seen:?}"
        );
        if store.bus.shared() {
            assert!(
                seen.contains(&(Topic::RunEvents, "rn:1".to_string())),
                "{engine}: {seen:?}"
            );
        }
        store.instances.heartbeat("alive").await.unwrap();
        assert!(
            store.instances.stale("me", 60).await.unwrap().is_empty(),
            "{engine}"
        );
        assert_eq!(
            store.instances.stale("me", 0).await.unwrap(),
            ["alive"],
            "{engine}"
        );
        store.instances.remove("alive").await.unwrap();
    }
}

/// A checkpoint of thread `t`'s values that leaves the thread idle.
fn checkpoint<'a>(
    thread_id: &'a str,
    values: &'a serde_json::Value,
    run_id: Option<&'a str>,
    parent_id: Option<&'a str>,
    metadata: &'a Map<String, serde_json::Value>,
) -> NewCheckpoint<'a> {
    NewCheckpoint {
        thread_id,
        values,
        status: ThreadStatus::Idle,
        run_id,
        parent_id,
        metadata,
    }
}

fn events(seqs: std::ops::RangeInclusive<u64>, data: &str) -> Vec<StoredEvent> {
    seqs.map(|seq| StoredEvent {
        seq,
        event: "messages".into(),
        data: data.into(),
    })
    .collect()
}

/// Several runs' events in one transaction: every run gets its own, in order, and each
/// thread's storage counts the bytes of its runs' events (two runs of one thread add up).
#[tokio::test]
async fn events_of_several_runs_are_appended_together_and_counted_per_thread() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        // Each thread has an owner of its own: an owner's total is that thread's.
        for (owner, t) in [("local", "t1"), ("other", "t2")] {
            store.threads.create(owner, t, Map::new()).await.unwrap();
        }
        for (r, t) in [("a", "t1"), ("b", "t1"), ("c", "t2")] {
            store
                .runs
                .create(&run(r, t, RunStatus::Running, "i"))
                .await
                .unwrap();
        }
        let before = (
            store.threads.stored_bytes("local").await.unwrap(),
            store.threads.stored_bytes("other").await.unwrap(),
        );
        let (a, b, c) = (
            events(1..=3, "aaaa"),
            events(1..=2, "bbbbbbbb"),
            events(1..=1, "cc"),
        );
        store
            .runs
            .append_events_of_runs(&[("a", &a), ("b", &b), ("c", &c), ("a", &[])])
            .await
            .unwrap();
        for (r, want) in [("a", &a), ("b", &b), ("c", &c)] {
            assert_eq!(
                &store.runs.events_after(r, 0).await.unwrap(),
                want,
                "{engine}: run {r}"
            );
        }
        let added = (
            store.threads.stored_bytes("local").await.unwrap() - before.0,
            store.threads.stored_bytes("other").await.unwrap() - before.1,
        );
        assert_eq!(added, (3 * 4 + 2 * 8, 2), "{engine}");
    }
}

/// A batch holding a deleted run's events is refused whole (the caller then writes each
/// run alone): nothing of the others is half-stored.
#[tokio::test]
async fn a_batch_with_a_deleted_run_stores_nothing() {
    let (_tmp, stores) = stores().await;
    for (engine, store) in stores {
        for t in ["t1", "gone"] {
            store.threads.create("local", t, Map::new()).await.unwrap();
        }
        store
            .runs
            .create(&run("kept", "t1", RunStatus::Running, "i"))
            .await
            .unwrap();
        store
            .runs
            .create(&run("late", "gone", RunStatus::Running, "i"))
            .await
            .unwrap();
        store.threads.delete("local", "gone").await.unwrap();
        let (kept, late) = (events(1..=2, "k"), events(1..=1, "l"));
        assert!(
            store
                .runs
                .append_events_of_runs(&[("kept", &kept), ("late", &late)])
                .await
                .is_err(),
            "{engine}"
        );
        assert!(
            store.runs.events_after("kept", 0).await.unwrap().is_empty(),
            "{engine}"
        );
    }
}
