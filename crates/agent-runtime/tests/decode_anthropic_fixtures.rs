//! Every Anthropic Messages stream in `fixtures/anthropic-messages-stream/` decodes (written
//! in the documented format, so they catch assumptions our mock would share).

#![expect(clippy::unwrap_used, reason = "tests")]

use antler_agent_runtime::model::anthropic::Decoder;
use antler_agent_runtime::model::{Completion, Delta, ModelError};
use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::{Value, json};

/// Decodes a fixture fed in small pieces, as the network would; answers the deltas and the
/// completion (or the error the stream reported).
fn decode(name: &str) -> (Vec<Delta>, Result<Completion, ModelError>) {
    let path = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("tests/fixtures/anthropic-messages-stream")
        .join(name);
    let bytes = std::fs::read(path).unwrap();
    let pieces: Vec<Result<bytes::Bytes, std::io::Error>> = bytes
        .chunks(29)
        .map(|c| Ok(bytes::Bytes::copy_from_slice(c)))
        .collect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut events = futures::stream::iter(pieces).eventsource();
        let mut decoder = Decoder::default();
        let mut deltas = Vec::new();
        while let Some(event) = events.next().await {
            let event = event.unwrap();
            let data: Value = serde_json::from_str(&event.data).unwrap();
            assert_eq!(
                data["type"], event.event,
                "{name}: the event name repeats the type"
            );
            match decoder.push_json(&data) {
                Ok((d, complete)) => {
                    deltas.extend(d);
                    if complete {
                        break;
                    }
                }
                Err(e) => return (deltas, Err(e)),
            }
        }
        (deltas, decoder.into_completion())
    })
}

fn text(deltas: &[Delta], reasoning: bool) -> String {
    deltas
        .iter()
        .filter_map(|d| match d {
            Delta::Content(t) if !reasoning => Some(t.as_str()),
            Delta::Reasoning(t) if reasoning => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn plain_text_streams_text_and_maps_end_turn_to_stop() {
    let (deltas, done) = decode("plain-text.sse");
    let done = done.unwrap();
    assert_eq!(done.turn.content, "Hello!");
    assert_eq!(text(&deltas, false), "Hello!");
    assert_eq!(done.turn.finish_reason, "stop");
    let u = done.usage.unwrap();
    assert_eq!(
        (u.prompt_tokens, u.completion_tokens, u.total_tokens),
        (25, 15, 40)
    );
    assert_eq!(done.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
}

#[test]
fn a_tool_use_is_assembled_from_input_json_deltas() {
    let (deltas, done) = decode("single-tool-use.sse");
    let t = done.unwrap().turn;
    assert!(t.content.starts_with("Okay"));
    assert_eq!(t.finish_reason, "tool_calls");
    assert_eq!(t.tool_calls.len(), 1);
    assert_eq!(t.tool_calls[0].id, "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
    assert_eq!(t.tool_calls[0].name, "get_weather");
    let args: Value = serde_json::from_str(&t.tool_calls[0].arguments).unwrap();
    assert_eq!(
        args,
        json!({"location": "San Francisco, CA", "unit": "fahrenheit"})
    );
    let fragments = deltas
        .iter()
        .filter(|d| matches!(d, Delta::ToolCall { index: 0, .. }))
        .count();
    assert!(fragments > 3, "the call streams in pieces: {fragments}");
}

#[test]
fn parallel_tool_uses_keep_their_order_and_an_empty_input_is_empty() {
    let (_, done) = decode("parallel-tool-use.sse");
    let t = done.unwrap().turn;
    let names: Vec<&str> = t.tool_calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["get_weather", "get_time", "list_files"]);
    assert_eq!(t.tool_calls[1].arguments, r#"{"timezone": "Europe/Paris"}"#);
    assert_eq!(t.tool_calls[2].arguments, "");
    assert_eq!(t.finish_reason, "tool_calls");
}

#[test]
fn thinking_streams_as_reasoning_and_keeps_its_signed_block() {
    let (deltas, done) = decode("thinking.sse");
    let t = done.unwrap().turn;
    assert!(t.reasoning.contains("GCD(1071, 462) = 21"));
    assert_eq!(text(&deltas, true), t.reasoning);
    assert_eq!(
        t.thinking_blocks,
        vec![json!({"type": "thinking", "thinking": t.reasoning,
                    "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"})]
    );
    assert!(t.content.contains("**21**"));
}

#[test]
fn redacted_thinking_is_kept_as_it_came_before_the_visible_block() {
    let (_, done) = decode("redacted-thinking.sse");
    let t = done.unwrap().turn;
    assert_eq!(t.thinking_blocks.len(), 2);
    assert_eq!(t.thinking_blocks[0]["type"], "redacted_thinking");
    assert!(
        t.thinking_blocks[0]["data"]
            .as_str()
            .unwrap()
            .starts_with("EmwKAhgB")
    );
    assert_eq!(t.thinking_blocks[1]["signature"], "ErUBCkYIAxgCIkB0Pr1");
    assert_eq!(t.reasoning, "The rest of the reasoning is visible.");
}

#[test]
fn an_error_event_fails_the_call_with_its_type_and_message() {
    let (deltas, done) = decode("error-overloaded.sse");
    assert_eq!(text(&deltas, false), "Let me");
    assert_eq!(
        done.unwrap_err(),
        ModelError::Status {
            status: 529,
            message: "overloaded_error: Overloaded".into()
        }
    );
}

#[test]
fn cache_reads_and_writes_count_in_the_prompt_and_max_tokens_is_length() {
    let (_, done) = decode("cache-read-usage.sse");
    let done = done.unwrap();
    assert_eq!(done.turn.finish_reason, "length");
    let u = done.usage.unwrap();
    assert_eq!(u.prompt_tokens, 21 + 188 + 1810);
    assert_eq!(u.cached_tokens, 1810);
    assert_eq!(u.cache_write_tokens, 188);
    assert_eq!(u.completion_tokens, 503);
    assert_eq!(u.total_tokens, 2019 + 503);
}

#[test]
fn a_stream_without_message_stop_is_incomplete() {
    let mut d = Decoder::default();
    d.push_json(&json!({"type": "message_start", "message": {"usage": {"input_tokens": 3}}}))
        .unwrap();
    d.push_json(&json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}))
        .unwrap();
    assert!(matches!(
        d.into_completion(),
        Err(ModelError::Incomplete(_))
    ));
}
