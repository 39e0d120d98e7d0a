//! Subagents through the `task` tool, with the scripted model telling the lead agent from
//! its subagents by their system prompt: parallel tasks streaming into the parent's stream, a
//! fourth waiting for a slot, failures and timeouts reported to the lead, cancellation
//! reaching the subagents' commands, and join/replay.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use crate::common::{Env, Server, Sleeper, Sse, mock_llm, model_requests, read_sse, wait_for};

/// The lead asks for four tasks; each subagent streams its findings in small slow chunks so
/// the three running at once interleave.
fn parallel_script() -> String {
    // The sleeping subagents' command is not looked for by these tests.
    parallel_script_sleeping(&Sleeper::new(47))
}

/// [`parallel_script`] whose subagents sent to sleep (in the sandbox, or in the container)
/// run `sleeper`'s command.
fn parallel_script_sleeping(sleeper: &Sleeper) -> String {
    let mut s = r#"scenarios:
  - system: "<subagent"
    match: "Fail please"
    turns:
      - error: {status: 400, body: '{"error": {"message": "scripted refusal", "type": "invalid_request_error"}}'}
  - system: "<subagent"
    match: "Take forever"
    turns:
      - content: "a very slow answer that never ends in time, word by word by word by word"
        chunk_size: 2
        chunk_delay_ms: 400
  - system: "<subagent"
    match: "Sleep in the sandbox"
    turns:
      - tool_calls: [{name: bash, arguments: {command: "SLEEPER"}}]
      - content: "slept"
  - system: "<subagent"
    match: "Doze in the container"
    turns:
      - tool_calls: [{name: bash, arguments: {command: "SLEEPER"}}]
      - content: "dozed"
"#
    .replace("SLEEPER", &sleeper.command);
    for i in 1..=4 {
        s.push_str(&format!(
            "  - system: \"<subagent\"\n    match: \"Research topic {i}\"\n    turns:\n      - content: \"Findings about topic {i}: one two three four five six seven eight nine ten\"\n        chunk_size: 3\n        chunk_delay_ms: 15\n"
        ));
    }
    s.push_str(
        r#"  - match: "four topics"
    turns:
      - tool_calls:
          - {name: task, arguments: {description: "Topic 1", prompt: "Research topic 1", subagent_type: general-purpose}}
          - {name: task, arguments: {description: "Topic 2", prompt: "Research topic 2"}}
          - {name: task, arguments: {description: "Topic 3", prompt: "Research topic 3", subagent_type: bash}}
          - {name: task, arguments: {description: "Topic 4", prompt: "Research topic 4"}}
      - content: "All four done"
  - match: "troubles"
    turns:
      - tool_calls:
          - {name: task, arguments: {description: "Failing", prompt: "Fail please"}}
          - {name: task, arguments: {description: "Slow", prompt: "Take forever"}}
          - {name: task, arguments: {description: "Nope", prompt: "x", subagent_type: wizard}}
      - content: "reported"
  - system: "CRITIC-RULES"
    turns:
      - content: "Too long by half."
  - match: "critique please"
    turns:
      - tool_calls:
          - {name: task, arguments: {description: "Critique", prompt: "Critique the draft", subagent_type: critic}}
      - content: "The critic says: too long."
  - match: "drowsy"
    turns:
      - tool_calls:
          - {name: task, arguments: {description: "Dozer", prompt: "Doze in the container", subagent_type: bash}}
      - content: "never"
  - match: "sleepy"
    turns:
      - tool_calls:
          - {name: task, arguments: {description: "Sleeper", prompt: "Sleep in the sandbox", subagent_type: bash}}
      - content: "never"
  - match: ""
    turns:
      - content: "ok"
"#,
    );
    s
}

fn body(text: &str) -> Value {
    json!({"assistant_id": "agent", "if_not_exists": "create",
        "input": {"messages": [{"role": "user", "content": text}]},
        "stream_mode": ["values", "messages-tuple", "custom"]})
}

/// The `custom` payloads of a stream, in order.
fn custom(events: &[Sse]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e.event == "custom")
        .map(|e| e.data.clone())
        .collect()
}

fn of_type<'a>(payloads: &'a [Value], kind: &str) -> Vec<&'a Value> {
    payloads.iter().filter(|p| p["type"] == kind).collect()
}

fn position(payloads: &[Value], kind: &str, task: &str) -> usize {
    payloads
        .iter()
        .position(|p| p["type"] == kind && p["task_id"] == task)
        .unwrap_or_else(|| panic!("no {kind} for {task}"))
}

fn tool_messages(values: &Value) -> Vec<Value> {
    values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["type"] == "tool")
        .cloned()
        .collect()
}

async fn last_values(server: &Server, thread: &str) -> Value {
    server
        .get_json(&format!("/api/threads/{thread}/state"))
        .await
        .1["values"]
        .clone()
}

#[tokio::test]
async fn parallel_subagents_stream_into_the_parent_and_a_fourth_waits_for_a_slot() {
    let env = Env::new();
    let model = mock_llm(&parallel_script()).await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    let response = server.stream_run("t", body("research four topics")).await;
    let events = read_sse(response, |_| false).await;
    let run_id = events[0].data["run_id"].as_str().unwrap().to_string();
    let payloads = custom(&events);

    let started = of_type(&payloads, "task_started");
    assert_eq!(started.len(), 4, "{payloads:?}");
    let ids: Vec<String> = started
        .iter()
        .map(|p| p["task_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 4);
    // Three at once: the fourth call waited, and started only after one had finished.
    let queued = of_type(&payloads, "task_queued");
    assert_eq!(queued.len(), 1, "{queued:?}");
    let fourth = queued[0]["task_id"].as_str().unwrap();
    assert_eq!(queued[0]["description"], "Topic 4");
    let first_done = payloads
        .iter()
        .position(|p| p["type"] == "task_completed")
        .unwrap();
    assert!(position(&payloads, "task_started", fourth) > first_done);
    // The running three streamed interleaved, each event tagged with its task.
    let before_first_done: HashSet<&str> = payloads[..first_done]
        .iter()
        .filter(|p| p["type"] == "task_event")
        .filter_map(|p| p["task_id"].as_str())
        .collect();
    assert_eq!(before_first_done.len(), 3, "{before_first_done:?}");
    let mut streamed: HashMap<&str, String> = HashMap::new();
    for p in of_type(&payloads, "task_event") {
        assert_eq!(p["event"], "messages", "{p}");
        if p["data"][0]["type"] == "AIMessageChunk" {
            let text = p["data"][0]["content"].as_str().unwrap_or_default();
            streamed
                .entry(p["task_id"].as_str().unwrap())
                .or_default()
                .push_str(text);
        }
    }
    for (i, id) in ids.iter().enumerate() {
        let n = started[i]["description"]
            .as_str()
            .unwrap()
            .trim_start_matches("Topic ")
            .to_string();
        let expected = format!("Findings about topic {n}: one two three");
        assert!(streamed[id.as_str()].starts_with(&expected), "{streamed:?}");
        let done = &payloads[position(&payloads, "task_completed", id)];
        assert!(done["result"].as_str().unwrap().starts_with(&expected));
        assert_eq!(done["usage"]["model_calls"], 1, "{done}");
        assert!(done["duration_ms"].as_u64().is_some());
    }
    let third = started
        .iter()
        .find(|p| p["description"] == "Topic 3")
        .unwrap();
    assert_eq!(third["subagent_type"], "bash");

    // The lead read each result as the tool's, and said so.
    let values = last_values(&server, "t").await;
    let results = tool_messages(&values);
    assert_eq!(results.len(), 4);
    for r in &results {
        assert_eq!(r["status"], "success", "{r}");
        assert!(
            r["content"]
                .as_str()
                .unwrap()
                .contains("Findings about topic")
        );
    }
    assert_eq!(
        values["messages"].as_array().unwrap().last().unwrap()["content"],
        "All four done"
    );

    // Each subagent is a run of its own, linked to the parent; usage counts for the parent.
    let (_, runs) = server.get_json("/api/threads/t/runs?limit=20").await;
    let children: Vec<&Value> = runs
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["metadata"]["parent_run_id"] == run_id.as_str())
        .collect();
    assert_eq!(children.len(), 4, "{runs}");
    assert!(children.iter().all(|c| c["status"] == "success"));
    let (_, parent) = server
        .get_json(&format!("/api/threads/t/runs/{run_id}"))
        .await;
    assert_eq!(parent["usage"]["model_calls"], 6, "{parent}");
    // A subagent's own events can be joined after the fact.
    let child = children[0]["run_id"].as_str().unwrap();
    let replay = server
        .http
        .get(server.url(&format!("/api/threads/t/runs/{child}/stream")))
        .send()
        .await
        .unwrap();
    let child_events = read_sse(replay, |e| e.event == "end").await;
    assert!(
        child_events.iter().any(|e| e.event == "messages"),
        "{child_events:?}"
    );
    assert_eq!(child_events.last().unwrap().event, "end");

    // Joining the parent after it ended replays the same task events, in the same order.
    let replay = server
        .http
        .get(server.url(&format!("/api/threads/t/runs/{run_id}/stream")))
        .header("Last-Event-ID", "0")
        .send()
        .await
        .unwrap();
    let replayed = custom(&read_sse(replay, |e| e.event == "end").await);
    assert_eq!(replayed, payloads);
}

#[tokio::test]
async fn failing_timed_out_and_unknown_subagents_are_reported_to_the_lead() {
    let env = Env::new();
    let model = mock_llm(&parallel_script()).await;
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_AGENT_SUBAGENTS_TIMEOUT_SECS", "1"),
            ("ANTLER_MODEL_MAX_RETRIES", "0"),
        ],
    );
    let response = server.stream_run("f", body("report your troubles")).await;
    let payloads = custom(&read_sse(response, |_| false).await);
    let failed = of_type(&payloads, "task_failed");
    assert_eq!(failed.len(), 1, "{payloads:?}");
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap()
            .contains("scripted refusal"),
        "{}",
        failed[0]
    );
    let timed_out = of_type(&payloads, "task_timed_out");
    assert_eq!(timed_out.len(), 1, "{payloads:?}");

    let values = last_values(&server, "f").await;
    let results = tool_messages(&values);
    assert_eq!(results.len(), 3);
    assert!(
        results.iter().all(|r| r["status"] == "error"),
        "{results:?}"
    );
    let text: Vec<&str> = results
        .iter()
        .map(|r| r["content"].as_str().unwrap())
        .collect();
    assert!(
        text[0].contains("the subagent failed") && text[0].contains("scripted refusal"),
        "{text:?}"
    );
    assert!(text[1].contains("did not finish within 1s"), "{text:?}");
    assert!(text[2].contains("no subagent type 'wizard'"), "{text:?}");
    // The history keeps how each ended, for clients that did not see the events.
    assert_eq!(results[0]["artifact"]["task"]["status"], "failed");
    assert_eq!(results[1]["artifact"]["task"]["status"], "timed_out");
    assert_eq!(
        values["messages"].as_array().unwrap().last().unwrap()["content"],
        "reported"
    );
    let (_, runs) = server.get_json("/api/threads/f/runs?limit=20").await;
    let statuses: HashSet<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["metadata"]["parent_run_id"].is_null())
        .filter_map(|r| r["status"].as_str())
        .collect();
    assert_eq!(statuses, HashSet::from(["error", "timeout"]), "{runs}");
}

#[tokio::test]
async fn cancelling_the_lead_stops_its_subagents_and_their_commands() {
    let env = Env::new();
    let sleeper = Sleeper::new(47);
    let model = mock_llm(&parallel_script_sleeping(&sleeper)).await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server.create_thread("c").await;
    let mut run = body("be sleepy");
    run.as_object_mut().unwrap().remove("if_not_exists");
    let (status, started) = server.post_json("/api/threads/c/runs", run).await;
    assert_eq!(status, 200, "{started}");
    let run_id = started["run_id"].as_str().unwrap().to_string();
    wait_for("the subagent's command", async || sleeper.running()).await;
    let (status, cancelled) = server
        .post(&format!("/api/threads/c/runs/{run_id}/cancel?wait=true"))
        .await;
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(cancelled["status"], "interrupted");
    assert!(!sleeper.running(), "the subagent's command was killed");
    let (_, runs) = server.get_json("/api/threads/c/runs?limit=20").await;
    let child = runs
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metadata"]["parent_run_id"] == run_id.as_str())
        .cloned()
        .unwrap();
    assert_eq!(child["status"], "interrupted", "{child}");
    let replay = server
        .http
        .get(server.url(&format!("/api/threads/c/runs/{run_id}/stream")))
        .send()
        .await
        .unwrap();
    let payloads = custom(&read_sse(replay, |e| e.event == "end").await);
    assert_eq!(
        of_type(&payloads, "task_cancelled").len(),
        1,
        "{payloads:?}"
    );
    // A subagent's own run can be cancelled by its id: the lead reads that and goes on.
    let mut again = body("be sleepy");
    again.as_object_mut().unwrap().remove("if_not_exists");
    let (_, started) = server.post_json("/api/threads/c/runs", again).await;
    let lead = started["run_id"].as_str().unwrap().to_string();
    wait_for("the subagent's command again", async || sleeper.running()).await;
    let (_, runs) = server.get_json("/api/threads/c/runs?limit=20").await;
    let child = runs
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metadata"]["parent_run_id"] == lead.as_str())
        .cloned()
        .unwrap();
    let child_id = child["run_id"].as_str().unwrap();
    let (status, cancelled) = server
        .post(&format!("/api/threads/c/runs/{child_id}/cancel?wait=true"))
        .await;
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(cancelled["status"], "interrupted", "{cancelled}");
    assert!(!sleeper.running());
    let (_, joined) = server
        .get_json(&format!("/api/threads/c/runs/{lead}/join"))
        .await;
    let last = tool_messages(&joined).last().cloned().unwrap();
    assert_eq!(
        last["content"], "Error: the subagent was cancelled",
        "{last}"
    );
    assert_eq!(
        joined["messages"].as_array().unwrap().last().unwrap()["content"],
        "never"
    );
}

#[tokio::test]
async fn an_assistant_defines_its_own_subagent_types() {
    let env = Env::new();
    let model = mock_llm(&parallel_script()).await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    let critic = json!({"name": "critic", "description": "Reviews writing harshly",
        "system_prompt": "CRITIC-RULES: be harsh.", "tools": ["read_file"]});
    let (status, bad) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "context": {"subagent_types": [{"name": "", "description": "x"}]}}),
        )
        .await;
    assert_eq!(status, 422, "{bad}");
    let (status, created) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "Editor", "context": {"subagent_types": [critic]}}),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let editor = created["assistant_id"].as_str().unwrap();
    let (status, values) = server
        .post_json(
            "/api/threads/e/runs/wait",
            json!({"assistant_id": editor, "if_not_exists": "create",
                "input": {"messages": [{"role": "user", "content": "critique please"}]}}),
        )
        .await;
    assert_eq!(status, 200, "{values}");
    let results = tool_messages(&values);
    assert_eq!(results[0]["content"], "Too long by half.", "{results:?}");
    let lead = crate::common::model_request_for(&model, "critique please").await;
    let requests = model_requests(&model).await;
    let requests = requests.as_array().unwrap();
    let task = lead["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "task")
        .unwrap();
    assert!(
        task["function"]["description"]
            .as_str()
            .unwrap()
            .contains("critic: Reviews writing harshly"),
        "{task}"
    );
    let child = requests
        .iter()
        .find(|r| {
            r["messages"][0]["content"]
                .as_str()
                .unwrap_or_default()
                .contains("CRITIC-RULES")
        })
        .unwrap();
    let tools: Vec<&str> = child["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(tools, ["read_file"], "the critic has only its tools");
}

#[tokio::test]
async fn cancelling_the_lead_leaves_no_subagent_command_running_in_the_container() {
    if !crate::common::docker().await {
        return;
    }
    let env = Env::new();
    let sleeper = Sleeper::new(48);
    let model = mock_llm(&parallel_script_sleeping(&sleeper)).await;
    let vars = crate::sandbox::docker_env(&env, &format!("it-sub-{}", crate::sandbox::uuid_like()));
    let mut extra: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    extra.push(("ANTLER_AGENT_GENERATE_TITLES", "false"));
    let server = env.start_agent(&model, &extra);
    server.create_thread("d").await;
    let mut run = body("be drowsy");
    run.as_object_mut().unwrap().remove("if_not_exists");
    let (status, started) = server.post_json("/api/threads/d/runs", run).await;
    assert_eq!(status, 200, "{started}");
    let run_id = started["run_id"].as_str().unwrap().to_string();
    let in_container = || crate::sandbox::sandbox_exec(&env, &vars, "d", "ps -eo args").1;
    wait_for("the subagent's command in the container", async || {
        in_container().contains(&sleeper.name)
    })
    .await;
    let (status, cancelled) = server
        .post(&format!("/api/threads/d/runs/{run_id}/cancel?wait=true"))
        .await;
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(cancelled["status"], "interrupted");
    let ps = in_container();
    assert!(!ps.contains(&sleeper.name), "left running: {ps}");
}
