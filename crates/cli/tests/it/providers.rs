//! Model providers end to end: an Anthropic-format model answering a run with thinking and a
//! tool call, the per-run model choice (DeerFlow's field names too) sent as the right
//! request fields and remembered on the thread, and what `GET /api/models` says.

use serde_json::{Value, json};

use crate::common::{Env, error_code, mock_llm, model_requests};

const SCRIPT: &str = r#"
scenarios:
  - match: "count the files"
    turns:
      - reasoning: "I should list the workspace first."
        tool_calls:
          - {name: bash, arguments: {command: "echo three", description: "Count files"}}
      - reasoning: "The command said three."
        content: "There are three files."
  - match: ""
    turns:
      - content: "Fine."
"#;

/// A server with `models` (not `start_agent`: its model variables would rename the first).
fn start(env: &Env, models: &str) -> crate::common::Server {
    env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_SANDBOX_ALLOW_HOST_BASH", "true"),
        ("ANTLER_MODELS", models),
        ("ANTLER_AGENT_GENERATE_TITLES", "false"),
    ])
}

/// The model requests whose `model` is `id`.
async fn requests_to(url: &str, id: &str) -> Vec<Value> {
    model_requests(url)
        .await
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["model"] == id)
        .cloned()
        .collect()
}

#[tokio::test]
async fn an_anthropic_model_thinks_calls_a_tool_and_gets_its_thinking_back() {
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let models = format!(
        "- {{name: claude, provider: anthropic, base_url: \"{model}\", model: claude-mock, \
         supports_thinking: true, supports_reasoning_effort: true, context_window: 200000, \
         max_output_tokens: 64000, pricing: {{input: 3, output: 15}}}}\n"
    );
    let server = start(&env, &models);
    let (status, listed) = server.get_json("/api/models").await;
    assert_eq!(status, 200);
    let claude = &listed["models"][0];
    assert_eq!(claude["provider"], "anthropic");
    assert_eq!(claude["supports_thinking"], true);
    assert_eq!(claude["supports_reasoning_effort"], true);
    assert_eq!(claude["context_window"], 200_000);
    assert_eq!(claude["max_output_tokens"], 64_000);
    assert_eq!(
        claude["pricing"],
        json!({"input": 3.0, "cached_input": 3.0, "output": 15.0})
    );

    let (status, values) = server
        .post_json(
            "/api/threads/t1/runs/wait",
            json!({"assistant_id": "lead_agent", "if_not_exists": "create",
                   "input": {"messages": [{"role": "user", "content": "count the files"}]},
                   "context": {"model_name": "claude", "thinking": true, "reasoning_effort": "high"}}),
        )
        .await;
    assert_eq!(status, 200, "{values}");
    let messages = values["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    assert_eq!(last["content"], "There are three files.");
    assert_eq!(
        last["additional_kwargs"]["reasoning_content"],
        "The command said three."
    );
    let first_ai = messages.iter().find(|m| m["type"] == "ai").unwrap();
    let blocks = &first_ai["additional_kwargs"]["thinking_blocks"];
    assert_eq!(blocks[0]["type"], "thinking");
    assert_eq!(blocks[0]["thinking"], "I should list the workspace first.");
    assert!(
        messages
            .iter()
            .any(|m| m["type"] == "tool" && m["content"].as_str().unwrap().contains("three"))
    );

    let failures: Value = reqwest::get(model.replace("/v1", "/_failures"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(failures, json!([]), "thinking came back unchanged");
    let sent = requests_to(&model, "claude-mock").await;
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(
        sent[0]["thinking"],
        json!({"type": "enabled", "budget_tokens": 24_576})
    );
    assert!(sent[0]["max_tokens"].as_u64().unwrap() > 24_576);
    assert!(sent[0]["system"][0]["text"].as_str().is_some());
    assert_eq!(sent[1]["messages"][1]["content"][0], blocks[0]);
    assert_eq!(sent[1]["messages"][2]["content"][0]["type"], "tool_result");
    assert_eq!(
        sent[1].to_string().matches("\"cache_control\"").count(),
        3,
        "tools, system prompt and the moving end are cache breakpoints"
    );
}

#[tokio::test]
async fn a_thread_remembers_the_model_choice_and_deerflow_names_are_understood() {
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let models = format!(
        "- {{name: plain, base_url: \"{model}\", model: plain-mock}}\n\
         - {{name: thinker, base_url: \"{model}\", model: thinker-mock, supports_thinking: true, \
         supports_reasoning_effort: true}}\n"
    );
    let server = start(&env, &models);
    let run = |context: Value| {
        json!({"assistant_id": "lead_agent", "if_not_exists": "create",
               "input": {"messages": [{"role": "user", "content": "hello"}]}, "context": context})
    };
    // DeerFlow's names: thinking_enabled, is_plan_mode, subagent_enabled.
    let (status, body) = server
        .post_json(
            "/api/threads/t2/runs/wait",
            run(json!({"model_name": "thinker", "thinking_enabled": true,
                       "reasoning_effort": "low", "is_plan_mode": true, "subagent_enabled": false})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let sent = requests_to(&model, "thinker-mock").await;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["reasoning_effort"], "low");
    let tools: Vec<&str> = sent[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(tools.contains(&"write_todos"), "plan mode: {tools:?}");
    assert!(!tools.contains(&"task"), "subagents off: {tools:?}");
    let (_, thread) = server.get_json("/api/threads/t2").await;
    assert_eq!(
        thread["metadata"]["model_choice"],
        json!({"model_name": "thinker", "thinking": true, "reasoning_effort": "low"})
    );

    // A run naming nothing uses the remembered choice.
    let (status, body) = server
        .post_json("/api/threads/t2/runs/wait", run(json!({})))
        .await;
    assert_eq!(status, 200, "{body}");
    let sent = requests_to(&model, "thinker-mock").await;
    assert_eq!(sent.len(), 2, "the remembered model answered");
    assert_eq!(sent[1]["reasoning_effort"], "low");
    let tools = sent[1]["tools"].to_string();
    assert!(tools.contains("\"task\""), "subagents are not remembered");

    // A bad effort is refused, naming the allowed values.
    let (status, body) = server
        .post_json(
            "/api/threads/t2/runs/wait",
            run(json!({"reasoning_effort": "max"})),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(error_code(&body), "invalid_body");
    assert!(body.to_string().contains("low, medium, high"), "{body}");

    // Thinking off wins over an effort; thinking asked of a plain model is ignored.
    let (status, _) = server
        .post_json(
            "/api/threads/t2/runs/wait",
            run(json!({"thinking": false, "reasoning_effort": "high"})),
        )
        .await;
    assert_eq!(status, 200);
    let sent = requests_to(&model, "thinker-mock").await;
    assert!(sent[2].get("reasoning_effort").is_none(), "{}", sent[2]);
    let (status, _) = server
        .post_json(
            "/api/threads/t3/runs/wait",
            run(json!({"model_name": "plain", "reasoning_effort": "high"})),
        )
        .await;
    assert_eq!(status, 200);
    let plain = requests_to(&model, "plain-mock").await;
    assert!(plain[0].get("reasoning_effort").is_none(), "{}", plain[0]);
    let (_, thread) = server.get_json("/api/threads/t2").await;
    assert_eq!(thread["metadata"]["model_choice"]["thinking"], false);
}
