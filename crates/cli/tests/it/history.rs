//! A thread's stored history is never replaced by an empty one when it cannot be read.

use serde_json::json;

use crate::common::{Env, mock_llm, run_body};

/// The stored state of thread `t`, straight from the SQLite file.
async fn stored_state(env: &Env) -> String {
    let db = sqlx::SqlitePool::connect(&format!(
        "sqlite:{}",
        env.data_dir().join("antler.db").display()
    ))
    .await
    .unwrap();
    let (state,): (String,) = sqlx::query_as("SELECT state FROM threads WHERE thread_id = 't'")
        .fetch_one(&db)
        .await
        .unwrap();
    db.close().await;
    state
}

#[tokio::test]
async fn a_run_over_unreadable_stored_history_fails_and_leaves_it_untouched() {
    let env = Env::new();
    let model = mock_llm("scenarios:\n  - match: \"\"\n    turns: [{content: ok}]\n").await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server.create_thread("t").await;
    let (status, _) = server
        .post_json("/api/threads/t/runs/wait", run_body("first", &["values"]))
        .await;
    assert_eq!(status, 200);
    // Something (a bug, a hand edit, a newer server) left a history this server cannot read.
    let corrupt =
        r#"{"messages":[{"type":"human","id":"h1","content":"first"},{"type":"martian"}]}"#;
    let db = sqlx::SqlitePool::connect(&format!(
        "sqlite:{}",
        env.data_dir().join("antler.db").display()
    ))
    .await
    .unwrap();
    sqlx::query("UPDATE threads SET state = ? WHERE thread_id = 't'")
        .bind(corrupt)
        .execute(&db)
        .await
        .unwrap();
    db.close().await;

    let (status, _) = server
        .post_json("/api/threads/t/runs/wait", run_body("second", &["values"]))
        .await;
    assert_eq!(status, 500);
    let (_, runs) = server.get_json("/api/threads/t/runs").await;
    assert_eq!(runs[0]["status"], "error", "{runs}");
    assert!(
        runs[0]["error"]
            .as_str()
            .unwrap()
            .contains("stored history could not be read"),
        "{runs}"
    );
    assert_eq!(
        stored_state(&env).await,
        corrupt,
        "the history was replaced"
    );
    // A retry without input reads the history first, and says why it cannot.
    let (status, body) = server
        .post_json(
            "/api/threads/t/runs",
            json!({"assistant_id": "lead_agent", "input": null}),
        )
        .await;
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["error"]["code"], "thread_state_unreadable");
    assert_eq!(stored_state(&env).await, corrupt);
}
