//! What LangGraph clients (the Agent Chat UI, the SDKs) rely on beyond runs and threads:
//! the info and ok probes, JSON bodies sent as text/plain through a proxy, and threads that
//! carry their graph in their metadata.

use serde_json::json;

use crate::common::{Env, mock_llm, read_sse, run_body};

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
    assert_eq!(info["flags"]["assistants"], true);
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
    // `lead_agent` (DeerFlow's graph name) is the built-in assistant too.
    let (_, built_in) = server.get_json("/api/assistants/agent").await;
    assert_eq!(thread["metadata"]["graph_id"], "agent", "{thread}");
    assert_eq!(thread["metadata"]["assistant_id"], built_in["assistant_id"]);
    assert_eq!(thread["metadata"]["source"], "proxy");
    let (_, found) = server
        .post_json(
            "/api/threads/search",
            json!({"metadata": {"graph_id": "agent"}}),
        )
        .await;
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
}

/// The caller's thread ids, newest first.
async fn thread_ids(server: &crate::common::Server) -> Vec<String> {
    let (_, found) = server
        .post_json("/api/threads/search", json!({"limit": 100}))
        .await;
    found
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["thread_id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_stateless_runs_thread_left_by_a_crash_is_deleted_after_the_restart() {
    let env = Env::new();
    let model = mock_llm(
        "scenarios:\n  - match: \"\"\n    turns:\n      - content: \"a b c d e f g h i j k l m n o p q r s t\"\n        chunk_size: 1\n        chunk_delay_ms: 500\n",
    )
    .await;
    let vars = [
        ("ANTLER_AGENT_GENERATE_TITLES", "false"),
        ("ANTLER_THREADS_SWEEP_TEMPORARY_AFTER_SECS", "1"),
    ];
    let server = env.start_agent(&model, &vars);
    // A kept stateless run's thread is an ordinary one and stays.
    let mut kept = run_body("keep me", &["values"]);
    kept["on_completion"] = json!("keep");
    let (status, run) = server.post_json("/api/runs", kept).await;
    assert_eq!(status, 200, "{run}");
    let kept_thread = run["thread_id"].as_str().unwrap().to_string();
    let (status, run) = server
        .post_json("/api/runs", run_body("hello", &["values"]))
        .await;
    assert_eq!(status, 200, "{run}");
    let thread = run["thread_id"].as_str().unwrap().to_string();
    crate::common::wait_for("both runs to work", async || {
        thread_ids(&server).await.len() == 2
    })
    .await;
    // The process dies while the run streams: no cleanup task survives it.
    server.crash();
    let server = env.start_agent(&model, &vars);
    crate::common::wait_for("the temporary thread to be swept", async || {
        thread_ids(&server).await == [kept_thread.clone()]
    })
    .await;
    assert!(!env.user_data(&thread).exists(), "its files went too");
}

#[tokio::test]
async fn stateless_runs_use_a_temporary_thread_that_is_deleted_unless_kept() {
    let env = Env::new();
    let model =
        mock_llm("scenarios:\n  - match: \"\"\n    turns:\n      - content: \"stateless hi\"\n")
            .await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);

    // wait: the final values, then the thread is gone.
    let (status, values) = server
        .post_json("/api/runs/wait", run_body("hello", &["values"]))
        .await;
    assert_eq!(status, 200, "{values}");
    let last = values["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["content"], "stateless hi", "{values}");
    crate::common::wait_for("the temporary thread to be deleted", async || {
        thread_ids(&server).await.is_empty()
    })
    .await;

    // stream: the usual events, with where the run lived.
    let r = server
        .http
        .post(server.url("/api/runs/stream"))
        .json(&run_body("hello again", &["values"]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let location = r.headers()["content-location"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(location.starts_with("/api/threads/"), "{location}");
    let events = read_sse(r, |_| false).await;
    assert_eq!(events.first().unwrap().event, "metadata");
    assert_eq!(events.last().unwrap().event, "end");
    crate::common::wait_for("the streamed run's thread to be deleted", async || {
        thread_ids(&server).await.is_empty()
    })
    .await;

    // A refused request leaves nothing behind either.
    let (status, _) = server
        .post_json(
            "/api/runs/wait",
            json!({"assistant_id": "lead_agent", "input": {"messages": "x"}}),
        )
        .await;
    assert_eq!(status, 422);
    assert!(thread_ids(&server).await.is_empty());

    // keep: an ordinary thread afterwards, and its finished run can be deleted.
    let mut body = run_body("keep me", &["values"]);
    body["on_completion"] = json!("keep");
    let r = server
        .http
        .post(server.url("/api/runs"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let run: serde_json::Value = r.json().await.unwrap();
    let (thread, run_id) = (
        run["thread_id"].as_str().unwrap().to_string(),
        run["run_id"].as_str().unwrap().to_string(),
    );
    server
        .wait_run(&thread, &run_id, |r| r["status"] == "success")
        .await;
    assert_eq!(thread_ids(&server).await, std::slice::from_ref(&thread));
    let path = format!("/api/threads/{thread}/runs/{run_id}");
    let (status, _) = server.delete(&path).await;
    assert_eq!(status, 204);
    let (status, _) = server.get_json(&path).await;
    assert_eq!(status, 404);
    let (status, body) = server.delete(&path).await;
    assert_eq!(status, 404, "{body}");
    // The conversation itself stays.
    let (_, state) = server
        .get_json(&format!("/api/threads/{thread}/state"))
        .await;
    assert_eq!(state["values"]["messages"].as_array().unwrap().len(), 2);
}

const QUESTION_SCRIPT: &str = r#"
scenarios:
  - match: "export the report"
    turns:
      - tool_calls:
          - name: ask_clarification
            arguments: {question: "Which format should the export use?", clarification_type: approach_choice, options: [CSV, JSON]}
  - match: "JSON"
    turns:
      - content: "Exporting as JSON."
"#;

#[tokio::test]
async fn a_question_is_an_interrupt_that_command_resume_answers() {
    let env = Env::new();
    let model = mock_llm(QUESTION_SCRIPT).await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server.create_thread("q").await;
    let (status, values) = server
        .post_json(
            "/api/threads/q/runs/wait",
            run_body("export the report", &["values"]),
        )
        .await;
    assert_eq!(status, 200, "{values}");
    let interrupt = &values["__interrupt__"][0];
    assert_eq!(
        interrupt["value"]["question"],
        "Which format should the export use?"
    );
    assert_eq!(interrupt["value"]["options"], json!(["CSV", "JSON"]));
    let call_id = interrupt["id"].as_str().unwrap().to_string();
    let (_, state) = server.get_json("/api/threads/q/state").await;
    assert_eq!(state["next"], json!(["agent"]), "{state}");
    assert_eq!(state["tasks"][0]["interrupts"][0]["id"], call_id.as_str());
    let (_, thread) = server.get_json("/api/threads/q").await;
    assert_eq!(
        thread["status"], "interrupted",
        "a question waits: {thread}"
    );

    // What `command` may not be.
    for (body, why) in [
        (
            json!({"assistant_id": "lead_agent", "command": {"goto": "x"}}),
            "resume",
        ),
        (
            json!({"assistant_id": "lead_agent", "command": {"resume": "JSON"},
                   "input": {"messages": [{"role": "user", "content": "JSON"}]}}),
            "not both",
        ),
    ] {
        let (status, error) = server.post_json("/api/threads/q/runs/wait", body).await;
        assert_eq!(status, 422, "{error}");
        assert!(
            error["error"]["message"].as_str().unwrap().contains(why),
            "{error}"
        );
    }

    let (status, values) = server
        .post_json(
            "/api/threads/q/runs/wait",
            json!({"assistant_id": "lead_agent", "command": {"resume": "JSON"}}),
        )
        .await;
    assert_eq!(status, 200, "{values}");
    let messages = values["messages"].as_array().unwrap();
    assert_eq!(messages[messages.len() - 2]["content"], "JSON");
    assert_eq!(messages.last().unwrap()["content"], "Exporting as JSON.");
    assert!(values.get("__interrupt__").is_none(), "{values}");
    let (_, state) = server.get_json("/api/threads/q/state").await;
    assert_eq!(state["next"], json!([]));

    // Nothing is waiting any more.
    let (status, error) = server
        .post_json(
            "/api/threads/q/runs/wait",
            json!({"assistant_id": "lead_agent", "command": {"resume": "CSV"}}),
        )
        .await;
    assert_eq!(status, 422, "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no interrupt")
    );
}

#[tokio::test]
async fn tool_and_ai_messages_from_clients_join_the_thread_and_stale_placeholders_are_dropped() {
    let env = Env::new();
    let model = mock_llm(QUESTION_SCRIPT).await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server.create_thread("ui").await;
    let (_, asked) = server
        .post_json(
            "/api/threads/ui/runs/wait",
            run_body("export the report", &["values"]),
        )
        .await;
    let call = asked["__interrupt__"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let before = asked["messages"].as_array().unwrap().len();

    // What the Agent Chat UI sends: a placeholder result for the (answered) question call,
    // a note of its own, and the person's answer.
    let (status, values) = server
        .post_json(
            "/api/threads/ui/runs/wait",
            json!({"assistant_id": "lead_agent", "input": {"messages": [
                {"type": "tool", "tool_call_id": call, "id": "do-not-render-1", "name": "ask_clarification",
                 "content": "Successfully handled tool call."},
                {"type": "ai", "content": "(the person picked an option)"},
                {"type": "human", "content": [{"type": "text", "text": "JSON"}]},
            ]}}),
        )
        .await;
    assert_eq!(status, 200, "{values}");
    let messages = values["messages"].as_array().unwrap();
    assert_eq!(messages.len(), before + 3, "{values}");
    assert!(!messages.iter().any(|m| m["id"] == "do-not-render-1"));
    assert_eq!(messages[before]["type"], "ai");
    assert_eq!(messages[before]["content"], "(the person picked an option)");
    assert_eq!(messages.last().unwrap()["content"], "Exporting as JSON.");

    // A result for a call nobody made is refused, and nothing is stored.
    let (status, error) = server
        .post_json(
            "/api/threads/ui/runs/wait",
            json!({"assistant_id": "lead_agent", "input": {"messages": [
                {"type": "tool", "tool_call_id": "call-that-never-was", "content": "x"},
                {"type": "human", "content": "again"},
            ]}}),
        )
        .await;
    assert_eq!(status, 422, "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("call-that-never-was")
    );
    let (_, state) = server.get_json("/api/threads/ui/state").await;
    assert_eq!(
        state["values"]["messages"].as_array().unwrap().len(),
        before + 3
    );
}
