//! The model client over HTTP against the scripted mock model.

#![expect(clippy::unwrap_used, clippy::panic, reason = "tests")]

use std::sync::Mutex;
use std::time::Duration;

use antler_agent_runtime::config::ModelConfig;
use antler_agent_runtime::model::{
    CallOptions, Delta, ModelClient, ModelError, ModelEvent, RetryNotice,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

async fn mock(script: &str) -> String {
    let script = antler_mock_llm::Script::parse(script).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(antler_mock_llm::serve(script, listener));
    format!("http://{addr}/v1")
}

fn client(base_url: String) -> ModelClient {
    ModelClient::new(ModelConfig {
        base_url,
        model: "mock".into(),
        api_key_env: None,
        retry_base_ms: 10,
        idle_timeout_secs: 2,
        ..ModelConfig::default()
    })
    .unwrap()
}

fn user(text: &str) -> Vec<serde_json::Value> {
    vec![json!({"role": "user", "content": text})]
}

async fn collect(
    c: &ModelClient,
    text: &str,
    retries: &Mutex<Vec<RetryNotice>>,
) -> Result<(Vec<Delta>, antler_agent_runtime::model::Completion), ModelError> {
    let on_retry = |n: RetryNotice| retries.lock().unwrap().push(n);
    let mut rx = c
        .stream(
            user(text),
            vec![],
            CallOptions::default(),
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

const SCRIPT: &str = r#"
options: {chunk_size: 3}
scenarios:
  - match: "weather"
    turns:
      - reasoning: "Need a tool."
        content: "Checking."
        tool_calls:
          - {name: get_weather, arguments: {city: "Paris"}}
          - {name: get_time, arguments_raw: "{not json"}
        usage: {prompt_tokens: 11, completion_tokens: 7}
  - match: "busy"
    turns:
      - content: "Finally."
        error: {status: 429, retry_after: 0, times: 2}
  - match: "broken"
    turns:
      - content: "This answer is long enough to be cut in the middle of it."
        cut_after: 4
  - match: "slow"
    turns:
      - content: "abcdefghijkl"
        chunk_size: 1
        chunk_delay_ms: 3000
  - match: "forbidden"
    turns:
      - error: {status: 401, body: '{"error": {"message": "bad key"}}'}
"#;

#[tokio::test]
async fn streams_text_reasoning_and_tool_calls_assembled_by_index() {
    let c = client(mock(SCRIPT).await);
    let retries = Mutex::new(Vec::new());
    let (deltas, done) = collect(&c, "what's the weather", &retries).await.unwrap();
    let t = done.turn;
    assert_eq!(t.content, "Checking.");
    assert_eq!(t.reasoning, "Need a tool.");
    assert_eq!(t.tool_calls.len(), 2);
    assert_eq!(t.tool_calls[0].name, "get_weather");
    assert_eq!(t.tool_calls[0].arguments, r#"{"city":"Paris"}"#);
    assert_eq!(
        t.tool_calls[1].arguments, "{not json",
        "malformed arguments are kept verbatim"
    );
    assert_eq!(t.finish_reason, "tool_calls");
    assert_eq!(done.usage.unwrap().prompt_tokens, 11);
    assert!(
        deltas
            .iter()
            .filter(|d| matches!(d, Delta::Content(_)))
            .count()
            >= 3,
        "streamed in pieces"
    );
}

#[tokio::test]
async fn rate_limits_are_retried_and_reported() {
    let c = client(mock(SCRIPT).await);
    let retries = Mutex::new(Vec::new());
    let (_, done) = collect(&c, "busy now", &retries).await.unwrap();
    assert_eq!(done.turn.content, "Finally.");
    let seen = retries.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert!(seen[0].reason.starts_with("429"), "{:?}", seen[0]);
    assert_eq!(seen[1].attempt, 2);
}

#[tokio::test]
async fn a_stream_cut_in_the_middle_is_an_error_not_a_short_answer() {
    let c = client(mock(SCRIPT).await);
    let err = collect(&c, "broken", &Mutex::new(Vec::new()))
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::Incomplete(_)), "{err}");
}

#[tokio::test]
async fn a_stalled_stream_hits_the_idle_timeout() {
    let c = client(mock(SCRIPT).await);
    let err = collect(&c, "slow", &Mutex::new(Vec::new()))
        .await
        .unwrap_err();
    assert_eq!(err, ModelError::Idle(2));
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    let c = client(mock(SCRIPT).await);
    let retries = Mutex::new(Vec::new());
    let err = collect(&c, "forbidden", &retries).await.unwrap_err();
    assert_eq!(
        err,
        ModelError::Status {
            status: 401,
            message: "bad key".into()
        }
    );
    assert!(retries.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_unreachable_api_fails_after_retries_and_cancel_stops_waiting() {
    let c = client("http://127.0.0.1:9/v1".into());
    let retries = Mutex::new(Vec::new());
    let err = collect(&c, "hi", &retries).await.unwrap_err();
    assert!(matches!(err, ModelError::Connect(_)), "{err}");
    assert_eq!(retries.lock().unwrap().len(), 4);
    let slow = ModelClient::new(ModelConfig {
        base_url: "http://127.0.0.1:9/v1".into(),
        api_key_env: None,
        retry_base_ms: 60_000,
        retry_max_ms: 60_000,
        ..ModelConfig::default()
    })
    .unwrap();
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        c2.cancel();
    });
    let err = slow
        .stream(user("x"), vec![], CallOptions::default(), &cancel, &|_| {})
        .await
        .unwrap_err();
    // Cancelled during the retry wait of a minute: only the token can have ended it.
    assert_eq!(err, ModelError::Cancelled);
}

#[tokio::test]
async fn reasoning_effort_is_sent_with_max_completion_tokens_only_to_thinking_models() {
    let base = mock(SCRIPT).await;
    let root = base.trim_end_matches("/v1").to_string();
    let thinker = ModelClient::new(ModelConfig {
        supports_thinking: true,
        max_tokens: Some(4000),
        ..client(base.clone()).config().clone()
    })
    .unwrap();
    let options = CallOptions {
        max_tokens: None,
        thinking: antler_agent_runtime::model::Thinking::Effort(
            antler_agent_runtime::model::Effort::Low,
        ),
    };
    let history = vec![
        json!({"role": "user", "content": "what's the weather"}),
        json!({"role": "assistant", "content": "x", "thinking_blocks": [{"type": "thinking", "thinking": "t", "signature": "s"}]}),
        json!({"role": "user", "content": "what's the weather"}),
    ];
    for c in [&thinker, &client(base.clone())] {
        let mut rx = c
            .stream(
                history.clone(),
                vec![],
                options,
                &CancellationToken::new(),
                &|_| {},
            )
            .await
            .unwrap();
        while rx.recv().await.is_some() {}
    }
    let sent: Vec<serde_json::Value> = reqwest::get(format!("{root}/_requests"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(sent[0]["reasoning_effort"], "low");
    assert_eq!(sent[0]["max_completion_tokens"], 4000);
    assert!(sent[0].get("max_tokens").is_none());
    assert!(
        !sent[0].to_string().contains("thinking_blocks"),
        "Anthropic's thinking never goes to the OpenAI format"
    );
    assert!(
        sent[1].get("reasoning_effort").is_none(),
        "not a thinking model"
    );
}
