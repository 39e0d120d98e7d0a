//! Branching as the LangGraph clients use it: input checkpoints and checkpoint metadata, a
//! run from an older checkpoint (Edit), a run without input from a checkpoint (Regenerate),
//! reading one checkpoint, and `update_state`.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::common::{Server, error_code, mock_llm};

const SCRIPT: &str = "scenarios:
  - match: \"look\"
    turns:
      - tool_calls: [{name: ls, arguments: {path: /mnt/user-data}}]
      - content: \"looked\"
  - match: \"\"
    turns:
      - content: \"answer\"
";

fn body(text: Option<&str>, checkpoint: Option<&str>) -> Value {
    let mut body = json!({"assistant_id": "agent", "stream_mode": ["values"]});
    if let Some(text) = text {
        body["input"] = json!({"messages": [{"type": "human", "content": text}]});
    }
    if let Some(id) = checkpoint {
        // As the SDKs send it: the checkpoint object without its thread.
        body["checkpoint"] = json!({"checkpoint_id": id, "checkpoint_ns": ""});
    }
    body
}

async fn run(server: &Server, text: Option<&str>, checkpoint: Option<&str>) -> Value {
    let (status, values) = server
        .post_json("/api/threads/t/runs/wait", body(text, checkpoint))
        .await;
    assert_eq!(status, 200, "{values}");
    values
}

async fn history(server: &Server) -> Vec<Value> {
    let (status, states) = server
        .post_json("/api/threads/t/history", json!({"limit": 1000}))
        .await;
    assert_eq!(status, 200, "{states}");
    states.as_array().unwrap().clone()
}

fn texts(values: &Value) -> Vec<String> {
    values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{}:{}", m["type"].as_str().unwrap(), m["content"]))
        .collect()
}

fn id(state: &Value) -> &str {
    state["checkpoint"]["checkpoint_id"].as_str().unwrap()
}

fn parent(state: &Value) -> Option<&str> {
    state["parent_checkpoint"]["checkpoint_id"].as_str()
}

#[tokio::test]
async fn edit_and_regenerate_make_branches_of_the_checkpoint_tree() {
    let env = crate::common::Env::new();
    let model = mock_llm(SCRIPT).await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server.create_thread("t").await;
    run(&server, Some("hello"), None).await;
    run(&server, Some("look around"), None).await;

    let states = history(&server).await;
    // Newest first, ids in time order.
    let ids: Vec<&str> = states.iter().map(id).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(ids, sorted, "newest first and time-ordered ids");
    let oldest = states.last().unwrap();
    assert_eq!(oldest["metadata"]["source"], "input");
    assert_eq!(oldest["metadata"]["step"], -1);
    assert_eq!(
        oldest["metadata"]["writes"]["__start__"]["messages"][0]["content"],
        "hello"
    );
    assert_eq!(oldest["next"], json!(["__start__"]));
    assert!(oldest["parent_checkpoint"].is_null());
    assert_eq!(oldest["values"]["messages"], json!([]));
    // One line so far: each checkpoint continues the one before it, a step further.
    for pair in states.windows(2) {
        assert_eq!(parent(&pair[0]), Some(id(&pair[1])));
        assert_eq!(
            pair[0]["metadata"]["step"].as_i64().unwrap(),
            pair[1]["metadata"]["step"].as_i64().unwrap() + 1
        );
    }
    let sources: Vec<&str> = states
        .iter()
        .rev()
        .map(|s| s["metadata"]["source"].as_str().unwrap())
        .collect();
    // hello: input, applied, answer; look: input, applied, tool call, tool result, answer.
    assert_eq!(
        sources,
        [
            "input", "loop", "loop", "input", "loop", "loop", "loop", "loop"
        ]
    );
    let tool_call = &states[2];
    assert_eq!(tool_call["next"], json!(["tools"]), "{tool_call}");
    assert_eq!(tool_call["tasks"][0]["name"], "tools");
    assert!(tool_call["metadata"]["writes"]["agent"]["messages"][0]["tool_calls"].is_array());
    assert_eq!(states[1]["next"], json!(["agent"]));
    assert!(states[1]["metadata"]["writes"]["tools"]["messages"].is_array());
    assert_eq!(states[0]["next"], json!([]));
    // `agent` names the built-in assistant, recorded by its id.
    let (_, built_in) = server.get_json("/api/assistants/agent").await;
    assert_eq!(
        states[0]["metadata"]["assistant_id"],
        built_in["assistant_id"]
    );
    assert_eq!(states[0]["metadata"]["graph_id"], "agent");
    assert!(states[0]["metadata"]["run_id"].is_string());

    // Edit the second question: continue the input checkpoint of its turn.
    let second_input = &states[4];
    assert_eq!(second_input["metadata"]["source"], "input");
    let edited = run(&server, Some("goodbye"), Some(id(second_input))).await;
    assert_eq!(
        texts(&edited),
        [
            "human:\"hello\"",
            "ai:\"answer\"",
            "human:\"goodbye\"",
            "ai:\"answer\""
        ]
    );
    let (_, state) = server.get_json("/api/threads/t/state").await;
    assert_eq!(
        texts(&state["values"]),
        texts(&edited),
        "the newest branch is current"
    );

    // Regenerate the first answer: no input, from the checkpoint holding only its question.
    let asked = &states[6];
    assert_eq!(texts(&asked["values"]), ["human:\"hello\""]);
    let regenerated = run(&server, None, Some(id(asked))).await;
    assert_eq!(texts(&regenerated), ["human:\"hello\"", "ai:\"answer\""]);
    let first_answer = states[5]["values"]["messages"][1]["id"].clone();
    assert_ne!(
        regenerated["messages"][1]["id"], first_answer,
        "a new answer"
    );

    // The tree: the edited turn and the regenerated answer are second children.
    let states = history(&server).await;
    let mut children: HashMap<&str, Vec<&str>> = HashMap::new();
    for s in &states {
        children
            .entry(parent(s).unwrap_or("$"))
            .or_default()
            .push(id(s));
    }
    assert_eq!(
        children[id(second_input)].len(),
        2,
        "Edit forks its input checkpoint"
    );
    assert_eq!(
        children[id(asked)].len(),
        2,
        "Regenerate forks the question's checkpoint"
    );
    let forks = children.values().filter(|c| c.len() > 1).count();
    assert_eq!(forks, 2);

    // One checkpoint by id, in the path and as the SDK's object.
    let (status, at) = server
        .get_json(&format!("/api/threads/t/state/{}", id(asked)))
        .await;
    assert_eq!(status, 200);
    assert_eq!(at["checkpoint"], asked["checkpoint"]);
    assert_eq!(texts(&at["values"]), ["human:\"hello\""]);
    let (status, same) = server
        .post_json(
            "/api/threads/t/state/checkpoint",
            json!({"checkpoint": {"checkpoint_id": id(asked)}}),
        )
        .await;
    assert_eq!((status, &same), (200, &at));
}

#[tokio::test]
async fn unknown_checkpoints_and_unanswerable_regenerations_are_refused() {
    let env = crate::common::Env::new();
    let model = mock_llm(SCRIPT).await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server.create_thread("t").await;
    server.create_thread("other").await;
    run(&server, Some("hello"), None).await;
    let states = history(&server).await;
    let missing = "0196a0e0-0000-7000-8000-000000000000";
    for path in [
        format!("/api/threads/t/state/{missing}"),
        // Another thread's checkpoint is not this one's.
        format!("/api/threads/other/state/{}", id(&states[0])),
    ] {
        let (status, answer) = server.get_json(&path).await;
        assert_eq!(status, 404, "{path}: {answer}");
    }
    let (status, answer) = server
        .post_json("/api/threads/t/runs/wait", body(Some("x"), Some(missing)))
        .await;
    assert_eq!(status, 404, "{answer}");
    // The newest checkpoint has its answer already: there is nothing to regenerate.
    let (status, answer) = server
        .post_json("/api/threads/t/runs/wait", body(None, Some(id(&states[0]))))
        .await;
    assert_eq!(
        (status, error_code(&answer)),
        (422, "invalid_body"),
        "{answer}"
    );
    let (status, answer) = server
        .post_json("/api/threads/t/state/checkpoint", json!({"checkpoint": {}}))
        .await;
    assert_eq!(status, 422, "{answer}");
    assert_eq!(
        history(&server).await.len(),
        states.len(),
        "nothing was added"
    );
}

#[tokio::test]
async fn update_state_adds_a_checkpoint_and_forks() {
    let env = crate::common::Env::new();
    let model = mock_llm(SCRIPT).await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server.create_thread("t").await;
    run(&server, Some("hello"), None).await;
    let before = history(&server).await;
    let answer_id = before[0]["values"]["messages"][1]["id"]
        .as_str()
        .unwrap()
        .to_string();

    // Replace the answer by id, add a note and a title.
    let (status, updated) = server
        .post_json(
            "/api/threads/t/state",
            json!({"values": {
                "messages": [
                    {"type": "ai", "id": answer_id, "content": "corrected"},
                    {"type": "human", "id": "note", "content": "a note"},
                ],
                "title": "Edited",
            }, "as_node": "agent"}),
        )
        .await;
    assert_eq!(status, 200, "{updated}");
    let (_, state) = server.get_json("/api/threads/t/state").await;
    assert_eq!(state["checkpoint"], updated["checkpoint"]);
    assert_eq!(
        texts(&state["values"]),
        ["human:\"hello\"", "ai:\"corrected\"", "human:\"a note\""]
    );
    assert_eq!(state["values"]["title"], "Edited");
    assert_eq!(state["metadata"]["source"], "update");
    assert_eq!(state["metadata"]["writes"]["agent"]["title"], "Edited");
    assert_eq!(parent(&state), Some(id(&before[0])));
    assert_eq!(
        state["next"],
        json!(["agent"]),
        "a new question waits for the agent"
    );

    // A fork of the first answer's checkpoint: the same values on a new branch.
    let (status, forked) = server
        .post_json(
            "/api/threads/t/state",
            json!({"values": null, "checkpoint_id": id(&before[0])}),
        )
        .await;
    assert_eq!(status, 200, "{forked}");
    let (_, state) = server.get_json("/api/threads/t/state").await;
    assert_eq!(state["metadata"]["source"], "fork");
    assert_eq!(parent(&state), Some(id(&before[0])));
    assert_eq!(
        texts(&state["values"]),
        ["human:\"hello\"", "ai:\"answer\""]
    );

    for bad in [
        json!({"values": {"artifacts": []}}),
        json!({"values": {"title": 1}}),
        json!({"values": {"messages": [{"type": "system", "content": "x"}]}}),
        json!({"values": [1]}),
    ] {
        let (status, answer) = server.post_json("/api/threads/t/state", bad.clone()).await;
        assert_eq!(status, 422, "{bad}: {answer}");
    }
    let (status, _) = server
        .post_json(
            "/api/threads/t/state",
            json!({"values": null, "checkpoint_id": "0196a0e0-0000-7000-8000-000000000000"}),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = server
        .post_json("/api/threads/missing/state", json!({"values": null}))
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn plan_mode_keeps_a_checklist_in_the_state() {
    let env = crate::common::Env::new();
    let model = mock_llm(
        r#"scenarios:
  - match: "plan it"
    turns:
      - tool_calls: [{name: write_todos, arguments: {todos: [{content: "Read the data", status: in_progress}, {content: "Write the report", status: pending}]}}]
      - tool_calls: [{name: write_todos, arguments: {todos: [{content: "Read the data", status: completed}, {content: "Write the report", status: in_progress}]}}]
      - tool_calls: [{name: write_todos, arguments: {todos: [{content: "x", status: started}]}}]
      - content: "planned"
  - match: ""
    turns:
      - content: "ok"
"#,
    )
    .await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server.create_thread("t").await;
    let (status, values) = server
        .post_json(
            "/api/threads/t/runs/wait",
            json!({"assistant_id": "agent", "context": {"plan_mode": true},
                "input": {"messages": [{"type": "human", "content": "plan it"}]}}),
        )
        .await;
    assert_eq!(status, 200, "{values}");
    assert_eq!(
        values["todos"],
        json!([{"content": "Read the data", "status": "completed"},
               {"content": "Write the report", "status": "in_progress"}]),
        "the last valid plan"
    );
    let tools: Vec<&Value> = values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["type"] == "tool")
        .collect();
    assert_eq!(
        tools[2]["status"], "error",
        "a bad status is refused: {}",
        tools[2]
    );
    let states = history(&server).await;
    let plans: Vec<&Value> = states.iter().map(|s| &s["values"]["todos"]).collect();
    assert!(
        plans.iter().any(|p| p[0]["status"] == "in_progress"),
        "each change is a checkpoint"
    );
    let requests = crate::common::model_requests(&model).await;
    let system = requests[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("write_todos"), "plan mode guides the model");

    // Without plan mode the tool is not offered.
    run(&server, Some("hello"), None).await;
    let requests = crate::common::model_requests(&model).await;
    let last = requests.as_array().unwrap().last().unwrap();
    assert!(!last["tools"].to_string().contains("write_todos"));
}
