//! MCP servers' lifecycle and scale with tests/mcp/many_tools.py (the official Python SDK):
//! timeouts, progress, cancellation, a crash and its restart, list_changed, no process left
//! after SIGKILL, tool search over 200 tools, and a tool listed twice.

use serde_json::json;

use crate::common::{Env, mock_llm, model_requests, processes_matching, read_sse, wait_for};
use crate::mcp::{run, servers, start, status, tool_result};

const SCRIPT: &str = r#"scenarios:
  - match: "be slow"
    turns:
      - tool_calls: [{name: mcp__many__slow, arguments: {seconds: 30}}]
      - content: "finally"
  - match: "a little slow"
    turns:
      - tool_calls: [{name: mcp__many__slow, arguments: {seconds: 1}}]
      - content: "done"
  - match: "crash it"
    turns:
      - tool_calls: [{name: mcp__many__crash, arguments: {}}]
      - content: "crashed"
  - match: "convert money"
    turns:
      - tool_calls: [{name: tool_search, arguments: {query: "convert currency exchange"}}]
      - tool_calls: [{name: mcp__many__currency_convert, arguments: {amount: 5, from_currency: "EUR", to_currency: "USD"}}]
      - content: "converted"
  - match: ""
    turns:
      - content: "ok"
"#;

/// A copy of many_tools.py under a name only this test uses (to find its processes).
fn script_copy(env: &Env, tag: &str) -> String {
    let path = env.data_dir().join(format!("many_tools_{tag}.py"));
    std::fs::create_dir_all(env.data_dir()).unwrap();
    let source = format!(
        "{}/../../tests/mcp/many_tools.py",
        std::env::var("CARGO_MANIFEST_DIR").unwrap()
    );
    std::fs::copy(source, &path).unwrap();
    path.display().to_string()
}

fn config(python: &str, script: &str, args: &str, extra: &str) -> String {
    format!("many:\n  command: {python}\n  args: [{script}{args}]\n{extra}")
}

#[tokio::test]
async fn slow_calls_time_out_report_progress_and_stop_with_their_run() {
    let Some(s) = servers() else { return };
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let script = script_copy(&env, "slow");
    let server = start(
        &env,
        &model,
        &config(&s.python, &script, ", \"20\"", "  call_timeout_secs: 2\n"),
        &[],
    );
    // Over its call timeout: an error the model reads, and the server is still usable.
    let values = run(&server, "t", "be slow").await;
    let tool = tool_result(&values);
    assert_eq!(tool["status"], "error", "{tool}");
    assert!(
        tool["content"].as_str().unwrap().contains("within 2s"),
        "{tool}"
    );

    // Progress arrives as custom events for the call.
    let response = server
        .stream_run(
            "p",
            json!({"assistant_id": "agent", "if_not_exists": "create",
                "input": {"messages": [{"role": "user", "content": "a little slow"}]},
                "stream_mode": ["values", "custom"]}),
        )
        .await;
    let events = read_sse(response, |_| false).await;
    let progress: Vec<_> = events
        .iter()
        .filter(|e| e.event == "custom" && e.data["type"] == "tool_progress")
        .collect();
    assert!(!progress.is_empty(), "no progress events");
    assert!(progress[0].data["tool_call_id"].is_string());
    assert_eq!(status(&server, "many").await["state"], "connected");
    drop(server);

    // Cancelling the run stops the call at once (the server is told, and stays up).
    let server = start(
        &env,
        &model,
        &config(&s.python, &script, ", \"20\"", ""),
        &[],
    );
    let response = server
        .stream_run(
            "c",
            json!({"assistant_id": "agent", "if_not_exists": "create",
                "input": {"messages": [{"role": "user", "content": "be slow"}]},
                "stream_mode": ["values", "custom"]}),
        )
        .await;
    let events = read_sse(response, |e| e.event == "custom").await;
    let run_id = events[0].data["run_id"].as_str().unwrap().to_string();
    let (status_code, _) = server
        .post_json(
            &format!("/api/threads/c/runs/{run_id}/cancel?wait=true"),
            json!({}),
        )
        .await;
    assert_eq!(status_code, 200);
    // The call ended with the run, not after its 30 s: its result says so.
    let (_, state) = server.get_json("/api/threads/c/state").await;
    let result = state["values"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["type"] == "tool")
        .cloned()
        .unwrap_or_default();
    assert!(
        result["content"].to_string().contains("cancelled"),
        "the call was cancelled, not finished: {result}"
    );
    let (_, record) = server
        .get_json(&format!("/api/threads/c/runs/{run_id}"))
        .await;
    assert_eq!(record["status"], "interrupted", "{record}");
    assert_eq!(status(&server, "many").await["state"], "connected");
}

#[tokio::test]
async fn a_crashed_server_is_started_again_and_tool_lists_follow_changes() {
    let Some(s) = servers() else { return };
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let script = script_copy(&env, "crash");
    let server = start(
        &env,
        &model,
        &config(&s.python, &script, ", \"5\", \"--changing\"", ""),
        &[],
    );
    let values = run(&server, "x", "crash it").await;
    let tool = tool_result(&values);
    assert_eq!(tool["status"], "error", "{tool}");
    assert!(
        tool["content"].as_str().unwrap().contains("stopped"),
        "{tool}"
    );
    assert_eq!(status(&server, "many").await["state"], "failed");

    // The next run starts it again; two seconds after starting it adds a tool.
    run(&server, "y", "hello").await;
    assert_eq!(status(&server, "many").await["state"], "connected");
    wait_for("the added tool after list_changed", async || {
        status(&server, "many").await["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "flight_status")
    })
    .await;

    // An admin restarts it by hand.
    let (code, restarted) = server.post("/api/mcp/servers/many/restart").await;
    assert_eq!(
        (code, &restarted["state"]),
        (200, &json!("connected")),
        "{restarted}"
    );
    let (code, _) = server.post("/api/mcp/servers/nope/restart").await;
    assert_eq!(code, 404);
}

#[tokio::test]
async fn a_killed_server_leaves_no_mcp_process_behind() {
    let Some(s) = servers() else { return };
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let script = script_copy(&env, "sigkill");
    let server = start(
        &env,
        &model,
        &config(&s.python, &script, ", \"5\"", "  eager: true\n"),
        &[],
    );
    wait_for("the eager server to start", async || {
        !processes_matching(&script).is_empty()
    })
    .await;
    server.crash();
    // Its standard input closes with us: the server ends.
    wait_for("the MCP server to exit", async || {
        processes_matching(&script).is_empty()
    })
    .await;
}

#[tokio::test]
async fn tool_search_finds_one_of_two_hundred_tools() {
    let Some(s) = servers() else { return };
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let script = script_copy(&env, "search");
    let server = start(
        &env,
        &model,
        &config(&s.python, &script, ", \"200\"", ""),
        &[],
    );
    let values = run(&server, "s", "convert money").await;
    let results: Vec<&serde_json::Value> = values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["type"] == "tool")
        .collect();
    assert!(
        results[0]["content"]
            .as_str()
            .unwrap()
            .contains("mcp__many__currency_convert"),
        "{}",
        results[0]
    );
    assert_eq!(results[1]["status"], "success", "{}", results[1]);
    let requests = model_requests(&model).await;
    let tools = |i: usize| -> Vec<String> {
        requests[i]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_string())
            .collect()
    };
    let first = tools(0);
    assert!(first.contains(&"tool_search".to_string()), "{first:?}");
    assert!(
        !first.iter().any(|n| n.starts_with("mcp__")),
        "the 202 tools are deferred: {first:?}"
    );
    assert!(tools(1).contains(&"mcp__many__currency_convert".to_string()));
}

#[tokio::test]
async fn a_tool_a_server_lists_twice_is_offered_once_and_its_status_says_so() {
    let Some(s) = servers() else { return };
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let script = script_copy(&env, "duplicate");
    let server = start(
        &env,
        &model,
        &config(
            &s.python,
            &script,
            ", \"3\", \"--duplicate\", \"weather_forecast\"",
            "",
        ),
        &[],
    );
    run(&server, "d", "hello").await;
    let requests = model_requests(&model).await;
    let names: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    let weather: Vec<&&str> = names
        .iter()
        .filter(|n| n.contains("weather_forecast"))
        .collect();
    assert_eq!(weather, [&"mcp__many__weather_forecast"], "{names:?}");
    let unique: std::collections::HashSet<&&str> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "every name once: {names:?}");
    // The first listing is the one offered.
    let offered = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "mcp__many__weather_forecast")
        .unwrap();
    assert!(
        offered["function"]["description"]
            .as_str()
            .unwrap()
            .starts_with("Get the weather forecast"),
        "{offered}"
    );
    let status = status(&server, "many").await;
    assert_eq!(
        status["warnings"],
        json!(["the server lists the tool 'weather_forecast' 2 times; only the first is offered"]),
        "{status}"
    );
    let listed = status["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"] == "weather_forecast")
        .count();
    assert_eq!(listed, 1, "{status}");
}
