//! The LangGraph SDK calls Antler answered last: `patch_state`, a thread's `join_stream`,
//! `ids` / `select` / `extract` in thread search, `select` and filters on states, cancelling
//! many runs (and one with `rollback`), run batches, and the storage counter after
//! rollback, pruning and copying.

use serde_json::{Value, json};

use crate::auth::{send, user};
use crate::common::{Env, Server, client_with, error_code, mock_llm, read_sse, wait_for};

/// A slow answer for "slow", else a quick one.
const SCRIPT: &str = r#"
scenarios:
  - match: "slow"
    turns:
      - content: "one two three four five six seven eight nine ten eleven twelve thirteen"
        chunk_size: 2
        chunk_delay_ms: 200
  - match: ""
    turns:
      - content: "quick answer"
"#;

async fn server(env: &Env, extra: &[(&str, &str)]) -> Server {
    let mut vars = vec![("ANTLER_AGENT_GENERATE_TITLES", "false")];
    vars.extend_from_slice(extra);
    env.start_agent(&mock_llm(SCRIPT).await, &vars)
}

fn body(text: &str) -> Value {
    json!({"assistant_id": "lead_agent", "if_not_exists": "create", "stream_mode": ["messages-tuple"],
           "input": {"messages": [{"role": "user", "content": text}]}})
}

/// Starts a background run; answers its id.
async fn start(server: &Server, thread: &str, text: &str) -> String {
    let (status, run) = server
        .post_json(&format!("/api/threads/{thread}/runs"), body(text))
        .await;
    assert_eq!(status, 200, "{run}");
    run["run_id"].as_str().unwrap().to_string()
}

async fn running(server: &Server, thread: &str, run: &str) {
    server
        .wait_run(thread, run, |r| r["status"] == "running")
        .await;
}

async fn status_of(server: &Server, thread: &str, run: &str) -> Value {
    server
        .get_json(&format!("/api/threads/{thread}/runs/{run}"))
        .await
        .1["status"]
        .clone()
}

#[tokio::test]
async fn patch_state_merges_metadata_into_the_newest_or_a_named_checkpoint() {
    let env = Env::new();
    let server = server(&env, &[]).await;
    server.create_thread("empty").await;
    let (status, body) = server
        .patch_json("/api/threads/empty/state", json!({"metadata": {"a": 1}}))
        .await;
    assert_eq!((status, error_code(&body)), (404, "not_found"), "{body}");
    server.run_wait("t", "lead_agent", "hello").await;
    let (status, _) = server
        .patch_json(
            "/api/threads/t/state",
            json!({"metadata": {"reviewed": true, "n": 1}}),
        )
        .await;
    assert_eq!(status, 204);
    let (_, state) = server.get_json("/api/threads/t/state").await;
    assert_eq!(state["metadata"]["reviewed"], true);
    assert_eq!(
        state["metadata"]["source"], "loop",
        "the rest of the metadata stays"
    );
    server
        .patch_json("/api/threads/t/state", json!({"metadata": {"n": null}}))
        .await;
    let (_, state) = server.get_json("/api/threads/t/state").await;
    assert!(state["metadata"].get("n").is_none(), "null removes a key");
    // A named checkpoint: the first one.
    let (_, history) = server
        .post_json("/api/threads/t/history", json!({"limit": 100}))
        .await;
    let first = history.as_array().unwrap().last().unwrap()["checkpoint"]["checkpoint_id"].clone();
    server
        .patch_json(
            "/api/threads/t/state",
            json!({"metadata": {"first": true}, "checkpoint_id": first}),
        )
        .await;
    let (_, at) = server
        .get_json(&format!("/api/threads/t/state/{}", first.as_str().unwrap()))
        .await;
    assert_eq!(at["metadata"]["first"], true);
    let (_, newest) = server.get_json("/api/threads/t/state").await;
    assert!(newest["metadata"].get("first").is_none());
    // Filtering the history by that metadata finds just it.
    let (_, found) = server
        .post_json(
            "/api/threads/t/history",
            json!({"metadata": {"first": true}}),
        )
        .await;
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    for (path, patch) in [
        ("/api/threads/nope/state", json!({"metadata": {}})),
        (
            "/api/threads/t/state",
            json!({"metadata": {}, "checkpoint_id": "missing"}),
        ),
    ] {
        let (status, body) = server.patch_json(path, patch).await;
        assert_eq!((status, error_code(&body)), (404, "not_found"), "{body}");
    }
}

#[tokio::test]
async fn a_thread_stream_follows_its_active_run_to_the_end_and_an_idle_thread_ends_at_once() {
    let env = Env::new();
    let server = server(&env, &[]).await;
    server.create_thread("idle").await;
    let idle = read_sse(server.get("/api/threads/idle/stream").await, |_| false).await;
    assert_eq!(
        idle.iter().map(|e| e.event.as_str()).collect::<Vec<_>>(),
        ["end"]
    );
    let run = start(&server, "t", "slow please").await;
    let response = server
        .get("/api/threads/t/stream?stream_mode=messages-tuple")
        .await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert!(
        text.contains(&format!("id: {run}:")),
        "ids name the run: {text}"
    );
    assert!(text.contains("event: messages"), "{text}");
    assert!(
        text.trim_end().ends_with("event: end\ndata: null"),
        "{text}"
    );
    assert_eq!(text.matches("event: end").count(), 1);
    assert_eq!(status_of(&server, "t", &run).await, "success");
    // Resuming after the first event replays the rest of that run, then ends.
    let first = text
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .unwrap()
        .to_string();
    let resumed = server
        .http
        .get(server.url("/api/threads/t/stream"))
        .header("last-event-id", &first)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!resumed.contains(&format!("id: {first}\n")), "{resumed}");
    assert!(resumed.contains("event: messages"));
    let bad = server
        .http
        .get(server.url("/api/threads/t/stream"))
        .header("last-event-id", "7")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    let (status, body) = server
        .get_json("/api/threads/t/stream?stream_mode=nope")
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (422, "invalid_query"),
        "{body}"
    );
}

#[tokio::test]
async fn thread_search_filters_by_ids_answers_selected_fields_and_extracts_paths() {
    let env = Env::new();
    let server = server(&env, &[]).await;
    for id in ["a", "b", "c"] {
        server
            .run_wait(id, "lead_agent", &format!("hello {id}"))
            .await;
    }
    let (status, found) = server
        .post_json(
            "/api/threads/search",
            json!({"ids": ["a", "c", "zzz"], "sort_by": "thread_id", "sort_order": "asc"}),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    let ids: Vec<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["thread_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "c"]);
    let (_, selected) = server
        .post_json("/api/threads/search", json!({"ids": ["b"], "select": ["thread_id", "status"],
            "extract": {"last": "values.messages[-1].content", "first": "values.messages[0].content", "none": "metadata.nothing"}}))
        .await;
    assert_eq!(
        selected,
        json!([{"thread_id": "b", "status": "idle",
                "extracted": {"last": "quick answer", "first": "hello b", "none": null}}])
    );
    for bad in [
        json!({"select": ["thread_id", "secret"]}),
        json!({"extract": {"x": "state.messages"}}),
        json!({"extract": {"x": "values.messages[one]"}}),
    ] {
        let (status, body) = server.post_json("/api/threads/search", bad.clone()).await;
        assert_eq!(
            (status, error_code(&body)),
            (422, "invalid_body"),
            "{bad}: {body}"
        );
    }
}

#[tokio::test]
async fn states_answer_selected_fields_and_history_starts_at_a_checkpoint() {
    let env = Env::new();
    let server = server(&env, &[]).await;
    server.run_wait("t", "lead_agent", "hello").await;
    let (status, state) = server
        .get_json("/api/threads/t/state?select=next&select=values.messages")
        .await;
    assert_eq!(status, 200, "{state}");
    let mut keys: Vec<&String> = state.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["next", "values"]);
    assert_eq!(
        state["values"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["messages"]
    );
    let (_, history) = server
        .post_json("/api/threads/t/history", json!({"limit": 100}))
        .await;
    let all = history.as_array().unwrap();
    let second = all[1]["checkpoint"].clone();
    let (_, from) = server
        .post_json(
            "/api/threads/t/history",
            json!({"checkpoint": second, "select": ["checkpoint"]}),
        )
        .await;
    let from = from.as_array().unwrap();
    assert_eq!(from.len(), all.len() - 1);
    assert_eq!(from[0], json!({"checkpoint": all[1]["checkpoint"]}));
    let (status, body) = server.get_json("/api/threads/t/state?select=bogus").await;
    assert_eq!(status, 422, "{body}");
}

#[tokio::test]
async fn cancel_many_interrupts_or_rolls_back_the_callers_runs_only() {
    let env = Env::new();
    let server = server(&env, &[]).await;
    let token = user(&server, "other@antler.test").await;
    let other = client_with(Some(&token));
    let (status, theirs) = send(
        other
            .post(server.url("/api/threads/theirs/runs"))
            .json(&body("slow theirs")),
    )
    .await;
    assert_eq!(status, 200, "{theirs}");
    let a = start(&server, "a", "slow a").await;
    let b = start(&server, "b", "slow b").await;
    running(&server, "a", &a).await;
    running(&server, "b", &b).await;
    for bad in [
        json!({}),
        json!({"status": "all", "run_ids": [a]}),
        json!({"status": "done"}),
    ] {
        let (status, body) = server.post_json("/api/runs/cancel", bad.clone()).await;
        assert_eq!(status, 422, "{bad}: {body}");
    }
    let (status, body) = server
        .post_json(
            "/api/runs/cancel",
            json!({"thread_id": "a", "run_ids": [b]}),
        )
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (404, "not_found"),
        "another thread's run: {body}"
    );
    // Rollback: `a` goes with its input.
    let (status, _) = server
        .post_json(
            "/api/runs/cancel?action=rollback",
            json!({"thread_id": "a", "run_ids": [a]}),
        )
        .await;
    assert_eq!(status, 204);
    let (status, _) = server.get_json(&format!("/api/threads/a/runs/{a}")).await;
    assert_eq!(status, 404, "rolled back");
    let (_, state) = server.get_json("/api/threads/a/state").await;
    assert_eq!(state["values"]["messages"], json!([]));
    // Status: every running run of the caller, not the other person's.
    let (status, _) = server
        .post_json("/api/runs/cancel", json!({"status": "running"}))
        .await;
    assert_eq!(status, 204);
    server
        .wait_run("b", &b, |r| r["status"] == "interrupted")
        .await;
    let their_run = theirs["run_id"].as_str().unwrap();
    let (_, r) =
        send(other.get(server.url(&format!("/api/threads/theirs/runs/{their_run}")))).await;
    assert_ne!(r["status"], "interrupted", "{r}");
}

#[tokio::test]
async fn cancel_with_rollback_deletes_the_run_and_what_it_wrote() {
    let env = Env::new();
    let server = server(&env, &[]).await;
    server.run_wait("t", "lead_agent", "first").await;
    let run = start(&server, "t", "slow second").await;
    running(&server, "t", &run).await;
    let (status, body) = server
        .post(&format!("/api/threads/t/runs/{run}/cancel?action=rollback"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "interrupted");
    let (status, _) = server.get_json(&format!("/api/threads/t/runs/{run}")).await;
    assert_eq!(status, 404);
    let (_, state) = server.get_json("/api/threads/t/state").await;
    let texts: Vec<&str> = state["values"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["first", "quick answer"]);
    let (status, _) = server
        .post(&format!("/api/threads/t/runs/{run}/cancel?action=rollback"))
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_batch_starts_threaded_and_stateless_runs_and_names_a_bad_item() {
    let env = Env::new();
    let server = server(&env, &[]).await;
    server.create_thread("a").await;
    let (status, runs) = server
        .post_json("/api/runs/batch", json!([
            {"threadId": "a", "assistantId": "lead_agent", "assistant_id": "lead_agent", "input": {"messages": [{"role": "user", "content": "one"}]}},
            {"thread_id": "b", "assistant_id": "lead_agent", "if_not_exists": "create", "input": {"messages": [{"role": "user", "content": "two"}]}},
            {"assistant_id": "lead_agent", "input": {"messages": [{"role": "user", "content": "three"}]}},
        ]))
        .await;
    assert_eq!(status, 200, "{runs}");
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[0]["thread_id"], "a");
    assert_eq!(runs[1]["thread_id"], "b");
    for r in &runs[..2] {
        let t = r["thread_id"].as_str().unwrap();
        server
            .wait_run(t, r["run_id"].as_str().unwrap(), |r| {
                r["status"] == "success"
            })
            .await;
    }
    let item = json!({"assistant_id": "lead_agent"});
    for (batch, want_status, index) in [
        (json!([item, {"input": {}}]), 422, Some(1)),
        (
            json!([item, {"thread_id": "nope", "assistant_id": "lead_agent"}]),
            404,
            Some(1),
        ),
        (
            json!([item, {"assistant_id": "lead_agent", "stream_mode": "bogus"}]),
            422,
            Some(1),
        ),
        (json!([]), 422, None),
        (Value::Array(vec![item.clone(); 101]), 422, None),
        (json!({"assistant_id": "lead_agent"}), 422, None),
    ] {
        let (status, body) = server.post_json("/api/runs/batch", batch).await;
        assert_eq!(status, want_status, "{body}");
        if let Some(i) = index {
            assert_eq!(body["error"]["details"]["index"], i, "{body}");
            assert!(
                body["error"]["message"]
                    .as_str()
                    .unwrap()
                    .starts_with(&format!("item {i}: "))
            );
        }
    }
}

/// A quota of 20,000 bytes: a message of 12,000 counts about twice (the message and the
/// input checkpoint's `writes`).
const QUOTA: [(&str, &str); 1] = [("ANTLER_THREADS_MAX_STORED_BYTES_PER_USER", "20000")];

async fn over_quota(server: &Server) -> bool {
    // A small state update: refused first thing when over the quota, a few bytes when not.
    server.create_thread("probe").await;
    let (status, _) = server
        .post_json(
            "/api/threads/probe/state",
            json!({"values": {"title": "p"}}),
        )
        .await;
    status == 429
}

#[tokio::test]
async fn a_rollback_gives_back_the_storage_its_run_took() {
    let env = Env::new();
    let server = server(&env, &QUOTA).await;
    let big = format!("slow {}", "x".repeat(25_000));
    let run = start(&server, "a", &big).await;
    running(&server, "a", &run).await;
    wait_for("the run's input to be counted", async || {
        over_quota(&server).await
    })
    .await;
    let (status, _) = server
        .post_json(
            "/api/runs/cancel?action=rollback",
            json!({"thread_id": "a"}),
        )
        .await;
    assert_eq!(status, 204);
    assert!(
        !over_quota(&server).await,
        "the rolled back run's bytes are given back"
    );
}

#[tokio::test]
async fn pruning_to_the_latest_state_gives_back_the_storage_of_earlier_checkpoints() {
    let env = Env::new();
    let server = server(&env, &QUOTA).await;
    server.create_thread("a").await;
    // A long title sits in every checkpoint's state.
    let (status, updated) = server
        .post_json(
            "/api/threads/a/state",
            json!({"values": {"title": "t".repeat(8_000)}}),
        )
        .await;
    assert_eq!(status, 200, "{updated}");
    let (status, values) = server
        .post_json("/api/threads/a/runs/wait", body("hello"))
        .await;
    assert_eq!(status, 200, "{values}");
    assert!(over_quota(&server).await);
    let (status, pruned) = server
        .post_json(
            "/api/threads/prune",
            json!({"thread_ids": ["a"], "strategy": "keep_latest"}),
        )
        .await;
    assert_eq!(
        (status, pruned["pruned_count"].clone()),
        (200, json!(1)),
        "{pruned}"
    );
    assert!(!over_quota(&server).await);
}

#[tokio::test]
async fn a_copy_counts_toward_its_owners_storage() {
    let env = Env::new();
    // One thread with a message of 12,000 characters fits, two do not.
    let server = server(
        &env,
        &[("ANTLER_THREADS_MAX_STORED_BYTES_PER_USER", "40000")],
    )
    .await;
    let (status, values) = server
        .post_json("/api/threads/a/runs/wait", body(&"y".repeat(12_000)))
        .await;
    assert_eq!(status, 200, "{values}");
    assert!(!over_quota(&server).await);
    let (status, copy) = server.post("/api/threads/a/copy").await;
    assert_eq!(status, 200, "{copy}");
    assert!(over_quota(&server).await, "the copy's bytes count");
    let id = copy["thread_id"].as_str().unwrap();
    server.delete(&format!("/api/threads/{id}")).await;
    assert!(!over_quota(&server).await);
}
