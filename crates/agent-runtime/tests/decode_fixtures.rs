//! Every recorded OpenAI stream in `fixtures/openai-chat-stream/` decodes (copied from
//! `shared/fixtures`; recorded by others, so they catch assumptions our mock would share).

#![expect(clippy::unwrap_used, reason = "tests")]

use antler_agent_runtime::model::decode::{Accumulator, Delta, Turn};
use antler_agent_runtime::model::wire::{ChatChunk, Usage};
use eventsource_stream::Eventsource;
use futures::StreamExt;

fn decode(name: &str) -> (Vec<Turn>, Vec<Delta>, Option<Usage>) {
    let path = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("tests/fixtures/openai-chat-stream")
        .join(name);
    let bytes = std::fs::read(path).unwrap();
    // Feed the body in small pieces, as the network would.
    let pieces: Vec<Result<bytes::Bytes, std::io::Error>> = bytes
        .chunks(37)
        .map(|c| Ok(bytes::Bytes::copy_from_slice(c)))
        .collect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut events = futures::stream::iter(pieces).eventsource();
        let mut acc = Accumulator::default();
        let mut deltas = Vec::new();
        let mut done = false;
        while let Some(event) = events.next().await {
            let event = event.unwrap();
            if event.data == "[DONE]" {
                done = true;
                break;
            }
            let chunk: ChatChunk = serde_json::from_str(&event.data).unwrap();
            deltas.extend(acc.push(chunk));
        }
        assert!(done, "{name}: no [DONE]");
        let usage = acc.usage;
        (acc.finish().unwrap(), deltas, usage)
    })
}

#[test]
fn plain_text_streams_text_and_usage() {
    let (turns, deltas, usage) = decode("plain-text.sse");
    assert_eq!(turns.len(), 1);
    assert!(!turns[0].content.is_empty());
    assert_eq!(turns[0].finish_reason, "stop");
    assert!(deltas.iter().all(|d| matches!(d, Delta::Content(_))));
    let joined: String = deltas
        .iter()
        .map(|d| match d {
            Delta::Content(t) => t.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(joined, turns[0].content);
    assert!(usage.unwrap().total_tokens > 0);
}

#[test]
fn a_single_tool_call_is_assembled_from_fragments() {
    let (turns, deltas, _) = decode("single-tool-call.sse");
    let t = &turns[0];
    assert_eq!(t.tool_calls.len(), 1);
    assert!(!t.tool_calls[0].id.is_empty());
    assert!(!t.tool_calls[0].name.is_empty());
    let args: serde_json::Value = serde_json::from_str(&t.tool_calls[0].arguments).unwrap();
    assert!(args.is_object());
    assert!(
        deltas
            .iter()
            .filter(|d| matches!(d, Delta::ToolCall { .. }))
            .count()
            > 2
    );
}

#[test]
fn parallel_tool_calls_are_told_apart_by_index() {
    let (turns, _, usage) = decode("parallel-tool-calls.sse");
    let t = &turns[0];
    assert_eq!(t.finish_reason, "tool_calls");
    assert_eq!(t.tool_calls.len(), 2);
    assert_ne!(t.tool_calls[0].id, t.tool_calls[1].id);
    for call in &t.tool_calls {
        serde_json::from_str::<serde_json::Value>(&call.arguments).unwrap();
    }
    assert!(usage.is_some());
}

#[test]
fn length_finish_is_kept() {
    let (turns, _, _) = decode("finish-reason-length.sse");
    assert_eq!(turns[0].finish_reason, "length");
}

#[test]
fn refusals_are_kept_apart_from_content() {
    let (turns, deltas, _) = decode("refusal.sse");
    assert!(!turns[0].refusal.is_empty());
    assert!(turns[0].content.is_empty());
    assert!(deltas.iter().any(|d| matches!(d, Delta::Refusal(_))));
}

#[test]
fn several_choices_are_decoded_separately() {
    let (turns, deltas, _) = decode("n-greater-than-one.sse");
    assert_eq!(turns.len(), 3);
    assert!(
        turns
            .iter()
            .all(|t| !t.content.is_empty() && !t.finish_reason.is_empty())
    );
    let first: String = deltas
        .iter()
        .map(|d| match d {
            Delta::Content(t) => t.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(first, turns[0].content, "deltas follow choice 0 only");
}
