//! The AI and tool messages clients may send in `input.messages` besides the person's own:
//! LangGraph adds them to the state as they are. Clients such as the Agent Chat UI send a
//! placeholder result for every tool call they think unanswered; a result for a call that
//! has one already is dropped, one for no known call is refused.

use std::collections::HashSet;

use antler_protocol::messages::{AiMessage, Message, ToolCall, ToolMessage, ToolStatus};
use serde_json::Value;

use crate::langchain::{content_text, new_id};

fn id_of(m: &Value) -> String {
    m.get("id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map_or_else(new_id, str::to_owned)
}

/// An `ai` / `assistant` message: its text and tool calls (LangChain `{name, args, id}` or
/// OpenAI `{id, function: {name, arguments}}`).
pub fn ai_message(i: usize, m: &Value) -> Result<Message, String> {
    let mut tool_calls = Vec::new();
    for (j, call) in m
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let function = call.get("function");
        let name = call
            .get("name")
            .or_else(|| function.and_then(|f| f.get("name")))
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| format!("input.messages[{i}].tool_calls[{j}]: a name is required"))?;
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| format!("input.messages[{i}].tool_calls[{j}]: an id is required"))?;
        let args = match (call.get("args"), function.and_then(|f| f.get("arguments"))) {
            (Some(args), _) => args.clone(),
            (None, Some(Value::String(text))) => serde_json::from_str(text).map_err(|e| {
                format!("input.messages[{i}].tool_calls[{j}]: arguments are not JSON: {e}")
            })?,
            (None, Some(args)) => args.clone(),
            (None, None) => Value::Object(Default::default()),
        };
        tool_calls.push(ToolCall {
            name: name.to_string(),
            args,
            id: id.to_string(),
            kind: "tool_call".into(),
        });
    }
    Ok(Message::Ai(AiMessage {
        id: id_of(m),
        content: content_text(m.get("content").unwrap_or(&Value::Null)),
        tool_calls,
        ..Default::default()
    }))
}

/// A `tool` message: the result of the call `tool_call_id`.
pub fn tool_message(i: usize, m: &Value) -> Result<Message, String> {
    let call = m
        .get("tool_call_id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("input.messages[{i}]: a tool message needs its tool_call_id"))?;
    Ok(Message::Tool(ToolMessage {
        id: id_of(m),
        content: content_text(m.get("content").unwrap_or(&Value::Null)),
        tool_call_id: call.to_string(),
        name: m.get("name").and_then(Value::as_str).map(str::to_owned),
        // Lenient, as clients write it: anything but `error` is a success.
        status: match m.get("status").and_then(Value::as_str) {
            Some("error") => ToolStatus::Error,
            _ => ToolStatus::Success,
        },
        artifact: None,
    }))
}

/// Records the calls an AI message makes and the calls a tool message answers.
fn note(m: &Message, calls: &mut HashSet<String>, answered: &mut HashSet<String>) {
    match m {
        Message::Ai(a) => calls.extend(a.tool_calls.iter().map(|c| c.id.clone())),
        Message::Tool(t) => {
            answered.insert(t.tool_call_id.clone());
        }
        _ => {}
    }
}

/// `input` as it joins `history`: tool results for calls already answered are dropped; a
/// result for a call nobody made is refused.
pub fn reconcile(input: Vec<Message>, history: &[Message]) -> Result<Vec<Message>, String> {
    let mut calls: HashSet<String> = HashSet::new();
    let mut answered: HashSet<String> = HashSet::new();
    for m in history {
        note(m, &mut calls, &mut answered);
    }
    let mut kept = Vec::with_capacity(input.len());
    for (i, m) in input.into_iter().enumerate() {
        if let Message::Tool(t) = &m {
            if !calls.contains(&t.tool_call_id) {
                return Err(format!(
                    "input.messages[{i}]: no tool call '{}' waits for a result",
                    t.tool_call_id
                ));
            }
            if answered.contains(&t.tool_call_id) {
                continue;
            }
        }
        note(&m, &mut calls, &mut answered);
        kept.push(m);
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use antler_protocol::messages::HumanMessage;
    use serde_json::json;

    use super::*;

    fn ai_with_call(id: &str) -> Message {
        ai_message(0, &json!({"type": "ai", "content": "", "tool_calls": [{"name": "bash", "args": {}, "id": id}]})).unwrap()
    }

    #[test]
    fn placeholders_for_answered_calls_are_dropped_and_unknown_calls_refused() {
        let history = vec![
            ai_with_call("c1"),
            tool_message(0, &json!({"tool_call_id": "c1", "content": "done"})).unwrap(),
            ai_with_call("c2"),
        ];
        let input = vec![
            tool_message(
                0,
                &json!({"tool_call_id": "c1", "content": "Successfully handled tool call."}),
            )
            .unwrap(),
            tool_message(
                1,
                &json!({"tool_call_id": "c2", "content": "Successfully handled tool call."}),
            )
            .unwrap(),
            Message::Human(HumanMessage {
                id: "h".into(),
                content: "next".into(),
                ..Default::default()
            }),
        ];
        let kept = reconcile(input, &history).unwrap();
        assert_eq!(kept.len(), 2);
        assert!(matches!(&kept[0], Message::Tool(t) if t.tool_call_id == "c2"));
        let stray = vec![tool_message(0, &json!({"tool_call_id": "zz", "content": "x"})).unwrap()];
        assert!(reconcile(stray, &history).unwrap_err().contains("'zz'"));
        // A call sent in the same input can be answered right after it.
        let pair = vec![
            ai_with_call("c3"),
            tool_message(1, &json!({"tool_call_id": "c3", "content": "ok"})).unwrap(),
        ];
        assert_eq!(reconcile(pair, &history).unwrap().len(), 2);
    }

    #[test]
    fn openai_shaped_calls_are_read() {
        let m = ai_message(0, &json!({"role": "assistant", "content": "run it", "tool_calls": [
            {"id": "c9", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}
        ]}))
        .unwrap();
        let Message::Ai(a) = m else {
            panic!("an AI message")
        };
        assert_eq!(a.tool_calls[0].args, json!({"command": "ls"}));
        assert!(
            ai_message(0, &json!({"tool_calls": [{"name": "x"}]}))
                .unwrap_err()
                .contains("id is required")
        );
        assert!(
            tool_message(0, &json!({"content": "x"}))
                .unwrap_err()
                .contains("tool_call_id")
        );
    }
}
