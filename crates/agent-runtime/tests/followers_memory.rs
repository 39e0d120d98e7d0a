//! What a follower of a live run costs in memory: many viewers of one run must not need a
//! task, a channel or a copy of the events each. Alone in its binary: the heap is counted for
//! the whole process.

#![expect(clippy::unwrap_used, reason = "tests")]

mod common;

use std::sync::Arc;
use std::task::{Context, Poll};

use futures::{Stream, StreamExt};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Followers opened at once.
const FOLLOWERS: usize = 2_000;
/// Heap bytes one waiting follower may hold (the stream itself included).
const MAX_BYTES_PER_FOLLOWER: usize = 1_024;

fn script() -> String {
    let words: String = (1..=60).map(|i| format!("w{i} ")).collect();
    format!(
        "scenarios:\n  - match: \"\"\n    turns:\n      - content: \"{words}\"\n        chunk_size: 4\n        chunk_delay_ms: 20\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_viewers_of_a_live_run_cost_little_each_and_all_get_every_event() {
    let h = common::harness(&script(), 4 * 1024 * 1024).await;
    let run = h.start("t", "talk slowly", &["messages-tuple"]).await;
    // Streaming: the first model chunks are in the log.
    let mut probe = antler_agent_runtime::runs::stream::follow(
        h.manager.clone(),
        "t".into(),
        run.run_id.clone(),
        0,
        Default::default(),
    );
    for _ in 0..4 {
        probe.next().await.unwrap();
    }

    let profiler = dhat::Profiler::builder().testing().build();
    let before = dhat::HeapStats::get().curr_bytes;
    let mut followers: Vec<_> = (0..FOLLOWERS)
        .map(|_| {
            antler_agent_runtime::runs::stream::follow(
                h.manager.clone(),
                "t".into(),
                run.run_id.clone(),
                0,
                Default::default(),
            )
        })
        .collect();
    // Each reads what the log holds so far, then waits for the next event.
    let waker = futures::task::noop_waker();
    let mut cx = Context::from_waker(&waker);
    let mut replayed = vec![Vec::new(); FOLLOWERS];
    for (f, got) in followers.iter_mut().zip(&mut replayed) {
        while let Poll::Ready(Some(e)) = std::pin::Pin::new(&mut *f).poll_next(&mut cx) {
            got.push(e);
        }
    }
    let per_follower = dhat::HeapStats::get()
        .curr_bytes
        .saturating_sub(before)
        .saturating_sub(replayed.iter().map(|r| r.capacity() * 8).sum())
        / FOLLOWERS;
    drop(profiler);
    eprintln!("a waiting follower holds {per_follower} bytes");
    assert!(
        per_follower <= MAX_BYTES_PER_FOLLOWER,
        "a waiting follower holds {per_follower} bytes"
    );

    // Then every one of them gets every event, in order, to the end.
    let rest =
        futures::future::join_all(followers.into_iter().map(|f| f.collect::<Vec<Arc<_>>>())).await;
    let all = h.read("t", &run.run_id, 0).await;
    assert_eq!(all.last().unwrap().event, "end");
    // `end` can reach followers before the writer's last batch is stored.
    run.finished().await;
    let stored = h.store.runs.events_after(&run.run_id, 0).await.unwrap();
    assert_eq!(stored.len(), all.len());
    assert!(all.len() > 20, "{} events", all.len());
    for (mut got, rest) in replayed.into_iter().zip(rest) {
        got.extend(rest);
        assert_eq!(common::ids(&got), common::ids(&all));
    }
}
