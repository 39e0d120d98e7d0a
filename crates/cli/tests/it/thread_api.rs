//! The rest of LangGraph's thread and run API: copying threads, `rollback`, the `events`
//! stream mode, `interrupts` on threads, `GET …/history`, count and prune.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::common::{Env, Server, error_code, mock_llm, read_sse, run_body, wait_for};

/// A slow answer for "slow", a tool call for "tool", a question for "ask", else a quick one.
const SCRIPT: &str = r#"
scenarios:
  - system: "You write titles"
    turns: [{content: "Title"}]
  - match: "slow"
    turns:
      - content: "one two three four five six seven eight nine ten eleven twelve thirteen"
        chunk_size: 3
        chunk_delay_ms: 200
  - match: "tool"
    turns:
      - tool_calls:
          - {name: bash, arguments: {command: "echo hi"}}
      - content: "done with the tool"
  - match: "ask"
    turns:
      - tool_calls:
          - {name: ask_clarification, arguments: {question: "CSV or JSON?", clarification_type: approach_choice, options: [CSV, JSON]}}
  - match: ""
    turns:
      - content: "quick answer"
"#;

async fn server(env: &Env) -> Server {
    env.start_agent(&mock_llm(SCRIPT).await, &[])
}

fn texts(values: &Value) -> Vec<String> {
    values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

async fn history(server: &Server, thread: &str) -> Vec<Value> {
    let (status, states) = server
        .post_json(
            &format!("/api/threads/{thread}/history"),
            json!({"limit": 1000}),
        )
        .await;
    assert_eq!(status, 200, "{states}");
    states.as_array().unwrap().clone()
}

/// Starts a background run; answers its id.
async fn start(server: &Server, thread: &str, text: &str, extra: Value) -> String {
    let mut body = run_body(text, &["values"]);
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let (status, run) = server
        .post_json(&format!("/api/threads/{thread}/runs"), body)
        .await;
    assert_eq!(status, 200, "{run}");
    run["run_id"].as_str().unwrap().to_string()
}

/// Waits until the thread's state holds a message with `text` (the run's input is saved).
async fn wait_for_message(server: &Server, thread: &str, text: &str) {
    wait_for("the run's input to be saved", async || {
        let (_, state) = server
            .get_json(&format!("/api/threads/{thread}/state"))
            .await;
        texts(&state["values"]).iter().any(|t| t == text)
    })
    .await;
}

#[tokio::test]
async fn a_copy_has_the_same_values_metadata_history_tree_and_files_under_a_new_id() {
    let env = Env::new();
    let server = server(&env).await;
    server.run_wait("src", "lead_agent", "hello").await;
    server.run_wait("src", "lead_agent", "again").await;
    // A branch: the first answer regenerated from an earlier checkpoint.
    let states = history(&server, "src").await;
    let fork = states.last().unwrap()["checkpoint"]["checkpoint_id"].clone();
    let (status, _) = server
        .post_json(
            "/api/threads/src/state",
            json!({"values": {"title": "Forked"}, "checkpoint_id": fork}),
        )
        .await;
    assert_eq!(status, 200);
    server
        .patch_json("/api/threads/src", json!({"metadata": {"project": "x"}}))
        .await;
    let outputs = env.user_data("src").join("outputs");
    std::fs::create_dir_all(outputs.join("nested")).unwrap();
    std::fs::write(outputs.join("nested/report.md"), "# report").unwrap();
    std::fs::create_dir_all(env.user_data("src").join("uploads")).unwrap();
    std::fs::write(env.user_data("src").join("uploads/data.csv"), "a,b").unwrap();

    let (status, copy) = server.post("/api/threads/src/copy").await;
    assert_eq!(status, 200, "{copy}");
    let id = copy["thread_id"].as_str().unwrap().to_string();
    assert_ne!(id, "src");
    let (_, source) = server.get_json("/api/threads/src").await;
    assert_eq!(copy["values"], source["values"]);
    assert_eq!(copy["metadata"], source["metadata"]);
    assert_eq!(copy["interrupts"], json!({}));
    let (_, listed) = server.get_json(&format!("/api/threads/{id}")).await;
    assert_eq!(listed["values"], source["values"]);

    let original = history(&server, "src").await;
    let copied = history(&server, &id).await;
    assert_eq!(original.len(), copied.len());
    let mut ids: HashMap<String, String> = HashMap::new();
    for (a, b) in original.iter().zip(&copied) {
        let a_id = a["checkpoint"]["checkpoint_id"].as_str().unwrap();
        let b_id = b["checkpoint"]["checkpoint_id"].as_str().unwrap();
        assert_ne!(a_id, b_id, "checkpoints get ids of their own");
        ids.insert(a_id.to_string(), b_id.to_string());
        assert_eq!(a["values"], b["values"]);
        assert_eq!(a["next"], b["next"]);
        assert_eq!(a["created_at"], b["created_at"]);
        assert_eq!(b["checkpoint"]["thread_id"], id.as_str());
    }
    for (a, b) in original.iter().zip(&copied) {
        let parent = a["parent_checkpoint"]["checkpoint_id"].as_str();
        let copied_parent = b["parent_checkpoint"]["checkpoint_id"].as_str();
        assert_eq!(
            parent.map(|p| ids[p].as_str()),
            copied_parent,
            "the tree is the same"
        );
        if let Some(thread) = a["metadata"].get("thread_id") {
            assert_eq!(thread, "src");
            assert_eq!(b["metadata"]["thread_id"], id.as_str());
        }
    }
    let copied_files = env.user_data(&id);
    assert_eq!(
        std::fs::read_to_string(copied_files.join("outputs/nested/report.md")).unwrap(),
        "# report"
    );
    assert_eq!(
        std::fs::read_to_string(copied_files.join("uploads/data.csv")).unwrap(),
        "a,b"
    );
    // The copy is a thread of its own: a run on it leaves the source as it was.
    let values = server.run_wait(&id, "lead_agent", "on the copy").await;
    assert!(texts(&values).contains(&"on the copy".to_string()));
    let (_, source_after) = server.get_json("/api/threads/src").await;
    assert_eq!(source_after["values"], source["values"]);
    // Someone else's or an unknown thread is not found.
    let (status, body) = server.post("/api/threads/nope/copy").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(error_code(&body), "not_found");
    server.stop();
}

#[tokio::test]
async fn copying_a_thread_with_a_run_in_progress_copies_the_state_before_that_run() {
    let env = Env::new();
    let server = server(&env).await;
    let before = server.run_wait("t", "lead_agent", "hello").await;
    let run = start(&server, "t", "slow please", json!({})).await;
    wait_for_message(&server, "t", "slow please").await;
    let (status, copy) = server.post("/api/threads/t/copy").await;
    assert_eq!(status, 200, "{copy}");
    assert_eq!(copy["values"]["messages"], before["messages"]);
    assert_eq!(copy["status"], "idle");
    let id = copy["thread_id"].as_str().unwrap();
    for state in history(&server, id).await {
        assert_ne!(state["metadata"]["run_id"], run.as_str(), "{state}");
    }
    server
        .wait_run("t", &run, |r| r["status"] == "success")
        .await;
    let (_, copy_now) = server.get_json(&format!("/api/threads/{id}")).await;
    assert_eq!(copy_now["values"]["messages"], before["messages"]);
    server.stop();
}

#[tokio::test]
async fn rollback_cancels_the_running_run_and_deletes_it_with_its_input_and_checkpoints() {
    let env = Env::new();
    let server = server(&env).await;
    let before = server.run_wait("t", "lead_agent", "hello").await;
    let checkpoints_before = history(&server, "t").await.len();
    let slow = start(&server, "t", "slow please", json!({})).await;
    wait_for_message(&server, "t", "slow please").await;
    let next = start(
        &server,
        "t",
        "after the rollback",
        json!({"multitask_strategy": "rollback"}),
    )
    .await;
    server
        .wait_run("t", &next, |r| r["status"] == "success")
        .await;

    let (status, body) = server
        .get_json(&format!("/api/threads/t/runs/{slow}"))
        .await;
    assert_eq!(status, 404, "the rolled-back run is gone: {body}");
    let (_, runs) = server.get_json("/api/threads/t/runs").await;
    assert!(
        runs.as_array()
            .unwrap()
            .iter()
            .all(|r| r["run_id"] != slow.as_str()),
        "{runs}"
    );
    let (_, state) = server.get_json("/api/threads/t/state").await;
    let messages = texts(&state["values"]);
    assert!(
        !messages
            .iter()
            .any(|t| t.contains("slow") || t.starts_with("one two")),
        "{messages:?}"
    );
    let before_messages = texts(&before);
    assert_eq!(messages[..before_messages.len()], before_messages[..]);
    assert_eq!(
        messages[before_messages.len()..],
        ["after the rollback".to_string(), "quick answer".to_string()]
    );
    let states = history(&server, "t").await;
    assert!(
        states
            .iter()
            .all(|s| s["metadata"]["run_id"] != slow.as_str())
    );
    assert!(states.len() > checkpoints_before);
    // The new run continued the checkpoint the thread had before the rolled-back run.
    let newest_before: Vec<&Value> = states
        .iter()
        .filter(|s| s["metadata"]["run_id"] == next.as_str())
        .collect();
    let first_of_next = newest_before.last().unwrap();
    assert_eq!(
        first_of_next["parent_checkpoint"]["checkpoint_id"],
        states[states.len() - checkpoints_before]["checkpoint"]["checkpoint_id"]
    );
    let (_, events) = server
        .get_json(&format!("/api/threads/t/runs/{slow}/join"))
        .await;
    assert_eq!(error_code(&events), "not_found");
    server.stop();
}

#[tokio::test]
async fn stream_mode_events_sends_langchain_events_for_graph_nodes_model_and_tools() {
    let env = Env::new();
    let server = server(&env).await;
    server.create_thread("t").await;
    let response = server
        .stream_run("t", run_body("use a tool", &["events"]))
        .await;
    assert_eq!(response.status(), 200);
    let events = read_sse(response, |e| e.event == "end").await;
    assert_eq!(events[0].event, "metadata");
    let data: Vec<&Value> = events
        .iter()
        .filter(|e| e.event == "events")
        .map(|e| &e.data)
        .collect();
    assert!(
        events
            .iter()
            .all(|e| ["metadata", "events", "end"].contains(&e.event.as_str())),
        "only events were asked for"
    );
    let kinds: Vec<(&str, &str)> = data
        .iter()
        .map(|d| (d["event"].as_str().unwrap(), d["name"].as_str().unwrap()))
        .collect();
    assert_eq!(kinds[0], ("on_chain_start", "LangGraph"));
    assert_eq!(*kinds.last().unwrap(), ("on_chain_end", "LangGraph"));
    let graph = data[0]["run_id"].as_str().unwrap();
    assert_eq!(data[0]["parent_ids"], json!([]));
    assert_eq!(
        data[0]["data"]["input"]["messages"][0]["content"],
        "use a tool"
    );
    for d in &data {
        for key in [
            "event",
            "name",
            "run_id",
            "parent_ids",
            "tags",
            "metadata",
            "data",
        ] {
            assert!(d.get(key).is_some(), "{key} in {d}");
        }
    }
    let position = |kind: &str, name: &str| {
        kinds
            .iter()
            .position(|k| *k == (kind, name))
            .unwrap_or_else(|| panic!("no {kind} {name} in {kinds:?}"))
    };
    let agent = position("on_chain_start", "agent");
    let model_start = kinds
        .iter()
        .position(|k| k.0 == "on_chat_model_start")
        .unwrap();
    let stream = kinds
        .iter()
        .position(|k| k.0 == "on_chat_model_stream")
        .unwrap();
    let model_end = kinds
        .iter()
        .position(|k| k.0 == "on_chat_model_end")
        .unwrap();
    let tools = position("on_chain_start", "tools");
    let tool_start = position("on_tool_start", "bash");
    let tool_end = position("on_tool_end", "bash");
    assert!(agent < model_start && model_start < stream && stream < model_end);
    assert!(model_end < position("on_chain_end", "agent"));
    assert!(position("on_chain_end", "agent") < tools);
    assert!(tools < tool_start && tool_start < tool_end);
    assert!(tool_end < position("on_chain_end", "tools"));
    assert_eq!(data[stream]["data"]["chunk"]["type"], "AIMessageChunk");
    assert_eq!(data[agent]["parent_ids"], json!([graph]));
    assert_eq!(data[agent]["metadata"]["langgraph_node"], "agent");
    assert_eq!(
        data[model_start]["parent_ids"],
        json!([graph, data[agent]["run_id"]])
    );
    assert_eq!(
        data[tool_start]["data"]["input"],
        json!({"command": "echo hi"})
    );
    assert_eq!(data[tool_end]["data"]["output"]["type"], "tool");
    assert_eq!(
        data[tool_end]["run_id"], data[tool_start]["run_id"],
        "a tool call's start and end share a run id"
    );
    let model_ends: Vec<&&Value> = data
        .iter()
        .filter(|d| d["event"] == "on_chat_model_end")
        .collect();
    assert_eq!(
        model_ends.last().unwrap()["data"]["output"]["content"],
        "done with the tool"
    );
    let end = data.last().unwrap();
    assert!(
        texts(&end["data"]["output"]).contains(&"done with the tool".to_string()),
        "{end}"
    );
    // Joining the finished run replays them from the database.
    let run = events[0].data["run_id"].as_str().unwrap();
    let replay = server.replay("t", run, 0).await;
    assert_eq!(
        replay.iter().filter(|e| e.event == "events").count(),
        data.len()
    );
    server.stop();
}

#[tokio::test]
async fn unsupported_stream_modes_are_refused_with_the_supported_ones_listed() {
    let env = Env::new();
    let server = server(&env).await;
    server.create_thread("t").await;
    for path in [
        "/api/threads/t/runs",
        "/api/threads/t/runs/stream",
        "/api/threads/t/runs/wait",
        "/api/runs",
        "/api/runs/stream",
        "/api/runs/wait",
    ] {
        for modes in [json!("debug"), json!(["values", "tasks"]), json!([3])] {
            let mut body = run_body("hi", &[]);
            body["stream_mode"] = modes.clone();
            let (status, reply) = server.post_json(path, body).await;
            assert_eq!(status, 422, "{path} {modes}: {reply}");
            assert_eq!(error_code(&reply), "invalid_stream_mode", "{reply}");
            let message = reply["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("values, messages-tuple, messages, updates, custom, events"),
                "{message}"
            );
            assert!(!message.contains("untagged"), "{message}");
        }
    }
    let values = server.run_wait("t", "lead_agent", "hi").await;
    assert!(!texts(&values).is_empty());
    let (_, runs) = server.get_json("/api/threads/t/runs").await;
    let run = runs[0]["run_id"].as_str().unwrap();
    let (status, reply) = server
        .get_json(&format!(
            "/api/threads/t/runs/{run}/stream?stream_mode=checkpoints"
        ))
        .await;
    assert_eq!(status, 422, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("supported modes: values"),
        "{reply}"
    );
    server.stop();
}

#[tokio::test]
async fn a_thread_waiting_on_a_question_lists_its_interrupts_by_task_id() {
    let env = Env::new();
    let server = server(&env).await;
    let (_, created) = server
        .post_json("/api/threads", json!({"thread_id": "t"}))
        .await;
    assert_eq!(created["interrupts"], json!({}));
    let values = server.run_wait("t", "lead_agent", "ask me").await;
    let interrupt = values["__interrupt__"][0].clone();
    let (_, state) = server.get_json("/api/threads/t/state").await;
    let task = state["tasks"][0]["id"].as_str().unwrap();
    let (_, thread) = server.get_json("/api/threads/t").await;
    assert_eq!(thread["status"], "interrupted");
    assert_eq!(thread["interrupts"], json!({ task: [interrupt] }));
    assert_eq!(thread["interrupts"][task], state["tasks"][0]["interrupts"]);
    let (_, found) = server
        .post_json("/api/threads/search", json!({"status": "interrupted"}))
        .await;
    assert_eq!(found[0]["interrupts"], thread["interrupts"]);
    let (_, patched) = server
        .patch_json("/api/threads/t", json!({"metadata": {"a": 1}}))
        .await;
    assert_eq!(patched["interrupts"], thread["interrupts"]);
    // Answered, nothing waits any more.
    server.run_wait("t", "lead_agent", "CSV").await;
    let (_, thread) = server.get_json("/api/threads/t").await;
    assert_eq!(thread["interrupts"], json!({}));
    server.stop();
}

#[tokio::test]
async fn history_by_query_count_and_prune_work_as_langgraph_defines_them() {
    let env = Env::new();
    let server = server(&env).await;
    server.run_wait("a", "lead_agent", "one").await;
    server.run_wait("a", "lead_agent", "two").await;
    server.run_wait("b", "lead_agent", "three").await;
    server
        .patch_json("/api/threads/a", json!({"metadata": {"team": "red"}}))
        .await;

    let all = history(&server, "a").await;
    let (status, page) = server.get_json("/api/threads/a/history?limit=2").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page.as_array().unwrap()[..], all[..2]);
    let before = all[1]["checkpoint"]["checkpoint_id"].as_str().unwrap();
    let (_, rest) = server
        .get_json(&format!("/api/threads/a/history?before={before}&limit=100"))
        .await;
    assert_eq!(rest.as_array().unwrap()[..], all[2..]);
    let (status, _) = server.get_json("/api/threads/a/history?limit=x").await;
    assert_eq!(status, 400);
    // `subgraphs` is a boolean as the SDKs send it (`true`/`false`); anything else is refused.
    let (status, _) = server
        .get_json("/api/threads/a/state?subgraphs=false")
        .await;
    assert_eq!(status, 200);
    for bad in ["AAA", ""] {
        let (status, err) = server
            .get_json(&format!("/api/threads/a/state?subgraphs={bad}"))
            .await;
        assert_eq!(status, 422, "{bad:?}: {err}");
        assert_eq!(err["error"]["code"], "invalid_query", "{err}");
    }

    for (filter, want) in [
        (json!({}), 2),
        (json!({"metadata": {"team": "red"}}), 1),
        (json!({"metadata": {"team": "blue"}}), 0),
        (json!({"status": "idle"}), 2),
        (json!({"values": {"title": "Title"}}), 2),
        (json!({"values": {"title": "Other"}}), 0),
    ] {
        let (status, count) = server.post_json("/api/threads/count", filter.clone()).await;
        assert_eq!(status, 200, "{count}");
        assert_eq!(count, json!(want), "{filter}");
    }
    let (_, found) = server
        .post_json(
            "/api/threads/search",
            json!({"values": {"title": "Title"}, "metadata": {"team": "red"}}),
        )
        .await;
    assert_eq!(found.as_array().unwrap().len(), 1);

    let (status, pruned) = server
        .post_json(
            "/api/threads/prune",
            json!({"thread_ids": ["a", "nope"], "strategy": "keep_latest"}),
        )
        .await;
    assert_eq!(status, 200, "{pruned}");
    assert_eq!(pruned, json!({"pruned_count": 1}));
    let kept = history(&server, "a").await;
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0]["values"], all[0]["values"]);
    assert_eq!(kept[0]["parent_checkpoint"], Value::Null);
    // The pruned thread goes on.
    let values = server.run_wait("a", "lead_agent", "four").await;
    assert_eq!(texts(&values)[..4], texts(&all[0]["values"])[..4]);

    let (_, pruned) = server
        .post_json("/api/threads/prune", json!({"thread_ids": ["b"]}))
        .await;
    assert_eq!(pruned, json!({"pruned_count": 1}));
    let (status, _) = server.get_json("/api/threads/b").await;
    assert_eq!(status, 404);
    let (status, reply) = server
        .post_json(
            "/api/threads/prune",
            json!({"thread_ids": ["a"], "strategy": "sometimes"}),
        )
        .await;
    assert_eq!(status, 422, "{reply}");
    server.stop();
}

#[tokio::test]
async fn rollback_on_one_replica_deletes_a_run_of_the_other_and_copy_count_prune_work_on_postgres()
{
    let Some(db) = crate::common::postgres_database().await else {
        return;
    };
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let replica = |name: &str| {
        env.start_agent(
            &model,
            &[
                ("ANTLER_DATABASE_URL", db.as_str()),
                ("ANTLER_SANDBOX_INSTANCE_ID", name),
            ],
        )
    };
    let a = replica("a");
    let b = replica("b");
    let before = a.run_wait("t", "lead_agent", "hello").await;
    let slow = start(&a, "t", "slow please", json!({})).await;
    wait_for_message(&b, "t", "slow please").await;
    let next = start(
        &b,
        "t",
        "after the rollback",
        json!({"multitask_strategy": "rollback"}),
    )
    .await;
    b.wait_run("t", &next, |r| r["status"] == "success").await;
    let (status, _) = a.get_json(&format!("/api/threads/t/runs/{slow}")).await;
    assert_eq!(status, 404);
    let (_, state) = a.get_json("/api/threads/t/state").await;
    let mut want = texts(&before);
    want.extend(["after the rollback".to_string(), "quick answer".to_string()]);
    assert_eq!(texts(&state["values"]), want);
    assert!(
        history(&a, "t")
            .await
            .iter()
            .all(|s| s["metadata"]["run_id"] != slow.as_str())
    );

    let (status, copy) = b.post("/api/threads/t/copy").await;
    assert_eq!(status, 200, "{copy}");
    let id = copy["thread_id"].as_str().unwrap();
    assert_eq!(copy["values"], state["values"]);
    let original = history(&a, "t").await;
    let copied = history(&a, id).await;
    assert_eq!(original.len(), copied.len());
    for (x, y) in original.iter().zip(&copied) {
        assert_eq!(x["values"], y["values"]);
    }
    let (_, count) = a
        .post_json("/api/threads/count", json!({"values": {"title": "Title"}}))
        .await;
    assert_eq!(count, json!(2));
    let (_, pruned) = a
        .post_json(
            "/api/threads/prune",
            json!({"thread_ids": [id], "strategy": "keep_latest"}),
        )
        .await;
    assert_eq!(pruned, json!({"pruned_count": 1}));
    assert_eq!(history(&b, id).await.len(), 1);
    a.stop();
    b.stop();
}
