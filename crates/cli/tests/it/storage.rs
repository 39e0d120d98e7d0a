//! What conversations store: per-person quotas and a history answer bounded in bytes.

use serde_json::{Value, json};

use crate::auth::{send, user};
use crate::common::{Env, client_with, error_code, mock_llm};

const SCRIPT: &str = "scenarios:\n  - match: \"\"\n    turns:\n      - content: \"An answer of some length to fill the event log a little.\"\n";

fn run(text: &str) -> Value {
    json!({"assistant_id": "lead_agent", "if_not_exists": "create",
           "input": {"messages": [{"role": "user", "content": text}]}})
}

#[tokio::test]
async fn a_person_over_their_storage_quota_gets_429_until_they_delete_and_others_go_on() {
    let model = mock_llm(SCRIPT).await;
    let env = Env::new();
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_THREADS_MAX_STORED_BYTES_PER_USER", "20000"),
        ],
    );
    let big = "x".repeat(25_000);
    let (status, body) = server
        .post_json("/api/threads/a/runs/wait", run(&big))
        .await;
    assert_eq!(status, 200, "{body}");
    // Now over the quota: new runs and state updates are refused, and say why.
    for (path, body) in [
        ("/api/threads/a/runs/wait", run("again")),
        ("/api/threads/b/runs", run("elsewhere")),
        ("/api/runs/wait", run("stateless")),
        (
            "/api/threads/a/state",
            json!({"values": {"title": "renamed"}}),
        ),
        // A copy stores the history again.
        ("/api/threads/a/copy", json!({})),
    ] {
        let (status, answer) = server.post_json(path, body).await;
        assert_eq!(status, 429, "{path}: {answer}");
        assert_eq!(error_code(&answer), "storage_quota_exceeded", "{answer}");
        assert_eq!(answer["error"]["details"]["limit_bytes"], 20000);
        assert!(answer["error"]["details"]["used_bytes"].as_u64().unwrap() >= 20000);
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("delete"),
            "{answer}"
        );
    }
    // Nothing was stored by the refused requests.
    let (status, _) = server.get_json("/api/threads/b").await;
    assert_eq!(status, 404);
    let (_, threads) = server
        .post_json("/api/threads/search", json!({"limit": 100}))
        .await;
    assert_eq!(threads.as_array().unwrap().len(), 1, "no copy: {threads}");
    // Someone else is not held back.
    let bob = client_with(Some(&user(&server, "bob@antler.test").await));
    let (status, answer) = send(
        bob.post(server.url("/api/threads/bobs/runs/wait"))
            .json(&run("hi")),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    // Deleting the conversation frees the space.
    assert_eq!(server.delete("/api/threads/a").await.0, 204);
    let (status, body) = server
        .post_json("/api/threads/c/runs/wait", run("fresh"))
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn history_of_many_forks_of_a_large_message_is_bounded_in_bytes() {
    let env = Env::new();
    let server = env.start_with(&[("ANTLER_THREADS_HISTORY_MAX_BYTES", "2000000")]);
    server.create_thread("t").await;
    let big = "y".repeat(400_000);
    let (status, body) = server
        .post_json(
            "/api/threads/t/state",
            json!({"values": {"messages": [{"type": "human", "id": "m1", "content": big}]}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    for i in 0..20 {
        let (status, body) = server
            .post_json(
                "/api/threads/t/state",
                json!({"values": {"title": format!("t{i}")}}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }
    let r = server
        .http
        .post(server.url("/api/threads/t/history"))
        .json(&json!({"limit": 1000}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let text = r.text().await.unwrap();
    assert!(text.len() < 3_000_000, "{} bytes answered", text.len());
    let states: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(
        (1..21).contains(&states.len()),
        "{} states: the byte budget cut the page",
        states.len()
    );
    // Paging on with `before` reaches the rest.
    let last = states.last().unwrap()["checkpoint"]["checkpoint_id"].clone();
    let (status, more) = server
        .post_json(
            "/api/threads/t/history",
            json!({"limit": 1000, "before": {"configurable": {"checkpoint_id": last}}}),
        )
        .await;
    assert_eq!(status, 200);
    assert!(!more.as_array().unwrap().is_empty());
    assert_eq!(
        states[0]["values"]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .len(),
        400_000
    );
}
