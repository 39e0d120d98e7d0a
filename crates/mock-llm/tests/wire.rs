//! The mock speaks the OpenAI wire format as the recorded streams do.

#![expect(clippy::unwrap_used, reason = "tests")]

use serde_json::{Value, json};

const SCRIPT: &str = r#"
options: {chunk_size: 3}
scenarios:
  - match: "text"
    turns: [{content: "Hello there, this is a plain answer."}]
  - match: "one call"
    turns:
      - tool_calls: [{name: get_weather, arguments: {city: "Paris", unit: "celsius"}}]
  - match: "two calls"
    turns:
      - tool_calls:
          - {name: get_weather, arguments: {city: "Paris"}}
          - {name: get_weather, arguments: {city: "Tokyo"}}
"#;

async fn mock() -> String {
    let script = antler_mock_llm::Script::parse(SCRIPT).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(antler_mock_llm::serve(script, listener));
    format!("http://{addr}/v1")
}

/// The `data:` payloads of an SSE body, `[DONE]` included.
fn data_lines(body: &str) -> Vec<String> {
    body.split("\n\n")
        .filter_map(|block| block.lines().find_map(|l| l.strip_prefix("data: ")))
        .map(str::to_string)
        .collect()
}

/// Each chunk's shape (delta keys, tool-call header or fragment, finish), runs of equal
/// shapes collapsed: fragment counts differ, the structure must not.
fn shape(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in lines {
        let s = if line == "[DONE]" {
            "[DONE]".to_string()
        } else {
            let chunk: Value = serde_json::from_str(line).unwrap();
            match chunk["choices"].as_array().unwrap().first() {
                None => format!("usage:{}", chunk["usage"].is_object()),
                Some(choice) => {
                    let delta = choice["delta"].as_object().unwrap();
                    let mut keys: Vec<&str> = delta.keys().map(String::as_str).collect();
                    keys.sort_unstable();
                    let calls: Vec<&str> = delta
                        .get("tool_calls")
                        .and_then(Value::as_array)
                        .map(|c| {
                            c.iter()
                                .map(|t| {
                                    if t.get("id").is_some() {
                                        "header"
                                    } else {
                                        "frag"
                                    }
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    format!("{keys:?} {calls:?} {}", choice["finish_reason"])
                }
            }
        };
        if out.last() != Some(&s) {
            out.push(s);
        }
    }
    out
}

fn fixture(name: &str) -> Vec<String> {
    let path = format!(
        "{}/../agent-runtime/tests/fixtures/openai-chat-stream/{name}.sse",
        std::env::var("CARGO_MANIFEST_DIR").unwrap()
    );
    data_lines(&std::fs::read_to_string(path).unwrap())
}

async fn stream(base: &str, text: &str) -> Vec<String> {
    let body = reqwest::Client::new()
        .post(format!("{base}/chat/completions"))
        .json(&json!({
            "model": "mock", "stream": true, "stream_options": {"include_usage": true},
            "messages": [{"role": "user", "content": text}],
        }))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    data_lines(&body)
}

#[tokio::test]
async fn streams_have_the_structure_of_the_recorded_ones() {
    let base = mock().await;
    for (text, recorded) in [
        ("text", "plain-text"),
        ("one call", "single-tool-call"),
        ("two calls", "parallel-tool-calls"),
    ] {
        let mocked = stream(&base, text).await;
        assert_eq!(
            shape(&mocked),
            shape(&fixture(recorded)),
            "{text} vs {recorded}.sse"
        );
    }
    // Fragments reassemble into the scripted arguments, by index.
    let mocked = stream(&base, "two calls").await;
    let mut args = [String::new(), String::new()];
    for line in mocked.iter().filter(|l| *l != "[DONE]") {
        let chunk: Value = serde_json::from_str(line).unwrap();
        for call in chunk["choices"][0]["delta"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let i = call["index"].as_u64().unwrap() as usize;
            args[i].push_str(call["function"]["arguments"].as_str().unwrap());
        }
    }
    let parsed: Vec<Value> = args
        .iter()
        .map(|a| serde_json::from_str(a).unwrap())
        .collect();
    assert_eq!(parsed, [json!({"city": "Paris"}), json!({"city": "Tokyo"})]);
}

#[tokio::test]
async fn non_streaming_replies_and_the_model_list_work() {
    let base = mock().await;
    let http = reqwest::Client::new();
    let reply: Value = http
        .post(format!("{base}/chat/completions"))
        .json(&json!({"model": "mock", "messages": [{"role": "user", "content": "one call"}]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let message = &reply["choices"][0]["message"];
    assert_eq!(message["role"], "assistant");
    assert_eq!(reply["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(message["tool_calls"][0]["function"]["name"], "get_weather");
    let args: Value = serde_json::from_str(
        message["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(args, json!({"city": "Paris", "unit": "celsius"}));
    assert!(reply["usage"]["total_tokens"].as_u64().is_some(), "{reply}");
    let models: Value = http
        .get(format!("{base}/models"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(models["object"], "list");
    assert!(models["data"][0]["id"].is_string(), "{models}");
}
