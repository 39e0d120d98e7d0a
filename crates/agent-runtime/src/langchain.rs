//! LangChain message shaping, all in one place: run input (OpenAI or LangChain shapes) into
//! messages, messages into a Chat Completions request, a model's answer into an AI message
//! and its stream into chunks, tool results into tool messages, and the repair of tool calls
//! left without a result.

use antler_protocol::messages::{
    AiMessage, AiMessageChunk, HumanMessage, InvalidToolCall, Message, ToolCall, ToolCallChunk,
    ToolMessage, ToolStatus, UsageMetadata,
};
use serde_json::{Map, Value, json};

use crate::config::ModelConfig;
use crate::model::{Completion, Delta};
use crate::tools::ToolOutput;

/// A new message id.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Text of a content value: a string, or the text parts of a content-block list.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.clone()),
                _ => p.get("text").and_then(Value::as_str).map(str::to_owned),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Parses `input.messages`: `{"role": "user", "content": …}` or LangChain `{"type": "human",
/// …}`, and the AI and tool messages LangGraph clients add ([`crate::input`]).
pub fn parse_input(input: Option<&Value>) -> Result<Vec<Message>, String> {
    let Some(input) = input.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    if !input.is_object() {
        return Err("input must be an object with a \"messages\" list".into());
    }
    // `{}` carries no new messages, like `null`.
    let Some(list) = input.get("messages").filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let list = match list {
        Value::Array(items) => items.clone(),
        Value::Object(_) => vec![list.clone()],
        _ => return Err("input.messages must be a list".into()),
    };
    list.iter()
        .enumerate()
        .map(|(i, m)| {
            let kind = m
                .get("type")
                .or_else(|| m.get("role"))
                .and_then(Value::as_str)
                .unwrap_or("");
            match kind {
                "human" | "user" => {}
                "ai" | "assistant" => return crate::input::ai_message(i, m),
                "tool" => return crate::input::tool_message(i, m),
                _ => {
                    return Err(format!(
                        "input.messages[{i}]: messages are of type human, ai or tool (got {kind:?})"
                    ));
                }
            }
            let (content, images) =
                crate::images::split_content(m.get("content").unwrap_or(&Value::Null))
                    .map_err(|why| format!("input.messages[{i}].{why}"))?;
            if content.trim().is_empty() && images.is_empty() {
                return Err(format!("input.messages[{i}]: content must not be empty"));
            }
            let id = m
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map_or_else(new_id, str::to_owned);
            Ok(Message::Human(HumanMessage {
                id,
                content,
                images,
                ..Default::default()
            }))
        })
        .collect()
}

/// The Chat Completions messages for a system prompt and a conversation; `vision` says
/// whether the model is given the people's images or told they were attached.
pub fn to_openai(system: &str, messages: &[Message], vision: bool) -> Vec<Value> {
    let mut out = vec![json!({"role": "system", "content": system})];
    // Images the agent viewed (`view_image`) or a tool returned (MCP) follow the tool
    // results of their step as a user message: tool messages carry text only in Chat
    // Completions.
    let mut viewed: Vec<Value> = Vec::new();
    for m in messages {
        if !matches!(m, Message::Tool(_)) && !viewed.is_empty() {
            out.push(json!({"role": "user", "content": std::mem::take(&mut viewed)}));
        }
        if let Message::Tool(t) = m
            && vision
            && let Some(artifact) = &t.artifact
        {
            // One image from `view_image`, any number from an MCP tool.
            let images = artifact.get("image").into_iter().chain(
                artifact
                    .get("images")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten(),
            );
            for image in images {
                viewed.extend(crate::images::viewed_parts(image));
            }
        }
        match m {
            Message::System(s) => out.push(json!({"role": "system", "content": s.content})),
            Message::Human(h) => out.push(json!({
                "role": "user",
                "content": crate::images::user_content(&h.content, &h.images, vision),
            })),
            Message::Ai(a) => out.push(ai_to_openai(a)),
            Message::Tool(t) => out.push(json!({
                "role": "tool",
                "tool_call_id": t.tool_call_id,
                "content": t.content,
            })),
        }
    }
    if !viewed.is_empty() {
        out.push(json!({"role": "user", "content": viewed}));
    }
    out
}

fn ai_to_openai(a: &AiMessage) -> Value {
    let mut calls: Vec<Value> = a
        .tool_calls
        .iter()
        .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.args.to_string()}}))
        .collect();
    calls.extend(a.invalid_tool_calls.iter().map(|c| {
        json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.args}})
    }));
    let content = if a.content.is_empty() && !calls.is_empty() {
        Value::Null
    } else {
        json!(a.content)
    };
    let mut msg = json!({"role": "assistant", "content": content});
    if !calls.is_empty() {
        msg["tool_calls"] = json!(calls);
    }
    // Anthropic's signed thinking goes back unchanged; the OpenAI format drops it.
    if let Some(blocks) = a.additional_kwargs.get("thinking_blocks") {
        msg["thinking_blocks"] = blocks.clone();
    }
    msg
}

/// Every tool call of an AI message (valid or not) as (id, name).
pub fn call_ids(a: &AiMessage) -> Vec<(String, String)> {
    a.tool_calls
        .iter()
        .map(|c| (c.id.clone(), c.name.clone()))
        .chain(
            a.invalid_tool_calls
                .iter()
                .map(|c| (c.id.clone(), c.name.clone())),
        )
        .collect()
}

/// Inserts an "interrupted" tool message after every AI message whose tool calls have no
/// result (a run cancelled or broken mid-tool), so the conversation is valid for the model.
/// Returns how many were added.
pub fn repair_dangling_tool_calls(messages: &mut Vec<Message>) -> usize {
    let mut added = 0;
    let mut i = 0;
    while i < messages.len() {
        if let Message::Ai(ai) = &messages[i] {
            let calls = call_ids(ai);
            let mut j = i + 1;
            let mut answered = std::collections::HashSet::new();
            while let Some(Message::Tool(t)) = messages.get(j) {
                answered.insert(t.tool_call_id.clone());
                j += 1;
            }
            for (id, name) in calls.into_iter().filter(|(id, _)| !answered.contains(id)) {
                messages.insert(
                    j,
                    Message::Tool(ToolMessage {
                        id: new_id(),
                        content: "Error: this tool call was interrupted before it finished; its result is unknown.".into(),
                        tool_call_id: id,
                        name: Some(name),
                        status: ToolStatus::Error,
                        artifact: None,
                    }),
                );
                j += 1;
                added += 1;
            }
            i = j;
        } else {
            i += 1;
        }
    }
    added
}

/// A streamed fragment as a LangChain chunk of the message `id`.
pub fn chunk(id: &str, delta: Delta) -> AiMessageChunk {
    let mut c = AiMessageChunk {
        kind: "AIMessageChunk".into(),
        id: id.to_string(),
        ..Default::default()
    };
    match delta {
        Delta::Content(t) | Delta::Refusal(t) => c.content = t,
        Delta::Reasoning(t) => {
            c.additional_kwargs
                .insert("reasoning_content".into(), json!(t));
        }
        Delta::ToolCall {
            index,
            id,
            name,
            arguments,
        } => c.tool_call_chunks.push(ToolCallChunk {
            name,
            args: Some(arguments),
            id,
            index,
            kind: "tool_call_chunk".into(),
        }),
    }
    c
}

/// The last chunk of a streamed answer: finish reason, the configured model's name, token
/// counts and cost.
pub fn final_chunk(id: &str, done: &Completion, model: &ModelConfig) -> AiMessageChunk {
    let mut last = AiMessageChunk {
        kind: "AIMessageChunk".into(),
        id: id.to_string(),
        ..Default::default()
    };
    last.response_metadata
        .insert("finish_reason".into(), json!(done.turn.finish_reason));
    add_usage_metadata(&mut last.response_metadata, done, model);
    last.usage_metadata = usage(done);
    last
}

fn usage(done: &Completion) -> Option<UsageMetadata> {
    done.usage.as_ref().map(crate::usage::usage_metadata)
}

/// `model_name` (the configured name, as clients pick it) and `cost_usd` (when the model
/// has prices and the call reported its tokens).
fn add_usage_metadata(meta: &mut Map<String, Value>, done: &Completion, model: &ModelConfig) {
    meta.insert("model_name".into(), json!(model.name));
    if let Some(cost) = done
        .usage
        .as_ref()
        .and_then(|u| crate::usage::call_cost(model, u))
    {
        meta.insert("cost_usd".into(), json!(cost));
    }
}

/// A model's complete answer as the AI message `id`: tool calls whose arguments are not a
/// JSON object are kept apart as invalid (the model is told), reasoning and refusals go to
/// `additional_kwargs`.
pub fn ai_message(done: &Completion, id: &str, model: &ModelConfig) -> AiMessage {
    let turn = &done.turn;
    let mut tool_calls = Vec::new();
    let mut invalid = Vec::new();
    for call in &turn.tool_calls {
        let id = if call.id.is_empty() {
            new_id()
        } else {
            call.id.clone()
        };
        let raw = if call.arguments.trim().is_empty() {
            "{}"
        } else {
            &call.arguments
        };
        match serde_json::from_str::<Value>(raw) {
            Ok(args @ Value::Object(_)) => tool_calls.push(ToolCall {
                name: call.name.clone(),
                args,
                id,
                kind: "tool_call".into(),
            }),
            Ok(other) => invalid.push(InvalidToolCall {
                name: call.name.clone(),
                args: call.arguments.clone(),
                id,
                error: format!("arguments must be a JSON object, not {other}"),
                kind: "invalid_tool_call".into(),
            }),
            Err(e) => invalid.push(InvalidToolCall {
                name: call.name.clone(),
                args: call.arguments.clone(),
                id,
                error: format!("invalid JSON: {e}"),
                kind: "invalid_tool_call".into(),
            }),
        }
    }
    let mut kwargs = Map::new();
    if !turn.reasoning.is_empty() {
        kwargs.insert("reasoning_content".into(), json!(turn.reasoning));
    }
    if !turn.refusal.is_empty() {
        kwargs.insert("refusal".into(), json!(turn.refusal));
    }
    if !turn.thinking_blocks.is_empty() {
        kwargs.insert("thinking_blocks".into(), json!(turn.thinking_blocks));
    }
    let mut meta = Map::new();
    meta.insert("finish_reason".into(), json!(turn.finish_reason));
    add_usage_metadata(&mut meta, done, model);
    let content = if turn.content.is_empty() && !turn.refusal.is_empty() {
        turn.refusal.clone()
    } else {
        turn.content.clone()
    };
    AiMessage {
        id: id.to_string(),
        content,
        tool_calls,
        invalid_tool_calls: invalid,
        additional_kwargs: kwargs,
        response_metadata: meta,
        usage_metadata: usage(done),
    }
}

/// A tool's result as the tool message answering `call_id`.
pub fn tool_message(call_id: &str, name: &str, out: &ToolOutput) -> ToolMessage {
    ToolMessage {
        id: new_id(),
        content: out.content.clone(),
        tool_call_id: call_id.to_string(),
        name: Some(name.to_string()),
        status: if out.is_error {
            ToolStatus::Error
        } else {
            ToolStatus::Success
        },
        artifact: out.artifact.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ai_with_calls(ids: &[&str]) -> Message {
        Message::Ai(AiMessage {
            id: new_id(),
            tool_calls: ids
                .iter()
                .map(|id| ToolCall {
                    name: "bash".into(),
                    args: json!({"command": "ls"}),
                    id: (*id).into(),
                    kind: "tool_call".into(),
                })
                .collect(),
            ..Default::default()
        })
    }

    fn tool(id: &str) -> Message {
        Message::Tool(ToolMessage {
            id: new_id(),
            content: "ok".into(),
            tool_call_id: id.into(),
            name: None,
            status: ToolStatus::Success,
            artifact: None,
        })
    }

    #[test]
    fn input_accepts_openai_and_langchain_shapes() {
        let msgs = parse_input(Some(&json!({"messages": [
            {"role": "user", "content": "hi"},
            {"type": "human", "content": [{"type": "text", "text": "block"}], "id": "m1"}
        ]})))
        .unwrap();
        assert_eq!(msgs.len(), 2);
        assert!(matches!(&msgs[1], Message::Human(h) if h.content == "block" && h.id == "m1"));
        assert!(
            parse_input(Some(
                &json!({"messages": [{"role": "system", "content": "x"}]})
            ))
            .is_err()
        );
        assert!(
            parse_input(Some(
                &json!({"messages": [{"role": "user", "content": "  "}]})
            ))
            .is_err()
        );
        assert!(parse_input(Some(&json!("text"))).is_err());
        assert!(parse_input(None).unwrap().is_empty());
    }

    #[test]
    fn dangling_tool_calls_get_interrupted_results() {
        let mut msgs = vec![
            ai_with_calls(&["a", "b"]),
            tool("a"),
            Message::Human(HumanMessage::default()),
        ];
        assert_eq!(repair_dangling_tool_calls(&mut msgs), 1);
        assert!(
            matches!(&msgs[2], Message::Tool(t) if t.tool_call_id == "b" && t.status == ToolStatus::Error)
        );
        assert!(matches!(&msgs[3], Message::Human(_)));
        assert_eq!(repair_dangling_tool_calls(&mut msgs), 0, "idempotent");
        let mut trailing = vec![ai_with_calls(&["x"])];
        assert_eq!(repair_dangling_tool_calls(&mut trailing), 1);
    }

    #[test]
    fn conversations_become_chat_completions_messages() {
        let msgs = vec![
            Message::Human(HumanMessage {
                id: "h".into(),
                content: "hi".into(),
                ..Default::default()
            }),
            ai_with_calls(&["c1"]),
            tool("c1"),
        ];
        let out = to_openai("SYS", &msgs, false);
        assert_eq!(out[0], json!({"role": "system", "content": "SYS"}));
        assert_eq!(out[1]["role"], "user");
        assert_eq!(out[2]["content"], Value::Null);
        assert_eq!(
            out[2]["tool_calls"][0]["function"]["arguments"],
            r#"{"command":"ls"}"#
        );
        assert_eq!(
            out[3],
            json!({"role": "tool", "tool_call_id": "c1", "content": "ok"})
        );
    }
}
