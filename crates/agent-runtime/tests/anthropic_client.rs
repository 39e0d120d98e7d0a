//! The Anthropic Messages provider over HTTP against the scripted mock model's Anthropic
//! mode: streaming, tool use, thinking passed back, images, prompt caching, errors and
//! retries.

#![expect(clippy::unwrap_used, clippy::panic, reason = "tests")]

use std::sync::Mutex;

use antler_agent_runtime::config::{ModelConfig, Provider};
use antler_agent_runtime::model::{
    CallOptions, Completion, Delta, Effort, ModelClient, ModelError, ModelEvent, RetryNotice,
    Thinking,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const SCRIPT: &str = r#"
options: {chunk_size: 4}
scenarios:
  - match: "weather"
    turns:
      - reasoning: "The person wants weather; two tools at once."
        content: "Checking."
        tool_calls:
          - {name: get_weather, arguments: {city: "Paris"}}
          - {name: get_time, arguments: {tz: "Europe/Paris"}}
      - reasoning: "Both answered."
        content: "Sunny, noon."
  - match: "picture"
    turns:
      - content: "A red square."
  - match: "busy"
    turns:
      - content: "Finally."
        error: {status: 529, retry_after: 0, times: 2}
  - match: "forbidden"
    turns:
      - error: {status: 401}
  - match: "wobbly"
    turns:
      - content: "Half"
        stream_error: "Overloaded"
  - match: ""
    turns:
      - content: "Hello there."
"#;

async fn mock() -> String {
    let script = antler_mock_llm::Script::parse(SCRIPT).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(antler_mock_llm::serve(script, listener));
    format!("http://{addr}")
}

fn client(base: &str) -> ModelClient {
    ModelClient::new(ModelConfig {
        base_url: format!("{base}/v1"),
        model: "claude-mock".into(),
        provider: Provider::Anthropic,
        supports_thinking: true,
        api_key_env: None,
        retry_base_ms: 10,
        idle_timeout_secs: 5,
        ..ModelConfig::default()
    })
    .unwrap()
}

async fn call(
    c: &ModelClient,
    messages: Vec<Value>,
    tools: Vec<Value>,
    thinking: Thinking,
    retries: &Mutex<Vec<RetryNotice>>,
) -> Result<(Vec<Delta>, Completion), ModelError> {
    let on_retry = |n: RetryNotice| retries.lock().unwrap().push(n);
    let options = CallOptions {
        max_tokens: None,
        thinking,
    };
    let mut rx = c
        .stream(
            messages,
            tools.into_iter().map(std::sync::Arc::new).collect(),
            options,
            &CancellationToken::new(),
            &on_retry,
        )
        .await?;
    let mut deltas = Vec::new();
    while let Some(event) = rx.recv().await {
        match event? {
            ModelEvent::Delta(d) => deltas.push(d),
            ModelEvent::Done(c) => return Ok((deltas, c)),
        }
    }
    panic!("stream ended without Done");
}

async fn requests(base: &str) -> Vec<Value> {
    reqwest::get(format!("{base}/_requests"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn failures(base: &str) -> Vec<Value> {
    reqwest::get(format!("{base}/_failures"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn tools() -> Vec<Value> {
    ["get_weather", "get_time"]
        .iter()
        .map(|n| json!({"type": "function", "function": {"name": n, "description": "d", "parameters": {"type": "object", "properties": {}}}}))
        .collect()
}

/// The agent's next request after `done`: the answer (with its thinking blocks, as the
/// stored AI message carries them) and a result per tool call.
fn continued(mut messages: Vec<Value>, done: &Completion) -> Vec<Value> {
    let calls: Vec<Value> = done
        .turn
        .tool_calls
        .iter()
        .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
        .collect();
    messages.push(json!({"role": "assistant", "content": done.turn.content,
        "tool_calls": calls, "thinking_blocks": done.turn.thinking_blocks}));
    for c in &done.turn.tool_calls {
        messages.push(
            json!({"role": "tool", "tool_call_id": c.id, "content": format!("{} ok", c.name)}),
        );
    }
    messages
}

#[tokio::test]
async fn text_streams_in_pieces_with_the_anthropic_headers_and_shape() {
    let base = mock().await;
    let c = client(&base);
    let messages = vec![
        json!({"role": "system", "content": "Be brief."}),
        json!({"role": "user", "content": "hi"}),
    ];
    let (deltas, done) = call(&c, messages, vec![], Thinking::Off, &Mutex::default())
        .await
        .unwrap();
    assert_eq!(done.turn.content, "Hello there.");
    assert_eq!(done.turn.finish_reason, "stop");
    assert!(deltas.len() >= 3, "streamed in pieces: {deltas:?}");
    let sent = &requests(&base).await[0];
    assert_eq!(
        sent["system"],
        json!([{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}])
    );
    assert_eq!(sent["messages"][0]["role"], "user");
    assert_eq!(sent["stream"], true);
    assert!(sent.get("thinking").is_none());
    assert!(done.usage.unwrap().prompt_tokens > 0);
}

#[tokio::test]
async fn parallel_tool_calls_and_signed_thinking_go_back_unchanged_on_the_next_turn() {
    let base = mock().await;
    let c = client(&base);
    let first = vec![json!({"role": "user", "content": "what's the weather"})];
    let high = Thinking::Effort(Effort::High);
    let (deltas, done) = call(&c, first.clone(), tools(), high, &Mutex::default())
        .await
        .unwrap();
    let t = &done.turn;
    assert_eq!(t.finish_reason, "tool_calls");
    let names: Vec<&str> = t.tool_calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["get_weather", "get_time"]);
    assert_eq!(t.tool_calls[0].arguments, r#"{"city":"Paris"}"#);
    assert_eq!(t.reasoning, "The person wants weather; two tools at once.");
    assert!(deltas.iter().any(|d| matches!(d, Delta::Reasoning(_))));
    assert_eq!(t.thinking_blocks.len(), 1);
    assert_eq!(t.thinking_blocks[0]["type"], "thinking");

    let second = continued(first, &done);
    let (_, done2) = call(&c, second.clone(), tools(), high, &Mutex::default())
        .await
        .unwrap();
    assert_eq!(done2.turn.content, "Sunny, noon.");
    assert!(
        failures(&base).await.is_empty(),
        "{:?}",
        failures(&base).await
    );
    let sent = requests(&base).await;
    assert_eq!(
        sent[0]["thinking"],
        json!({"type": "enabled", "budget_tokens": 24_576})
    );
    let assistant = &sent[1]["messages"][1];
    assert_eq!(assistant["content"][0], t.thinking_blocks[0]);
    assert_eq!(assistant["content"][2]["type"], "tool_use");
    let results = &sent[1]["messages"][2];
    assert_eq!(results["role"], "user");
    let ids: Vec<&str> = results["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["toolu_mock_0", "toolu_mock_1"],
        "merged into one user turn"
    );

    // A changed thinking block is refused (and the mock records it).
    let mut tampered = second;
    tampered[1]["thinking_blocks"][0]["thinking"] = json!("something else");
    let err = call(&c, tampered, tools(), high, &Mutex::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err, ModelError::Status { status: 400, .. }),
        "{err}"
    );
    assert_eq!(failures(&base).await.len(), 1);
}

#[tokio::test]
async fn the_second_call_reads_the_prefix_the_first_wrote_to_the_cache() {
    let base = mock().await;
    let c = client(&base);
    let long_system = "You are Antler. ".repeat(200);
    let first = vec![
        json!({"role": "system", "content": long_system}),
        json!({"role": "user", "content": "what's the weather"}),
    ];
    let (_, done) = call(&c, first.clone(), tools(), Thinking::Off, &Mutex::default())
        .await
        .unwrap();
    let u1 = done.usage.unwrap();
    assert_eq!(u1.cached_tokens, 0);
    assert!(u1.cache_write_tokens > 700, "{u1:?}");
    let (_, done2) = call(
        &c,
        continued(first, &done),
        tools(),
        Thinking::Off,
        &Mutex::default(),
    )
    .await
    .unwrap();
    let u2 = done2.usage.unwrap();
    assert_eq!(u2.cached_tokens, u1.cache_write_tokens, "{u2:?}");
    assert!(
        u2.cached_tokens * 2 > u2.prompt_tokens,
        "most of the prompt is read: {u2:?}"
    );
    let sent = requests(&base).await;
    let marks = sent[1].to_string().matches("cache_control").count();
    assert_eq!(marks, 3, "tools, system and the moving end");
}

#[tokio::test]
async fn images_go_as_base64_image_blocks() {
    let base = mock().await;
    let c = client(&base);
    let messages = vec![json!({"role": "user", "content": [
        {"type": "text", "text": "what is in this picture"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    ]})];
    let (_, done) = call(&c, messages, vec![], Thinking::Off, &Mutex::default())
        .await
        .unwrap();
    assert_eq!(done.turn.content, "A red square.");
    let sent = &requests(&base).await[0];
    assert_eq!(
        sent["messages"][0]["content"][1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
               "cache_control": {"type": "ephemeral"}})
    );
}

#[tokio::test]
async fn overloaded_is_retried_client_errors_are_not_and_error_events_fail_the_call() {
    let base = mock().await;
    let c = client(&base);
    let retries = Mutex::new(Vec::new());
    let user = |t: &str| vec![json!({"role": "user", "content": t})];
    let (_, done) = call(&c, user("busy"), vec![], Thinking::Off, &retries)
        .await
        .unwrap();
    assert_eq!(done.turn.content, "Finally.");
    {
        let seen = retries.lock().unwrap();
        assert_eq!(seen.len(), 2);
        assert!(seen[0].reason.contains("529"), "{:?}", seen[0]);
        assert!(seen[0].reason.contains("Overloaded"), "{:?}", seen[0]);
    }
    let no_retries = Mutex::new(Vec::new());
    let err = call(&c, user("forbidden"), vec![], Thinking::Off, &no_retries)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ModelError::Status {
            status: 401,
            message: "invalid x-api-key".into()
        }
    );
    assert!(no_retries.lock().unwrap().is_empty());
    let err = call(&c, user("wobbly"), vec![], Thinking::Off, &Mutex::default())
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ModelError::Status {
            status: 529,
            message: "overloaded_error: Overloaded".into()
        }
    );
}

#[tokio::test]
async fn a_model_without_thinking_is_not_asked_to_think() {
    let base = mock().await;
    let c = ModelClient::new(ModelConfig {
        supports_thinking: false,
        ..client(&base).config().clone()
    })
    .unwrap()
    .with_thinking(Thinking::On);
    assert_eq!(c.thinking(), Thinking::Off);
    let messages = vec![json!({"role": "user", "content": "what's the weather"})];
    let (_, done) = call(&c, messages, tools(), Thinking::On, &Mutex::default())
        .await
        .unwrap();
    assert!(done.turn.thinking_blocks.is_empty());
    assert!(requests(&base).await[0].get("thinking").is_none());
}
