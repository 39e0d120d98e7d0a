//! Following runs through the run manager with the scripted model: a follower that falls
//! behind, and subagents whose streamed events are stored once, in their parent's log.

#![expect(clippy::unwrap_used, reason = "tests")]

mod common;

use std::sync::Arc;

use antler_agent_runtime::runs::log::RunEvent;
use antler_protocol::runs::{MultitaskStrategy, RunStatus};
use antler_store::{RunRecord, StoredEvent};
use futures::StreamExt;
use serde_json::{Map, Value, json};

fn follow(
    h: &common::Harness,
    thread: &str,
    run_id: &str,
) -> antler_agent_runtime::runs::stream::Events {
    antler_agent_runtime::runs::stream::follow(
        h.manager.clone(),
        thread.into(),
        run_id.into(),
        0,
        Default::default(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follower_that_falls_behind_reads_on_from_the_database_in_order() {
    let words: String = (1..=300).map(|i| format!("w{i} ")).collect();
    let script = format!(
        "scenarios:\n  - match: \"\"\n    turns:\n      - content: \"{words}\"\n        chunk_size: 4\n        chunk_delay_ms: 1\n"
    );
    // Memory holds only the last few kilobytes of the run's events.
    let h = common::harness(&script, 4096).await;
    let run = h.start("t", "a long answer", &["messages-tuple"]).await;
    let mut slow = follow(&h, "t", &run.run_id);
    let mut got: Vec<Arc<RunEvent>> = Vec::new();
    for _ in 0..3 {
        got.push(slow.next().await.unwrap());
    }
    // It stops reading; the run goes on to its end without it.
    run.finished().await;
    got.extend(slow.collect::<Vec<_>>().await);
    let all = h.read("t", &run.run_id, 0).await;
    assert!(all.len() > 300, "{} events", all.len());
    assert_eq!(
        common::ids(&got),
        (1..=all.len() as u64).collect::<Vec<_>>()
    );
    assert_eq!(got, all);
    assert_eq!(got.last().unwrap().event, "end");
}

fn subagent_script() -> String {
    r#"scenarios:
  - system: "<subagent"
    match: "Research"
    turns:
      - content: "Findings: one two three four five six seven eight nine ten eleven twelve"
        chunk_size: 3
        chunk_delay_ms: 10
  - match: "delegate"
    turns:
      - tool_calls:
          - {name: task, arguments: {description: "Look", prompt: "Research this"}}
      - content: "done"
"#
    .into()
}

/// The `custom` payloads of `events`.
fn custom(events: &[Arc<RunEvent>]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e.event == "custom")
        .map(|e| serde_json::from_str(&e.data).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagents_events_are_stored_once_and_its_stream_is_read_back_from_its_parents_log() {
    let h = common::harness(&subagent_script(), 4 * 1024 * 1024).await;
    let run = h
        .start("t", "delegate please", &["messages-tuple", "custom"])
        .await;
    // Joined while it works, from memory.
    let mut parent = follow(&h, "t", &run.run_id);
    let mut events = Vec::new();
    let mut live_child = None;
    while let Some(e) = parent.next().await {
        if live_child.is_none() && e.event == "custom" && e.data.contains("\"task_started\"") {
            let child: Value = serde_json::from_str(&e.data).unwrap();
            let child = child["run_id"].as_str().unwrap().to_string();
            let joined = follow(&h, "t", &child);
            live_child = Some((child, tokio::spawn(joined.collect::<Vec<_>>())));
        }
        events.push(e);
    }
    let (child, live) = live_child.unwrap();
    let live = live.await.unwrap();

    // The subagent's own log stores only its end; its streamed events are the parent's.
    let own = h.store.runs.events_after(&child, 0).await.unwrap();
    assert_eq!(
        own.iter().map(|e| e.event.as_str()).collect::<Vec<_>>(),
        ["end"]
    );
    let forwarded: Vec<(String, String)> = custom(&events)
        .into_iter()
        .filter(|p| p["type"] == "task_event")
        .map(|p| {
            (
                p["event"].as_str().unwrap().to_string(),
                p["data"].to_string(),
            )
        })
        .collect();
    assert!(forwarded.len() > 5, "{forwarded:?}");

    // Read back after the fact, it is what it streamed: the same events, ids 1, 2, 3…, end.
    let stored = h.read("t", &child, 0).await;
    let expected: Vec<(u64, String, Value)> = forwarded
        .iter()
        .enumerate()
        .map(|(i, (event, data))| {
            (
                i as u64 + 1,
                event.clone(),
                serde_json::from_str(data).unwrap(),
            )
        })
        .chain([(forwarded.len() as u64 + 1, "end".to_string(), Value::Null)])
        .collect();
    let shown = |events: &[Arc<RunEvent>]| -> Vec<(u64, String, Value)> {
        events
            .iter()
            .map(|e| {
                (
                    e.seq,
                    e.event.clone(),
                    serde_json::from_str(&e.data).unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(shown(&stored), expected);
    assert_eq!(shown(&live), expected, "joined live, from memory");
    // Resuming after an event id.
    let resumed = h.read("t", &child, 3).await;
    assert_eq!(shown(&resumed), expected[3..]);
}

fn record(run_id: &str, status: RunStatus, metadata: Map<String, Value>) -> RunRecord {
    RunRecord {
        run_id: run_id.into(),
        thread_id: "t".into(),
        owner: "local".into(),
        assistant_id: "lead_agent".into(),
        status,
        stop_reason: None,
        error: None,
        multitask_strategy: MultitaskStrategy::Enqueue,
        metadata,
        kwargs: json!({}),
        instance: "test".into(),
        usage: antler_protocol::runs::RunUsage::default(),
        created_at: chrono::Utc::now(),
        updated_at: chrono::Utc::now(),
    }
}

fn stored(seq: u64, event: &str, data: &str) -> StoredEvent {
    StoredEvent {
        seq,
        event: event.into(),
        data: data.into(),
    }
}

#[tokio::test]
async fn a_subagent_left_running_by_a_restart_ends_after_the_events_its_parent_stored() {
    let h = common::harness(&subagent_script(), 4096).await;
    let store = &h.store;
    store
        .threads
        .create("local", "t", Map::new())
        .await
        .unwrap();
    store
        .runs
        .create(&record("parent", RunStatus::Running, Map::new()))
        .await
        .unwrap();
    let mut metadata = Map::new();
    metadata.insert("parent_run_id".into(), json!("parent"));
    metadata.insert("task_id".into(), json!("call_1"));
    store
        .runs
        .create(&record("child", RunStatus::Running, metadata.clone()))
        .await
        .unwrap();
    // A run claiming the same parent, which never started it: its own log is all it has.
    store
        .runs
        .create(&record("impostor", RunStatus::Success, metadata))
        .await
        .unwrap();
    store
        .runs
        .append_events("impostor", &[stored(1, "end", "null")])
        .await
        .unwrap();
    let chunk = |text: &str| format!(r#"[{{"content":"{text}","type":"AIMessageChunk"}},{{}}]"#);
    store
        .runs
        .append_events(
            "parent",
            &[
                stored(1, "metadata", r#"{"run_id":"parent"}"#),
                stored(
                    2,
                    "custom",
                    r#"{"type":"task_started","task_id":"call_1","run_id":"child","description":"d","subagent_type":"general-purpose"}"#,
                ),
                stored(
                    3,
                    "custom",
                    &format!(r#"{{"type":"task_event","task_id":"call_1","event":"messages","data":{}}}"#, chunk("a")),
                ),
                stored(
                    4,
                    "custom",
                    &format!(r#"{{"type":"task_event","task_id":"call_2","event":"messages","data":{}}}"#, chunk("x")),
                ),
                stored(
                    5,
                    "custom",
                    &format!(r#"{{"type":"task_event","task_id":"call_1","event":"messages","data":{}}}"#, chunk("b")),
                ),
            ],
        )
        .await
        .unwrap();

    h.manager.recover().await.unwrap();

    let child = h.read("t", "child", 0).await;
    let names: Vec<(u64, &str)> = child.iter().map(|e| (e.seq, e.event.as_str())).collect();
    assert_eq!(
        names,
        [(1, "messages"), (2, "messages"), (3, "error"), (4, "end")]
    );
    assert_eq!(child[1].data, chunk("b"));
    let impostor = h.read("t", "impostor", 0).await;
    assert_eq!(common::ids(&impostor), [1]);
}
