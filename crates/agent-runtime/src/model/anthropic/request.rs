//! The agent's OpenAI-shaped conversation as an Anthropic Messages request: system blocks at
//! the top, tool calls as `tool_use`, tool results as `tool_result` in a user turn, images as
//! base64 `image` blocks, same-role turns merged, signed thinking blocks passed back as they
//! came, and prompt-cache breakpoints on the tools, the system prompt and the moving end.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::config::ModelConfig;
use crate::model::options::{CallOptions, Effort, Thinking};

/// Output limit when neither the call nor the configuration names one.
const DEFAULT_MAX_TOKENS: u32 = 16_384;
/// Anthropic's smallest thinking budget.
const MIN_BUDGET: u32 = 1024;

/// The thinking budget for a choice.
pub fn budget(thinking: Thinking) -> Option<u32> {
    match thinking {
        Thinking::Off => None,
        Thinking::On | Thinking::Effort(Effort::Medium) => Some(8192),
        Thinking::Effort(Effort::Low) => Some(2048),
        Thinking::Effort(Effort::High) => Some(24_576),
    }
}

/// The request body (`stream: true`).
pub fn request(
    cfg: &ModelConfig,
    messages: &[Value],
    tools: &[Arc<Value>],
    options: CallOptions,
) -> Value {
    let (mut system, mut turns) = convert(messages);
    let mut tools: Vec<Value> = tools.iter().map(|d| tool(d)).collect();
    // Breakpoints, at most 4: the tools, the system prompt (stable across a conversation) and
    // the end of the conversation (read back by the next call).
    mark(tools.last_mut());
    mark(system.last_mut());
    mark(
        turns
            .last_mut()
            .and_then(|t| t["content"].as_array_mut())
            .and_then(|c| c.iter_mut().rev().find(|b| cacheable(b))),
    );
    let mut limit = options
        .max_tokens
        .or(cfg.max_tokens)
        .or(cfg.max_output_tokens)
        .unwrap_or(DEFAULT_MAX_TOKENS);
    let mut body = json!({
        "model": cfg.model,
        "messages": turns,
        "stream": true,
    });
    let thinking = budget(options.thinking).filter(|_| cfg.supports_thinking);
    if let Some(mut budget) = thinking {
        // The budget counts within max_tokens, which must exceed it (and the model's limit).
        let ceiling = cfg.max_output_tokens.unwrap_or(u32::MAX);
        if budget >= ceiling {
            budget = ceiling.saturating_sub(MIN_BUDGET).max(MIN_BUDGET);
        }
        limit = limit.max(budget + 4096).min(ceiling.max(budget + 1));
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
    } else if let Some(t) = cfg.temperature {
        // Thinking refuses a temperature other than the default.
        body["temperature"] = json!(t);
    }
    body["max_tokens"] = json!(limit);
    if !system.is_empty() {
        body["system"] = Value::Array(system);
    }
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    body
}

fn cacheable(block: &Value) -> bool {
    match block["type"].as_str() {
        // Thinking blocks take no breakpoint, nor does empty text.
        Some("thinking" | "redacted_thinking") => false,
        Some("text") => block["text"].as_str().is_some_and(|t| !t.is_empty()),
        _ => true,
    }
}

fn mark(block: Option<&mut Value>) {
    if let Some(Value::Object(b)) = block {
        b.insert("cache_control".into(), json!({"type": "ephemeral"}));
    }
}

/// An OpenAI tool definition as Anthropic's.
fn tool(def: &Value) -> Value {
    let f = def.get("function").unwrap_or(def);
    let mut out = Map::new();
    out.insert("name".into(), f["name"].clone());
    if let Some(d) = f.get("description").filter(|d| !d.is_null()) {
        out.insert("description".into(), d.clone());
    }
    let schema = f
        .get("parameters")
        .filter(|p| p.is_object())
        .cloned()
        .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
    out.insert("input_schema".into(), schema);
    Value::Object(out)
}

/// (system blocks, turns).
fn convert(messages: &[Value]) -> (Vec<Value>, Vec<Value>) {
    let mut system = Vec::new();
    let mut turns: Vec<Value> = Vec::new();
    for m in messages {
        let (role, blocks) = match m["role"].as_str().unwrap_or("") {
            // Leading system messages are the system prompt; a later one (a summary) stays
            // where it is, as user text, so the prefix before it is unchanged.
            "system" if turns.is_empty() => {
                system.extend(text_blocks(&m["content"]));
                continue;
            }
            "system" => ("user", text_blocks(&m["content"])),
            "assistant" => ("assistant", assistant_blocks(m)),
            "tool" => ("user", vec![tool_result(m)]),
            _ => ("user", user_blocks(&m["content"])),
        };
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some(last) if last["role"] == role => {
                if let Some(content) = last["content"].as_array_mut() {
                    content.extend(blocks);
                }
            }
            _ => turns.push(json!({"role": role, "content": blocks})),
        }
    }
    (system, turns)
}

fn text_blocks(content: &Value) -> Vec<Value> {
    let text = crate::langchain::content_text(content);
    if text.is_empty() {
        Vec::new()
    } else {
        vec![json!({"type": "text", "text": text})]
    }
}

fn user_blocks(content: &Value) -> Vec<Value> {
    let Value::Array(parts) = content else {
        return text_blocks(content);
    };
    parts
        .iter()
        .filter_map(|p| match p["type"].as_str() {
            Some("image_url") => image(p),
            _ => {
                let text = match p {
                    Value::String(s) => s.as_str(),
                    _ => p["text"].as_str().unwrap_or(""),
                };
                (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
            }
        })
        .collect()
}

/// An `image_url` part: a `data:` URL as a base64 source, another URL as a URL source.
fn image(part: &Value) -> Option<Value> {
    let url = part["image_url"]
        .as_str()
        .or_else(|| part["image_url"]["url"].as_str())?;
    if let Some(rest) = url.strip_prefix("data:") {
        let (mime, data) = rest.split_once(";base64,")?;
        return Some(json!({
            "type": "image",
            "source": {"type": "base64", "media_type": mime, "data": data},
        }));
    }
    Some(json!({"type": "image", "source": {"type": "url", "url": url}}))
}

fn assistant_blocks(m: &Value) -> Vec<Value> {
    // Signed thinking first, as the model wrote it: Anthropic checks it is unchanged.
    let mut blocks: Vec<Value> = m["thinking_blocks"].as_array().cloned().unwrap_or_default();
    blocks.extend(text_blocks(&m["content"]));
    for call in m["tool_calls"].as_array().into_iter().flatten() {
        let args = call["function"]["arguments"].as_str().unwrap_or("{}");
        // Arguments that were not a JSON object (the model was told) go back as an empty
        // input: `tool_use` takes only an object.
        let input = serde_json::from_str::<Value>(args)
            .ok()
            .filter(Value::is_object)
            .unwrap_or_else(|| json!({}));
        blocks.push(json!({
            "type": "tool_use",
            "id": call["id"],
            "name": call["function"]["name"],
            "input": input,
        }));
    }
    blocks
}

fn tool_result(m: &Value) -> Value {
    json!({
        "type": "tool_result",
        "tool_use_id": m["tool_call_id"],
        "content": crate::langchain::content_text(&m["content"]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conversation_becomes_merged_turns_with_blocks_and_breakpoints() {
        let messages = vec![
            json!({"role": "system", "content": "SYS"}),
            json!({"role": "user", "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
            ]}),
            json!({"role": "assistant", "content": null,
                   "thinking_blocks": [{"type": "thinking", "thinking": "hm", "signature": "s1"}],
                   "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{\"x\":1}"}},
                {"id": "c2", "type": "function", "function": {"name": "b", "arguments": "{bad"}}
            ]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": "one"}),
            json!({"role": "tool", "tool_call_id": "c2", "content": "two"}),
        ];
        let tools = vec![Arc::new(
            json!({"type": "function", "function": {"name": "a", "description": "A", "parameters": {"type": "object"}}}),
        )];
        let cfg = ModelConfig::default();
        let body = request(&cfg, &messages, &tools, CallOptions::default());
        assert_eq!(
            body["system"],
            json!([{"type": "text", "text": "SYS", "cache_control": {"type": "ephemeral"}}])
        );
        assert_eq!(
            body["tools"][0],
            json!({"name": "a", "description": "A", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}})
        );
        let turns = body["messages"].as_array().unwrap();
        assert_eq!(turns.len(), 3);
        assert_eq!(
            turns[0]["content"][1]["source"],
            json!({"type": "base64", "media_type": "image/png", "data": "AAAA"})
        );
        assert_eq!(turns[1]["content"][0]["signature"], "s1");
        assert_eq!(turns[1]["content"][1]["input"], json!({"x": 1}));
        assert_eq!(turns[1]["content"][2]["input"], json!({}));
        assert_eq!(turns[2]["role"], "user");
        assert_eq!(turns[2]["content"][1]["tool_use_id"], "c2");
        assert_eq!(turns[2]["content"][1]["cache_control"]["type"], "ephemeral");
        assert!(turns[2]["content"][0].get("cache_control").is_none());
        assert_eq!(body["max_tokens"], 16_384);
        assert!(body.get("thinking").is_none());
    }

    #[test]
    fn thinking_sets_a_budget_below_the_output_limit_only_for_thinking_models() {
        let user = [json!({"role": "user", "content": "hi"})];
        let high = CallOptions {
            max_tokens: None,
            thinking: Thinking::Effort(Effort::High),
        };
        let plain = ModelConfig::default();
        assert!(request(&plain, &user, &[], high).get("thinking").is_none());
        let thinker = ModelConfig {
            supports_thinking: true,
            temperature: Some(0.2),
            ..ModelConfig::default()
        };
        let body = request(&thinker, &user, &[], high);
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 24_576})
        );
        assert!(body["max_tokens"].as_u64().unwrap() > 24_576);
        assert!(body.get("temperature").is_none());
        let capped = ModelConfig {
            supports_thinking: true,
            max_output_tokens: Some(8000),
            ..ModelConfig::default()
        };
        let body = request(&capped, &user, &[], high);
        let budget = body["thinking"]["budget_tokens"].as_u64().unwrap();
        assert!(budget < body["max_tokens"].as_u64().unwrap());
        assert!(body["max_tokens"].as_u64().unwrap() <= 8000);
    }
}
