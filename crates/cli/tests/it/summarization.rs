//! Long conversations are summarized for the model at the threshold (messages or tokens),
//! never separating a tool call from its result; the messages stay in the history.

use serde_json::Value;

use crate::common::{Env, Server, mock_llm};

const SCRIPT: &str = r#"scenarios:
  - system: "You compress the earlier part"
    turns:
      - content: "SUMMARY-ONE: the person asked to list files."
  - system: "Custom summarizer"
    turns:
      - content: "SUMMARY-TOKENS: a long story about bread."
  - match: "list files"
    turns:
      - tool_calls: [{name: bash, arguments: {command: "echo listed"}}]
      - content: "listed"
  - match: ""
    turns:
      - content: "ok"
"#;

async fn say(server: &Server, thread: &str, text: &str) -> Value {
    server.run_wait(thread, "agent", text).await
}

/// The agent request (not the summarizer's) whose last message is the person's `text`.
async fn agent_request(model: &str, text: &str) -> Value {
    crate::common::model_request_for(model, text).await
}

/// Every tool message of a request follows an assistant message that made its call.
fn pairs_intact(messages: &[Value]) -> bool {
    messages.iter().enumerate().all(|(i, m)| {
        m["role"] != "tool"
            || messages[..i].iter().any(|p| {
                p["role"] == "assistant"
                    && p["tool_calls"]
                        .as_array()
                        .is_some_and(|c| c.iter().any(|c| c["id"] == m["tool_call_id"]))
            })
    })
}

#[tokio::test]
async fn past_the_message_threshold_the_earliest_messages_are_summarized_keeping_tool_pairs() {
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_AGENT_SUMMARIZATION_TRIGGER_TOKENS", "0"),
            ("ANTLER_AGENT_SUMMARIZATION_TRIGGER_MESSAGES", "6"),
            ("ANTLER_AGENT_SUMMARIZATION_KEEP_MESSAGES", "5"),
        ],
    );
    let first = say(&server, "s", "please list files").await;
    assert_eq!(first["messages"].as_array().unwrap().len(), 4);
    let second = say(&server, "s", "second question").await;
    assert!(second.get("summary").is_none(), "{second}");
    let third = say(&server, "s", "third question").await;

    // Seven messages passed six: keeping five would start at a tool result, so the cut moved
    // to its call: only the first message was summarized.
    let summary = &third["summary"];
    assert_eq!(
        summary["content"],
        "SUMMARY-ONE: the person asked to list files."
    );
    let messages = third["messages"].as_array().unwrap();
    assert_eq!(summary["up_to"], messages[0]["id"], "{summary}");
    assert_eq!(summary["summarized"], 1);
    assert_eq!(messages.len(), 8, "the history keeps every message");

    let request = agent_request(&model, "third question").await;
    let sent = request["messages"].as_array().unwrap();
    assert!(
        sent[0]["content"].as_str().unwrap().contains("SUMMARY-ONE"),
        "{}",
        sent[0]
    );
    assert!(
        !sent.iter().any(|m| m["content"] == "please list files"),
        "the summarized message is not sent"
    );
    assert_eq!(sent[1]["role"], "assistant");
    assert!(pairs_intact(sent), "{sent:?}");
    assert_eq!(sent.len(), 1 + 6);

    // The state shows it too.
    let (_, state) = server.get_json("/api/threads/s/state").await;
    assert_eq!(state["values"]["summary"]["summarized"], 1);
}

#[tokio::test]
async fn past_the_token_threshold_a_configured_prompt_summarizes() {
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let server = env.start_agent(
        &model,
        &[
            ("ANTLER_AGENT_GENERATE_TITLES", "false"),
            ("ANTLER_AGENT_SUMMARIZATION_TRIGGER_TOKENS", "1500"),
            ("ANTLER_AGENT_SUMMARIZATION_KEEP_MESSAGES", "2"),
            ("ANTLER_AGENT_SUMMARIZATION_ENCODING", "o200k_base"),
            (
                "ANTLER_AGENT_SUMMARIZATION_PROMPT",
                "Custom summarizer: be brief.",
            ),
        ],
    );
    // About 700 tokens each: the first turn stays under 1,500 with the system prompt, the
    // second passes it.
    let story = "bread ".repeat(700);
    let once = say(&server, "k", &format!("first: {story}")).await;
    assert!(once.get("summary").is_none(), "{}", once["summary"]);
    let second = format!("second: {story}");
    let twice = say(&server, "k", &second).await;
    assert_eq!(
        twice["summary"]["content"], "SUMMARY-TOKENS: a long story about bread.",
        "{}",
        twice["summary"]
    );
    let request = agent_request(&model, &second).await;
    let sent = request["messages"].as_array().unwrap();
    assert_eq!(sent.len(), 1 + 2);
    assert!(!request.to_string().contains("first: bread"));
}
