//! What LangGraph clients (the Agent Chat UI, the SDKs) rely on beyond runs and threads:
//! the info and ok probes, JSON bodies sent as text/plain through a proxy, and threads that
//! carry their graph in their metadata.

use serde_json::json;

use crate::common::{Env, mock_llm, run_body};

#[tokio::test]
async fn info_and_ok_answer_without_a_credential() {
    let env = Env::new();
    let server = env.start();
    let anonymous = reqwest::Client::new();
    let info: serde_json::Value = anonymous
        .get(server.url("/api/info"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(info["flags"]["assistants"], false);
    let ok = anonymous.get(server.url("/api/ok")).send().await.unwrap();
    assert_eq!(ok.status().as_u16(), 200);
    assert_eq!(
        ok.json::<serde_json::Value>().await.unwrap(),
        json!({"ok": true})
    );
}

#[tokio::test]
async fn json_sent_as_text_plain_is_read_and_runs_record_their_graph_on_the_thread() {
    let env = Env::new();
    let model =
        mock_llm("scenarios:\n  - match: \"\"\n    turns:\n      - content: \"hi\"\n").await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    // What a Next.js passthrough route forwards: JSON with `text/plain`.
    let r = server
        .http
        .post(server.url("/api/threads"))
        .header("content-type", "text/plain;charset=UTF-8")
        .body(json!({"thread_id": "t", "metadata": {"source": "proxy"}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let (status, _) = server
        .post_json("/api/threads/t/runs/wait", run_body("hello", &["values"]))
        .await;
    assert_eq!(status, 200);
    let (_, thread) = server.get_json("/api/threads/t").await;
    assert_eq!(thread["metadata"]["graph_id"], "lead_agent", "{thread}");
    assert_eq!(thread["metadata"]["assistant_id"], "lead_agent");
    assert_eq!(thread["metadata"]["source"], "proxy");
    let (_, found) = server
        .post_json(
            "/api/threads/search",
            json!({"metadata": {"graph_id": "lead_agent"}}),
        )
        .await;
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
}
