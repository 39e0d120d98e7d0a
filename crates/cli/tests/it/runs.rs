//! Runs over HTTP: the agent with the scripted model, the sandbox, streaming, cancellation,
//! replay, multitask strategies, retries and recovery.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{
    Env, Server, Sleeper, Sse, error_code, mock_llm, model_requests, read_sse, run_body, signal,
    streamed_text, wait_for,
};

const DEMO_SKILL: &str = "---\nname: demo-skill\ndescription: Say hello from a script. Use when asked to run the demo.\n---\n# Demo\nRun `python3 /mnt/skills/public/demo-skill/scripts/hello.py`.\n";

fn demo_script() -> String {
    r#"
options: {chunk_size: 6}
scenarios:
  - system: "You write titles"
    turns:
      - content: "Demo run"
  - match: "run the demo"
    turns:
      - reasoning: "There is a skill for this; read it first."
        tool_calls:
          - {name: read_file, arguments: {path: /mnt/skills/public/demo-skill/SKILL.md, description: "Read the skill"}}
        usage: {prompt_tokens: 100, completion_tokens: 10}
      - tool_calls:
          - {name: bash, arguments: {command: "python3 /mnt/skills/public/demo-skill/scripts/hello.py > /mnt/user-data/outputs/hello.txt && cat /mnt/user-data/outputs/hello.txt"}}
        usage: {prompt_tokens: 200, completion_tokens: 20}
      - tool_calls:
          - {name: present_files, arguments: {filepaths: [/mnt/user-data/outputs/hello.txt]}}
      - content: "Done: hello.txt is ready."
"#
    .to_string()
}

fn events_named<'a>(events: &'a [Sse], name: &str) -> Vec<&'a Sse> {
    events.iter().filter(|e| e.event == name).collect()
}

fn messages(values: &Value) -> Vec<Value> {
    values["messages"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn the_agent_reads_a_skill_runs_its_script_in_docker_and_presents_the_output() {
    if !crate::common::docker().await {
        return;
    }
    let env = Env::new();
    let dir = env.write_skill("public", "demo-skill", "demo-skill", "x");
    std::fs::write(dir.join("SKILL.md"), DEMO_SKILL).unwrap();
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(
        dir.join("scripts/hello.py"),
        "print('hello from the sandbox')\n",
    )
    .unwrap();
    let model = mock_llm(&demo_script()).await;
    let instance = format!("runs-{}", std::process::id());
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_SANDBOX_PROVIDER", "docker"),
            ("ANTLER_SANDBOX_INSTANCE_ID", &instance),
            ("ANTLER_SANDBOX_DOCKER_WARM_POOL", "0"),
        ],
    );
    server.create_thread("demo").await;
    let response = server
        .stream_run(
            "demo",
            run_body(
                "please run the demo",
                &["values", "messages-tuple", "custom", "updates"],
            ),
        )
        .await;
    assert_eq!(response.status().as_u16(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let location = response.headers()["content-location"]
        .to_str()
        .unwrap()
        .to_string();
    let rejoin = response.headers()["location"].to_str().unwrap().to_string();
    let events = read_sse(response, |_| false).await;

    assert_eq!(events[0].event, "metadata");
    let run_id = events[0].data["run_id"].as_str().unwrap().to_string();
    assert_eq!(location, format!("/api/threads/demo/runs/{run_id}"));
    assert_eq!(events.last().unwrap().event, "end");
    let ids: Vec<u64> = events
        .iter()
        .map(|e| e.id.expect("every event has an id"))
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids increase: {ids:?}");
    // `Location` is the rejoin path relative to the API root (what LangGraph SDKs append to
    // their base URL); with Last-Event-ID it replays the rest.
    assert_eq!(rejoin, format!("/threads/demo/runs/{run_id}/stream"));
    let rest = server
        .http
        .get(server.url(&format!("/api{rejoin}")))
        .header("last-event-id", ids[2].to_string())
        .send()
        .await
        .unwrap();
    let rest = read_sse(rest, |_| false).await;
    assert_eq!(
        rest.iter().map(|e| e.id.unwrap()).collect::<Vec<_>>(),
        ids[3..].to_vec()
    );
    assert!(events_named(&events, "error").is_empty(), "{events:?}");

    let chunks = events_named(&events, "messages");
    let reasoning: String = chunks
        .iter()
        .filter_map(|e| e.data[0]["additional_kwargs"]["reasoning_content"].as_str())
        .collect();
    assert_eq!(reasoning, "There is a skill for this; read it first.");
    assert!(
        chunks.iter().any(
            |e| e.data[0]["type"] == "AIMessageChunk" && e.data[1]["langgraph_node"] == "agent"
        )
    );
    assert!(
        chunks
            .iter()
            .any(|e| e.data[0]["type"] == "tool" && e.data[1]["langgraph_node"] == "tools")
    );
    assert_eq!(streamed_text(&events), "Done: hello.txt is ready.");
    assert!(
        events_named(&events, "updates")
            .iter()
            .any(|e| e.data.get("tools").is_some())
    );
    assert!(
        events_named(&events, "custom")
            .iter()
            .any(|e| e.data["type"] == "title")
    );

    let last_values = &events_named(&events, "values").last().unwrap().data;
    let msgs = messages(last_values);
    let kinds: Vec<&str> = msgs.iter().map(|m| m["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["human", "ai", "tool", "ai", "tool", "ai", "tool", "ai"]
    );
    assert!(
        msgs[2]["content"]
            .as_str()
            .unwrap()
            .contains("name: demo-skill"),
        "{}",
        msgs[2]
    );
    let bash = msgs[4]["content"].as_str().unwrap();
    assert!(
        bash.contains("hello from the sandbox") && bash.contains("[exit code: 0]"),
        "{bash}"
    );
    assert_eq!(msgs[4]["artifact"]["exit_code"], 0);
    assert_eq!(
        last_values["artifacts"],
        json!(["/mnt/user-data/outputs/hello.txt"])
    );
    assert_eq!(last_values["title"], "Demo run");
    assert_eq!(
        msgs[1]["additional_kwargs"]["reasoning_content"],
        "There is a skill for this; read it first."
    );

    // The state, the file on disk, the artifact, and the run record agree.
    let (_, state) = server.get_json("/api/threads/demo/state").await;
    assert_eq!(&state["values"], last_values);
    assert_eq!(
        std::fs::read_to_string(env.user_data("demo").join("outputs/hello.txt")).unwrap(),
        "hello from the sandbox\n"
    );
    let (_, artifacts) = server.get_json("/api/threads/demo/artifacts").await;
    assert_eq!(
        artifacts["artifacts"][0]["virtual_path"],
        "/mnt/user-data/outputs/hello.txt"
    );
    let run = server
        .wait_run("demo", &run_id, |r| r["status"] == "success")
        .await;
    assert_eq!(run["stop_reason"], "completed");
    // Four agent calls and the title's.
    assert_eq!(run["usage"]["model_calls"], 5);
    assert_eq!(run["usage"]["input_tokens"], 300);
    let (_, thread) = server.get_json("/api/threads/demo").await;
    assert_eq!(thread["status"], "idle");
    let (_, history) = server
        .post_json("/api/threads/demo/history", json!({"limit": 50}))
        .await;
    assert!(history.as_array().unwrap().len() >= 5);

    // The model saw the skill in its system prompt.
    let requests: Value = model_requests(&model).await;
    let system = requests[0]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("<location>/mnt/skills/public/demo-skill/SKILL.md</location>"),
        "{system}"
    );
    assert!(requests[0]["tools"].as_array().unwrap().len() >= 9);
    server.stop();
}

fn slow_script() -> String {
    script_with_sleep("")
}

/// [`slow_script`] where a message with "sleep" has the model run `sleeper`'s command.
fn slow_script_sleeping(sleeper: &Sleeper) -> String {
    script_with_sleep(&format!(
        r#"  - match: "sleep"
    turns:
      - tool_calls:
          - {{name: bash, arguments: {{command: "{}"}}}}
      - content: "woke"
"#,
        sleeper.command
    ))
}

fn script_with_sleep(sleep: &str) -> String {
    format!(
        r#"
scenarios:
  - system: "You write titles"
    turns: [{{content: "Slow"}}]
  - match: "slow"
    turns:
      - content: "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
        chunk_size: 4
        chunk_delay_ms: 150
{sleep}  - match: ""
    turns:
      - content: "quick answer"
"#
    )
}

async fn start_run(server: &Server, thread: &str, text: &str, extra: Value) -> (u16, Value) {
    let mut body = run_body(text, &["values", "messages-tuple"]);
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    server
        .post_json(&format!("/api/threads/{thread}/runs"), body)
        .await
}

#[tokio::test]
async fn cancel_stops_the_model_stream_and_kills_the_running_command() {
    let env = Env::new();
    let sleeper = Sleeper::new(37);
    let server = env.start_agent(&mock_llm(&slow_script_sleeping(&sleeper)).await, &[]);
    server.create_thread("t").await;
    let (status, run) = start_run(&server, "t", "please sleep", json!({})).await;
    assert_eq!(status, 200, "{run}");
    let run_id = run["run_id"].as_str().unwrap().to_string();
    wait_for("the command to start", async || sleeper.running()).await;
    let (status, cancelled) = server
        .post(&format!(
            "/api/threads/t/runs/{run_id}/cancel?wait=true&action=interrupt"
        ))
        .await;
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(cancelled["status"], "interrupted");
    assert_eq!(cancelled["stop_reason"], "cancelled");
    assert!(!sleeper.running(), "the sandbox command was killed");
    let (_, thread) = server.get_json("/api/threads/t").await;
    assert_eq!(thread["status"], "interrupted");
    assert_eq!(
        thread["values"]["title"], "please sleep",
        "a stopped first run still names the thread"
    );
    // Mid-stream too, as the LangGraph SDKs ask (`wait=1`): the answer is cut off, what
    // streamed stays in the history, and the history stays valid.
    let (_, run) = start_run(&server, "t", "slow please", json!({})).await;
    let run_id = run["run_id"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(600)).await;
    let (status, bad) = server
        .post(&format!("/api/threads/t/runs/{run_id}/cancel?wait=maybe"))
        .await;
    assert_eq!((status, error_code(&bad)), (400, "invalid_query"), "{bad}");
    let (_, cancelled) = server
        .post(&format!(
            "/api/threads/t/runs/{run_id}/cancel?wait=1&action=interrupt"
        ))
        .await;
    assert_eq!(cancelled["status"], "interrupted");
    let (_, state) = server.get_json("/api/threads/t/state").await;
    let last = messages(&state["values"]).last().cloned().unwrap();
    assert_eq!(last["type"], "ai", "{last}");
    let partial = last["content"].as_str().unwrap();
    assert!(
        partial.starts_with("one two") && !partial.contains("fifteen"),
        "{partial:?}"
    );
    assert_eq!(last["response_metadata"]["finish_reason"], "cancelled");
    let (status, again) = server
        .post(&format!("/api/threads/t/runs/{run_id}/cancel"))
        .await;
    assert_eq!(status, 409, "{again}");
    let (_, answer) = server
        .post_json(
            "/api/threads/t/runs/wait",
            run_body("anything", &["values"]),
        )
        .await;
    assert_eq!(messages(&answer).last().unwrap()["content"], "quick answer");
}

#[tokio::test]
async fn a_disconnect_cancels_unless_the_run_should_continue() {
    let env = Env::new();
    let server = env.start_agent(&mock_llm(&slow_script()).await, &[]);
    for (thread, on_disconnect, want) in [
        ("cancel", "cancel", "interrupted"),
        ("keep", "continue", "success"),
    ] {
        server.create_thread(thread).await;
        let mut body = run_body("slow please", &["messages-tuple"]);
        body["on_disconnect"] = json!(on_disconnect);
        let response = server.stream_run(thread, body).await;
        let events = read_sse(response, |e| e.event == "messages").await;
        let run_id = events[0].data["run_id"].as_str().unwrap().to_string();
        // `events` ended with the first chunk; the response was dropped: the client is gone.
        let run = server
            .wait_run(thread, &run_id, |r| {
                r["status"] != "running" && r["status"] != "pending"
            })
            .await;
        assert_eq!(run["status"], want, "{thread}: {run}");
        if want == "interrupted" {
            assert_eq!(run["stop_reason"], "disconnected");
        }
    }
}

#[tokio::test]
async fn last_event_id_replays_during_and_after_the_run() {
    let env = Env::new();
    let server = env.start_agent(&mock_llm(&slow_script()).await, &[]);
    server.create_thread("t").await;
    let (_, run) = start_run(&server, "t", "slow please", json!({})).await;
    let run_id = run["run_id"].as_str().unwrap().to_string();
    let url = server.url(&format!("/api/threads/t/runs/{run_id}/stream"));
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Join while running, resuming after event 2.
    let live = server
        .http
        .get(&url)
        .header("last-event-id", "2")
        .send()
        .await
        .unwrap();
    let joined = read_sse(live, |_| false).await;
    assert_eq!(joined[0].id, Some(3), "resumes right after the given id");
    assert_eq!(joined.last().unwrap().event, "end");
    // After the end: the full replay comes from the database, identical.
    let full = read_sse(server.http.get(&url).send().await.unwrap(), |_| false).await;
    assert_eq!(full[0].event, "metadata");
    assert_eq!(full[0].id, Some(1));
    let tail: Vec<(Option<u64>, String)> = full
        .iter()
        .skip(2)
        .map(|e| (e.id, e.event.clone()))
        .collect();
    let live_tail: Vec<(Option<u64>, String)> =
        joined.iter().map(|e| (e.id, e.event.clone())).collect();
    assert_eq!(tail, live_tail, "live and stored replays agree");
    let after = server
        .replay("t", &run_id, full[full.len() - 3].id.unwrap())
        .await;
    assert_eq!(after.len(), 2);
    let only_values = read_sse(
        server
            .http
            .get(format!("{url}?stream_mode=values"))
            .send()
            .await
            .unwrap(),
        |_| false,
    )
    .await;
    assert!(
        only_values
            .iter()
            .all(|e| matches!(e.event.as_str(), "metadata" | "values" | "end"))
    );
    let (status, _) = server
        .get_json(&format!("/api/threads/t/runs/{run_id}/join"))
        .await;
    assert_eq!(status, 200);
    let bad = server
        .http
        .get(&url)
        .header("last-event-id", "nope")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status().as_u16(), 400);
}

/// `stream_mode` repeats for several modes (an empty one stands for none);
/// `cancel_on_disconnect` is `true`/`false` or `1`/`0`. Anything else is a 422 envelope.
#[tokio::test]
async fn joining_a_stream_takes_repeated_modes_and_refuses_unknown_values() {
    let env = Env::new();
    let server = env.start_agent(&mock_llm(&slow_script()).await, &[]);
    server.create_thread("t").await;
    let (_, run) = start_run(&server, "t", "slow please", json!({})).await;
    let run_id = run["run_id"].as_str().unwrap().to_string();
    server
        .wait_run("t", &run_id, |r| r["status"] == "success")
        .await;
    let url = server.url(&format!("/api/threads/t/runs/{run_id}/stream"));
    let names = |events: Vec<Sse>| {
        let mut names: Vec<String> = events.into_iter().map(|e| e.event).collect();
        names.dedup();
        names.sort();
        names.dedup();
        names
    };
    let join = |query: &'static str| {
        let request = server.http.get(format!("{url}?{query}"));
        async move { request.send().await.unwrap() }
    };
    let both = join("stream_mode=values&stream_mode=messages-tuple&stream_mode=").await;
    assert_eq!(both.status().as_u16(), 200);
    assert_eq!(
        names(read_sse(both, |_| false).await),
        ["end", "messages", "metadata", "values"]
    );
    let flagged = join("cancel_on_disconnect=1&stream_mode=values").await;
    assert_eq!(flagged.status().as_u16(), 200);
    assert_eq!(
        names(read_sse(flagged, |_| false).await),
        ["end", "metadata", "values"]
    );
    for bad in [
        "stream_mode=bogus",
        "stream_mode=values,messages",
        "stream_mode=values&cancel_on_disconnect=maybe",
    ] {
        let response = join(bad).await;
        assert_eq!(response.status().as_u16(), 422, "{bad}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(error_code(&body), "invalid_query", "{bad}: {body}");
    }
}

#[tokio::test]
async fn a_joiner_past_the_memory_bound_gets_every_event_in_order() {
    let words: String = (1..=300).map(|i| format!("w{i} ")).collect();
    let script = format!(
        "scenarios:\n  - system: \"You write titles\"\n    turns: [{{content: \"Long\"}}]\n  - match: \"\"\n    turns:\n      - content: \"{words}\"\n        chunk_size: 4\n        chunk_delay_ms: 4\n"
    );
    let env = Env::new();
    let server = env.start_agent(
        &mock_llm(&script).await,
        &[("ANTLER_AGENT_EVENT_LOG_MAX_BYTES", "4096")],
    );
    server.create_thread("t").await;
    let (_, run) = start_run(&server, "t", "long please", json!({})).await;
    let run_id = run["run_id"].as_str().unwrap().to_string();
    let url = server.url(&format!("/api/threads/t/runs/{run_id}/stream"));
    // Let well over 4 KiB of events pass (100 token chunks) before joining.
    let mut seen = 0;
    read_sse(server.http.get(&url).send().await.unwrap(), |e| {
        seen += usize::from(e.event == "messages");
        seen >= 100
    })
    .await;
    // Memory holds only the last few kilobytes: the start comes from the database.
    let joined = server.replay("t", &run_id, 1).await;
    let ids: Vec<u64> = joined.iter().map(|e| e.id.unwrap()).collect();
    let expected: Vec<u64> = (2..2 + ids.len() as u64).collect();
    assert!(ids.len() > 300, "{} events", ids.len());
    assert_eq!(
        ids, expected,
        "no gap and no duplicate across database and memory"
    );
    assert_eq!(joined.last().unwrap().event, "end");
    let text = streamed_text(&joined);
    assert!(
        text.starts_with("w1 w2 ") && text.contains("w300"),
        "{text}"
    );
    let full = read_sse(server.http.get(&url).send().await.unwrap(), |_| false).await;
    assert_eq!(
        full.len(),
        joined.len() + 1,
        "the stored log holds the same events"
    );
}

#[tokio::test]
async fn multitask_strategies_reject_interrupt_and_enqueue() {
    let env = Env::new();
    let server = env.start_agent(&mock_llm(&slow_script()).await, &[]);
    server.create_thread("t").await;
    let (_, first) = start_run(&server, "t", "slow please", json!({})).await;
    let first_id = first["run_id"].as_str().unwrap().to_string();
    let (status, body) = start_run(&server, "t", "quick", json!({})).await;
    assert_eq!(status, 409, "reject is the default: {body}");
    let (status, queued) = start_run(
        &server,
        "t",
        "quick",
        json!({"multitask_strategy": "enqueue"}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(queued["status"], "pending");
    let queued_id = queued["run_id"].as_str().unwrap().to_string();
    let first = server
        .wait_run("t", &first_id, |r| r["status"] == "success")
        .await;
    let queued = server
        .wait_run("t", &queued_id, |r| r["status"] == "success")
        .await;
    assert!(
        queued["updated_at"].as_str() >= first["updated_at"].as_str(),
        "ran after the first"
    );
    // A queued run that is cancelled stops waiting at once, while the run ahead goes on.
    let (_, ahead) = start_run(&server, "t", "slow please", json!({})).await;
    let ahead_id = ahead["run_id"].as_str().unwrap().to_string();
    let (_, waiting) = start_run(
        &server,
        "t",
        "quick",
        json!({"multitask_strategy": "enqueue"}),
    )
    .await;
    let waiting_id = waiting["run_id"].as_str().unwrap().to_string();
    let (status, cancelled) = server
        .post(&format!("/api/threads/t/runs/{waiting_id}/cancel?wait=1"))
        .await;
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(cancelled["status"], "interrupted", "{cancelled}");
    let (_, ahead) = server
        .get_json(&format!("/api/threads/t/runs/{ahead_id}"))
        .await;
    assert!(
        ahead["status"] == "running" || ahead["status"] == "pending",
        "the cancel did not wait for it: {ahead}"
    );
    server
        .wait_run("t", &ahead_id, |r| r["status"] == "success")
        .await;

    let (_, slow) = start_run(&server, "t", "slow please", json!({})).await;
    let slow_id = slow["run_id"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, _) = start_run(
        &server,
        "t",
        "quick",
        json!({"multitask_strategy": "interrupt"}),
    )
    .await;
    assert_eq!(status, 200);
    let slow = server
        .wait_run("t", &slow_id, |r| {
            r["status"] != "running" && r["status"] != "pending"
        })
        .await;
    assert_eq!(slow["status"], "interrupted");
    assert_eq!(slow["stop_reason"], "interrupted");
    let (status, body) = start_run(
        &server,
        "t",
        "quick",
        json!({"multitask_strategy": "sideways"}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
}

#[tokio::test]
async fn rate_limits_are_retried_with_a_retry_event() {
    let env = Env::new();
    let script = r#"
scenarios:
  - match: ""
    turns:
      - content: "after the wait"
        error: {status: 429, retry_after: 0, times: 1}
"#;
    let server = env.start_agent(
        &mock_llm(script).await,
        &[("ANTLER_AGENT_GENERATE_TITLES", "false")],
    );
    server.create_thread("t").await;
    let events = read_sse(
        server
            .stream_run("t", run_body("hi", &["values", "custom"]))
            .await,
        |_| false,
    )
    .await;
    let retry = events
        .iter()
        .find(|e| e.event == "custom" && e.data["type"] == "llm_retry")
        .expect("llm_retry event");
    assert_eq!(retry.data["attempt"], 1);
    assert!(retry.data["reason"].as_str().unwrap().starts_with("429"));
    let values = &events_named(&events, "values").last().unwrap().data;
    assert_eq!(
        messages(values).last().unwrap()["content"],
        "after the wait"
    );
}

#[tokio::test]
async fn a_failed_message_is_retried_without_sending_it_again() {
    let env = Env::new();
    let script = r#"
scenarios:
  - match: "flaky"
    turns:
      - content: "answered on the second try"
        error: {status: 400, body: "{\"error\": {\"message\": \"bad day\"}}", times: 1}
  - match: ""
    turns:
      - content: "fine"
"#;
    let server = env.start_agent(
        &mock_llm(script).await,
        &[("ANTLER_AGENT_GENERATE_TITLES", "false")],
    );
    server.create_thread("t").await;
    // Nothing to retry on a new thread.
    let mut retry = run_body("unused", &["values"]);
    retry["input"] = Value::Null;
    let (status, refused) = server
        .post_json("/api/threads/t/runs/wait", retry.clone())
        .await;
    assert_eq!(
        (status, error_code(&refused)),
        (422, "invalid_body"),
        "{refused}"
    );
    let (_, failed) = server
        .post_json("/api/threads/t/runs/wait", run_body("flaky", &["values"]))
        .await;
    assert_eq!(messages(&failed).len(), 1, "{failed}");
    let (_, values) = server
        .post_json("/api/threads/t/runs/wait", retry.clone())
        .await;
    let texts: Vec<Value> = messages(&values)
        .iter()
        .map(|m| m["content"].clone())
        .collect();
    assert_eq!(texts, [json!("flaky"), json!("answered on the second try")]);
    // Answered now: a second retry has nothing to do.
    let (status, _) = server.post_json("/api/threads/t/runs/wait", retry).await;
    assert_eq!(status, 422);
}

#[tokio::test]
async fn a_cut_stream_fails_the_run_and_the_next_run_works() {
    let env = Env::new();
    let script = r#"
scenarios:
  - match: "cut"
    turns:
      - content: "this will be cut off in the middle of the sentence"
        chunk_size: 2
        cut_after: 5
  - match: ""
    turns:
      - content: "fine now"
"#;
    let server = env.start_agent(
        &mock_llm(script).await,
        &[("ANTLER_AGENT_GENERATE_TITLES", "false")],
    );
    server.create_thread("t").await;
    let events = read_sse(
        server.stream_run("t", run_body("cut", &["values"])).await,
        |_| false,
    )
    .await;
    let error = events
        .iter()
        .find(|e| e.event == "error")
        .expect("error event");
    assert!(
        error.data["message"]
            .as_str()
            .unwrap()
            .contains("broke off"),
        "{error:?}"
    );
    assert_eq!(events.last().unwrap().event, "end");
    let run_id = events[0].data["run_id"].as_str().unwrap();
    let run = server
        .wait_run("t", run_id, |r| r["status"] == "error")
        .await;
    assert_eq!(run["stop_reason"], "error");
    let (_, values) = server
        .post_json("/api/threads/t/runs/wait", run_body("again", &["values"]))
        .await;
    let kinds: Vec<String> = messages(&values)
        .iter()
        .map(|m| m["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        kinds,
        ["human", "human", "ai"],
        "no partial answer was kept"
    );
    assert_eq!(messages(&values)[2]["content"], "fine now");
}

#[tokio::test]
async fn malformed_tool_arguments_go_back_to_the_model_and_the_run_continues() {
    let env = Env::new();
    let script = r#"
scenarios:
  - match: ""
    turns:
      - tool_calls: [{name: ls, arguments_raw: "{\"path\": "}]
      - content: "recovered"
"#;
    let server = env.start_agent(
        &mock_llm(script).await,
        &[("ANTLER_AGENT_GENERATE_TITLES", "false")],
    );
    server.create_thread("t").await;
    let (_, values) = server
        .post_json("/api/threads/t/runs/wait", run_body("go", &["values"]))
        .await;
    let msgs = messages(&values);
    assert_eq!(msgs[1]["invalid_tool_calls"][0]["name"], "ls");
    assert_eq!(msgs[2]["type"], "tool");
    assert_eq!(msgs[2]["status"], "error");
    assert!(
        msgs[2]["content"].as_str().unwrap().starts_with("Error: "),
        "{}",
        msgs[2]
    );
    assert_eq!(msgs[3]["content"], "recovered");
}

#[tokio::test]
async fn the_model_call_limit_and_the_time_limit_end_a_run() {
    let env = Env::new();
    let script = r#"
scenarios:
  - match: "calls"
    turns:
      - tool_calls: [{name: ls, arguments: {path: /mnt/user-data/workspace}}]
      - tool_calls: [{name: ls, arguments: {path: /mnt/user-data/uploads}}]
      - tool_calls: [{name: ls, arguments: {path: /mnt/user-data/outputs}}]
      - content: "never reached"
  - match: "sleep"
    turns:
      - tool_calls: [{name: bash, arguments: {command: "sleep 30"}}]
      - content: "never reached"
"#;
    let server = env.start_agent(
        &mock_llm(script).await,
        &[
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_AGENT_MAX_MODEL_CALLS", "2"),
            ("ANTLER_AGENT_RUN_TIMEOUT_SECS", "2"),
        ],
    );
    server.create_thread("t").await;
    let (_, run) = start_run(&server, "t", "calls please", json!({})).await;
    let run_id = run["run_id"].as_str().unwrap().to_string();
    let run = server
        .wait_run("t", &run_id, |r| {
            r["status"] != "pending" && r["status"] != "running"
        })
        .await;
    assert_eq!(run["status"], "error", "{run}");
    assert_eq!(run["stop_reason"], "model_call_limit", "{run}");
    let events = read_sse(
        server
            .http
            .get(server.url(&format!("/api/threads/t/runs/{run_id}/stream")))
            .send()
            .await
            .unwrap(),
        |_| false,
    )
    .await;
    let error = events.iter().find(|e| e.event == "error").unwrap();
    assert_eq!(error.data["name"], "AgentError");
    assert!(
        error.data["message"]
            .as_str()
            .unwrap()
            .contains("2 model calls")
    );

    let (_, run) = start_run(&server, "t", "sleep please", json!({})).await;
    let run_id = run["run_id"].as_str().unwrap().to_string();
    let run = server
        .wait_run("t", &run_id, |r| {
            r["status"] != "pending" && r["status"] != "running"
        })
        .await;
    assert_eq!(run["status"], "timeout", "{run}");
    assert_eq!(run["stop_reason"], "timeout", "{run}");
    let (_, thread) = server.get_json("/api/threads/t").await;
    assert_eq!(thread["status"], "interrupted", "{thread}");
}

#[tokio::test]
async fn file_tools_edit_search_and_refuse_clearly() {
    let env = Env::new();
    env.write_skill("public", "off-skill", "off-skill", "Switched off.");
    let script = r#"
scenarios:
  - match: ""
    turns:
      - tool_calls: [{name: write_file, arguments: {path: /mnt/user-data/workspace/a.txt, content: "one two two\n"}}]
      - tool_calls: [{name: str_replace, arguments: {path: /mnt/user-data/workspace/a.txt, old_str: "two", new_str: "three"}}]
      - tool_calls: [{name: str_replace, arguments: {path: /mnt/user-data/workspace/a.txt, old_str: "missing", new_str: "x"}}]
      - tool_calls: [{name: str_replace, arguments: {path: /mnt/user-data/workspace/a.txt, old_str: "two", new_str: "2", replace_all: true}}]
      - tool_calls: [{name: read_file, arguments: {path: /mnt/user-data/workspace/a.txt}}]
      - tool_calls: [{name: glob, arguments: {pattern: "**/*.txt", path: /mnt/user-data}}]
      - tool_calls: [{name: grep, arguments: {pattern: "ONE", path: /mnt/user-data/workspace}}]
      - tool_calls: [{name: present_files, arguments: {filepaths: [/mnt/user-data/workspace/a.txt]}}]
      - tool_calls: [{name: read_file, arguments: {path: /mnt/skills/public/off-skill/SKILL.md}}]
      - tool_calls: [{name: read_file, arguments: {path: /etc/passwd}}]
      - content: "done"
"#;
    let server = env.start_agent(
        &mock_llm(script).await,
        &[("ANTLER_AGENT_GENERATE_TITLES", "false")],
    );
    let (status, _) = server
        .put_json("/api/skills/off-skill", json!({"enabled": false}))
        .await;
    assert_eq!(status, 200);
    server.create_thread("t").await;
    let (_, values) = server
        .post_json("/api/threads/t/runs/wait", run_body("edit", &["values"]))
        .await;
    let results: Vec<(String, String)> = messages(&values)
        .iter()
        .filter(|m| m["type"] == "tool")
        .map(|m| {
            (
                m["status"].as_str().unwrap_or("success").to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(results.len(), 10, "{results:#?}");
    let ok = |i: usize| assert_eq!(results[i].0, "success", "{i}: {:?}", results[i]);
    let err = |i: usize, needle: &str| {
        assert_eq!(results[i].0, "error", "{i}: {:?}", results[i]);
        assert!(
            results[i].1.contains(needle),
            "{i}: {:?} lacks {needle}",
            results[i]
        );
    };
    ok(0);
    err(1, "2");
    err(2, "not found");
    ok(3);
    ok(4);
    assert!(results[4].1.contains("one 2 2"), "{:?}", results[4]);
    ok(5);
    assert!(
        results[5].1.contains("/mnt/user-data/workspace/a.txt"),
        "{:?}",
        results[5]
    );
    ok(6);
    assert_eq!(
        results[6].1, "/mnt/user-data/workspace/a.txt:1: one 2 2",
        "case-insensitive unless asked, with virtual path and line"
    );
    err(7, "/mnt/user-data/outputs");
    err(8, "off-skill");
    err(9, "/etc/passwd");
    for (_, text) in &results {
        assert!(
            !text.contains(env.root.path().to_str().unwrap()),
            "a host path leaked: {text}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(env.user_data("t").join("workspace/a.txt")).unwrap(),
        "one 2 2\n"
    );
    assert!(
        values["artifacts"].as_array().is_none_or(Vec::is_empty),
        "{values}"
    );
}

#[tokio::test]
async fn repeated_tool_calls_warn_then_stop_the_run() {
    let env = Env::new();
    let turn = r#"      - tool_calls: [{name: ls, arguments: {path: /mnt/user-data/workspace}}]
"#;
    let script = format!(
        "scenarios:\n  - match: \"\"\n    turns:\n{}",
        turn.repeat(6)
    );
    let server = env.start_agent(
        &mock_llm(&script).await,
        &[("ANTLER_AGENT_GENERATE_TITLES", "false")],
    );
    server.create_thread("t").await;
    let events = read_sse(
        server
            .stream_run("t", run_body("loop", &["values", "custom"]))
            .await,
        |_| false,
    )
    .await;
    assert!(
        events
            .iter()
            .any(|e| e.event == "custom" && e.data["type"] == "loop_warning")
    );
    assert!(
        events
            .iter()
            .any(|e| e.event == "custom" && e.data["type"] == "loop_detected")
    );
    let run_id = events[0].data["run_id"].as_str().unwrap();
    let run = server
        .wait_run("t", run_id, |r| r["status"] == "error")
        .await;
    assert_eq!(run["stop_reason"], "loop_detected");
    assert_eq!(run["usage"]["model_calls"], 5);
    let (_, state) = server.get_json("/api/threads/t/state").await;
    let msgs = messages(&state["values"]);
    assert!(msgs.iter().any(|m| {
        m["content"]
            .as_str()
            .is_some_and(|c| c.contains("[Warning: you have made exactly these tool calls 3 times"))
    }));
    assert_eq!(
        msgs.last().unwrap()["type"],
        "tool",
        "the stopped call got a result"
    );
}

#[tokio::test]
async fn a_clarification_question_ends_the_run() {
    let env = Env::new();
    let script = r#"
scenarios:
  - match: ""
    turns:
      - tool_calls:
          - {name: ask_clarification, arguments: {question: "CSV or JSON?", clarification_type: approach_choice, options: [CSV, JSON]}}
      - content: "should never be requested"
"#;
    let model = mock_llm(script).await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server.create_thread("t").await;
    let (_, values) = server
        .post_json(
            "/api/threads/t/runs/wait",
            run_body("export it", &["values"]),
        )
        .await;
    let last = messages(&values).last().unwrap().clone();
    assert_eq!(last["type"], "tool");
    assert_eq!(last["name"], "ask_clarification");
    assert_eq!(last["artifact"]["options"], json!(["CSV", "JSON"]));
    let (_, runs) = server.get_json("/api/threads/t/runs").await;
    assert_eq!(runs[0]["stop_reason"], "clarification");
    assert_eq!(runs[0]["status"], "success");
    let requests: Value = model_requests(&model).await;
    assert_eq!(
        requests.as_array().unwrap().len(),
        1,
        "no model call after the question"
    );
}

#[tokio::test]
async fn a_restart_marks_running_runs_interrupted_and_the_thread_goes_on() {
    let env = Env::new();
    let sleeper = Sleeper::new(38);
    let model = mock_llm(&slow_script_sleeping(&sleeper)).await;
    let server = env.start_agent(&model, &[]);
    server.create_thread("t").await;
    let (_, run) = start_run(&server, "t", "please sleep", json!({})).await;
    let run_id = run["run_id"].as_str().unwrap().to_string();
    server
        .wait_run("t", &run_id, |r| r["status"] == "running")
        .await;
    wait_for("the command to start", async || sleeper.running()).await;
    server.crash();
    // The crashed server's command (host bash) is this test's own to clean up.
    for pid in sleeper.processes() {
        signal(pid, rustix::process::Signal::KILL);
    }
    let server = env.start_agent(&model, &[]);
    let (_, run) = server
        .get_json(&format!("/api/threads/t/runs/{run_id}"))
        .await;
    assert_eq!(run["status"], "interrupted");
    assert_eq!(run["stop_reason"], "server_restart");
    let (_, thread) = server.get_json("/api/threads/t").await;
    assert_eq!(thread["status"], "interrupted");
    let (status, values) = server
        .post_json(
            "/api/threads/t/runs/wait",
            run_body("anything", &["values"]),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(messages(&values).last().unwrap()["content"], "quick answer");
}

#[tokio::test]
async fn a_run_interrupted_by_a_restart_replays_to_an_error_and_end() {
    let env = Env::new();
    let sleeper = Sleeper::new(39);
    let model = mock_llm(&slow_script_sleeping(&sleeper)).await;
    let server = env.start_agent(&model, &[]);
    server.create_thread("t").await;
    let (_, run) = start_run(&server, "t", "please sleep", json!({})).await;
    let run_id = run["run_id"].as_str().unwrap().to_string();
    wait_for("the command to start", async || sleeper.running()).await;
    server.crash();
    for pid in sleeper.processes() {
        signal(pid, rustix::process::Signal::KILL);
    }
    let server = env.start_agent(&model, &[]);
    // Every terminal run's replay ends the same way, whatever stopped it.
    let events = server.replay("t", &run_id, 0).await;
    let names: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(names.first(), Some(&"metadata"), "{names:?}");
    assert_eq!(&names[names.len() - 2..], ["error", "end"], "{names:?}");
    let error = &events[events.len() - 2].data;
    assert_eq!(error["error"], "ServerRestart", "{error}");
    assert!(error["message"].as_str().unwrap().contains("restarted"));
    // Resuming after the last event the client saw still ends with the terminal events.
    let before_error = events[events.len() - 3].id.unwrap();
    let resumed = server.replay("t", &run_id, before_error).await;
    let names: Vec<&str> = resumed.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(names, ["error", "end"]);
    // Ids are unique and increasing: no second `end` was written.
    let ids: Vec<u64> = events.iter().filter_map(|e| e.id).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
}

#[tokio::test]
async fn the_prompt_lists_only_enabled_unshadowed_skills() {
    let env = Env::new();
    env.write_skill("public", "alpha", "alpha", "Public alpha.");
    env.write_skill("public", "beta", "beta", "Public beta.");
    env.write_skill("public", "gamma", "gamma", "Public gamma.");
    env.write_skill("custom", "alpha", "alpha", "Custom alpha.");
    let model = mock_llm("scenarios:\n  - match: \"\"\n    turns: [{content: ok}]\n").await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server
        .put_json("/api/skills/beta", json!({"enabled": false}))
        .await;
    server.create_thread("t").await;
    server
        .post_json("/api/threads/t/runs/wait", run_body("hi", &["values"]))
        .await;
    let requests: Value = model_requests(&model).await;
    let system = requests[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("/mnt/skills/custom/alpha/SKILL.md"));
    assert!(system.contains("/mnt/skills/public/gamma/SKILL.md"));
    assert!(
        !system.contains("/mnt/skills/public/alpha/SKILL.md"),
        "shadowed"
    );
    assert!(!system.contains("beta"), "disabled");
}

#[tokio::test]
async fn bad_run_requests_are_refused_clearly() {
    let env = Env::new();
    let server = env.start_agent(
        &mock_llm("scenarios:\n  - match: \"\"\n    turns: [{content: ok}]\n").await,
        &[],
    );
    let (status, _) = start_run(&server, "missing", "hi", json!({})).await;
    assert_eq!(status, 404);
    server.create_thread("t").await;
    for (body, want) in [
        (
            json!({"assistant_id": "lead_agent", "input": {"messages": []}}),
            422,
        ),
        (
            json!({"assistant_id": "lead_agent", "input": {"messages": [{"role": "system", "content": "x"}]}}),
            422,
        ),
        (
            json!({"assistant_id": "lead_agent", "input": {"messages": [{"role": "tool", "tool_call_id": "none", "content": "x"}]}}),
            422,
        ),
        (
            json!({"assistant_id": "lead_agent", "input": {"messages": [{"role": "user", "content": "x"}]}, "stream_mode": "debug"}),
            422,
        ),
        (
            json!({"assistant_id": "lead_agent", "input": {"messages": [{"role": "user", "content": "x"}]}, "config": {"configurable": {"model_name": "nope"}}}),
            422,
        ),
        (
            json!({"input": {"messages": [{"role": "user", "content": "x"}]}}),
            422,
        ),
        (
            json!({"assistant_id": "lead_agent", "input": {"messages": [{"role": "user", "content": "x"}]}, "multitask_strategy": "sideways"}),
            422,
        ),
        // The document says objects: anything else is refused, not ignored.
        (
            json!({"assistant_id": "lead_agent", "input": {"messages": [{"role": "user", "content": "x"}]}, "context": [null]}),
            422,
        ),
        (
            json!({"assistant_id": "lead_agent", "input": {"messages": [{"role": "user", "content": "x"}]}, "config": "fast"}),
            422,
        ),
    ] {
        let (status, reply) = server.post_json("/api/threads/t/runs", body.clone()).await;
        assert_eq!(status, want, "{body}: {reply}");
    }
    let (status, _) = server.get_json("/api/threads/t/runs/not-a-uuid").await;
    assert_eq!(status, 422);
    let (status, _) = server
        .get_json(&format!(
            "/api/threads/t/runs/{}",
            "00000000-0000-4000-8000-000000000000"
        ))
        .await;
    assert_eq!(status, 404);
    let (status, bad) = server
        .post("/api/threads/t/runs/00000000-0000-4000-8000-000000000000/cancel?action=undo")
        .await;
    assert_eq!((status, error_code(&bad)), (400, "invalid_query"), "{bad}");
    assert!(
        bad["error"]["message"].as_str().unwrap().contains("undo"),
        "{bad}"
    );
    let (status, bad) = server
        .post("/api/threads/t/runs/00000000-0000-4000-8000-000000000000/cancel?action=rollback")
        .await;
    assert_eq!((status, error_code(&bad)), (404, "not_found"), "{bad}");
    // Bytes that are not UTF-8 in a path are the client's mistake, in the error envelope.
    for path in ["/api/threads/%FF/state", "/api/threads/t/runs/%FF"] {
        let (status, bad) = server.get_json(path).await;
        assert_eq!(
            (status, error_code(&bad)),
            (400, "invalid_path"),
            "{path}: {bad}"
        );
    }
    let (status, created) = server
        .post_json("/api/threads/new-one/runs/wait", json!({"assistant_id": "lead_agent", "if_not_exists": "create", "input": {"messages": [{"role": "user", "content": "x"}]}}))
        .await;
    assert_eq!(status, 200, "{created}");
}

#[tokio::test]
async fn a_megabyte_of_tool_output_is_kept_in_a_file_the_model_is_pointed_to() {
    let env = Env::new();
    let model = mock_llm(
        "scenarios:\n  - match: \"\"\n    turns:\n      - tool_calls: [{name: bash, arguments: {command: \"python3 -c \\\"print('a' * 600000); print('z' * 600000)\\\"\"}}]\n      - content: \"big\"\n",
    )
    .await;
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_SANDBOX_MAX_OUTPUT_BYTES", "2000000"),
        ],
    );
    let (status, values) = server
        .post_json(
            "/api/threads/big/runs/wait",
            json!({"assistant_id": "agent", "if_not_exists": "create",
                "input": {"messages": [{"role": "user", "content": "make noise"}]}}),
        )
        .await;
    assert_eq!(status, 200, "{values}");
    let tool = values["messages"][2]["content"].as_str().unwrap();
    assert!(
        tool.len() < 40_000,
        "the model gets {} characters",
        tool.len()
    );
    assert!(
        tool.starts_with("aaa") && tool[tool.len() - 300..].contains("zzz"),
        "head and tail: {}…{}",
        &tool[..200],
        &tool[tool.len() - 200..]
    );
    let path = tool
        .split_whitespace()
        .find(|w| w.starts_with("/mnt/user-data/workspace/tool-outputs/"))
        .unwrap_or_else(|| panic!("no path in {}", &tool[..300]))
        .trim_end_matches(':');
    let whole = server
        .get(&format!("/api/threads/big/artifacts{path}"))
        .await
        .text()
        .await
        .unwrap();
    let count = |c: char| whole.chars().filter(|x| *x == c).count();
    assert_eq!(
        (count('a'), count('z')),
        (600_000, 600_000),
        "the file holds all of it"
    );
}
