//! The suggestions call: its request (the conversation's last exchange, bounded) and a
//! defensive reading of its answer.

use antler_protocol::messages::Message;
use serde_json::{Value, json};

/// The system message of the call (the scripted test models match on its first words).
pub const SUGGESTIONS_SYSTEM: &str = "You suggest follow-up messages. Given the last exchange \
of a conversation between a user and an assistant, write up to three short messages the user \
might send next: natural follow-up questions or requests that build on the answer, each under \
80 characters, written as the user would write them, in the same language as the user's \
message. Answer with JSON only, no other text: {\"suggestions\": [\"…\", \"…\", \"…\"]}";

/// Most suggestions kept.
pub const MAX_SUGGESTIONS: usize = 3;
/// Longest suggestion kept, in characters (longer ones are cut).
pub const MAX_CHARS: usize = 120;
/// Characters of the user's message sent.
const USER_CHARS: usize = 2_000;
/// Characters of the answer sent.
const ANSWER_CHARS: usize = 4_000;

/// The answer suggestions would follow: the last message, when it is the model's answer
/// with text and no tool calls, and the person's message before it. `None` otherwise.
pub fn last_exchange(messages: &[Message]) -> Option<(&str, &str, &str)> {
    let Some(Message::Ai(answer)) = messages.last() else {
        return None;
    };
    if answer.content.trim().is_empty() || !answer.tool_calls.is_empty() {
        return None;
    }
    let question = messages.iter().rev().find_map(|m| match m {
        Message::Human(h) => Some(h.content.as_str()),
        _ => None,
    })?;
    Some((answer.id.as_str(), question, answer.content.as_str()))
}

/// The call's messages for one exchange.
pub fn request(question: &str, answer: &str) -> Vec<Value> {
    let prompt = format!(
        "User: {}\n\nAssistant: {}",
        cut(question.trim(), USER_CHARS),
        cut(answer.trim(), ANSWER_CHARS)
    );
    vec![
        json!({"role": "system", "content": SUGGESTIONS_SYSTEM}),
        json!({"role": "user", "content": prompt}),
    ]
}

/// The suggestions in a model's answer: JSON (`{"suggestions": [...]}` or a bare list,
/// fenced or amid text), else list-like lines; trimmed, cut to [`MAX_CHARS`], without
/// empties and duplicates, at most [`MAX_SUGGESTIONS`].
pub fn parse(text: &str) -> Vec<String> {
    let items = json_items(text).unwrap_or_else(|| line_items(text));
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let clean = cut(
            item.trim()
                .trim_matches(|c: char| c == '"' || c == '\'' || c == '“' || c == '”')
                .trim(),
            MAX_CHARS,
        );
        if clean.is_empty() || out.iter().any(|o| o.to_lowercase() == clean.to_lowercase()) {
            continue;
        }
        out.push(clean);
        if out.len() == MAX_SUGGESTIONS {
            break;
        }
    }
    out
}

/// The strings of the first JSON list or `suggestions`-like object in `text`.
fn json_items(text: &str) -> Option<Vec<String>> {
    let start = text.find(['{', '['])?;
    let candidates = [text.rfind('}'), text.rfind(']')];
    let value = candidates
        .into_iter()
        .flatten()
        .filter(|&end| end > start)
        .find_map(|end| serde_json::from_str::<Value>(&text[start..=end]).ok())?;
    let list = match &value {
        Value::Array(items) => items,
        Value::Object(map) => ["suggestions", "questions", "follow_ups", "followups"]
            .iter()
            .find_map(|k| map.get(*k).and_then(Value::as_array))
            .or_else(|| map.values().find_map(Value::as_array))?,
        _ => return None,
    };
    Some(
        list.iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => ["text", "question", "suggestion"]
                    .iter()
                    .find_map(|k| o.get(*k).and_then(Value::as_str))
                    .map(str::to_string),
                _ => None,
            })
            .collect(),
    )
}

/// Lines marked as list items (`-`, `*`, `•`, `1.`, `2)`).
fn line_items(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix(['-', '*', '•'])
                .or_else(|| {
                    let digits = line.find(|c: char| !c.is_ascii_digit())?;
                    (digits > 0)
                        .then(|| line[digits..].strip_prefix(['.', ')']))
                        .flatten()
                })?
                .trim();
            (!rest.is_empty()).then(|| rest.to_string())
        })
        .collect()
}

/// `text` cut to `chars` characters, with `…` when cut.
fn cut(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_string();
    }
    let kept: String = text.chars().take(chars.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

#[cfg(test)]
mod tests {
    use antler_protocol::messages::{AiMessage, HumanMessage, ToolCall};

    use super::*;

    #[test]
    fn reads_an_object_a_list_or_fenced_json() {
        assert_eq!(
            parse(r#"{"suggestions": ["Why?", "How?"]}"#),
            ["Why?", "How?"]
        );
        assert_eq!(parse(r#"["One", "Two"]"#), ["One", "Two"]);
        let fenced = "Here you go:\n```json\n{\"suggestions\": [\"Show an example\"]}\n```";
        assert_eq!(parse(fenced), ["Show an example"]);
        assert_eq!(
            parse(r#"{"questions": [{"text": "Tell me more"}, 3, null]}"#),
            ["Tell me more"]
        );
    }

    #[test]
    fn drops_empties_and_duplicates_and_keeps_three() {
        let text = r#"{"suggestions": ["A", " ", "a", "\"B\"", "C", "D"]}"#;
        assert_eq!(parse(text), ["A", "B", "C"]);
    }

    #[test]
    fn cuts_long_suggestions() {
        let long = "word ".repeat(60);
        let got = parse(&format!(r#"["{long}"]"#));
        assert_eq!(got.len(), 1);
        assert!(got[0].chars().count() <= MAX_CHARS && got[0].ends_with('…'));
    }

    #[test]
    fn falls_back_to_list_lines_and_else_finds_nothing() {
        assert_eq!(
            parse("1. First idea\n2) Second idea\n- Third\n* Fourth"),
            ["First idea", "Second idea", "Third"]
        );
        assert!(parse("I cannot think of anything.").is_empty());
        assert!(parse("{broken json").is_empty());
        assert!(parse(r#"{"suggestions": "not a list"}"#).is_empty());
    }

    fn ai(id: &str, text: &str) -> Message {
        Message::Ai(AiMessage {
            id: id.into(),
            content: text.into(),
            ..AiMessage::default()
        })
    }

    fn human(text: &str) -> Message {
        Message::Human(HumanMessage {
            id: "h".into(),
            content: text.into(),
            ..HumanMessage::default()
        })
    }

    #[test]
    fn only_a_final_text_answer_gets_suggestions() {
        let done = [human("Hi"), ai("a1", "Hello!")];
        assert_eq!(last_exchange(&done), Some(("a1", "Hi", "Hello!")));
        assert_eq!(last_exchange(&[human("Hi")]), None);
        assert_eq!(last_exchange(&[human("Hi"), ai("a1", "  ")]), None);
        let mut calling = AiMessage {
            id: "a2".into(),
            content: "Let me look".into(),
            ..AiMessage::default()
        };
        calling.tool_calls.push(ToolCall {
            id: "c".into(),
            name: "ask_clarification".into(),
            args: serde_json::json!({}),
            kind: "tool_call".into(),
        });
        assert_eq!(last_exchange(&[human("Hi"), Message::Ai(calling)]), None);
    }

    #[test]
    fn the_request_is_bounded() {
        let request = request(&"q".repeat(10_000), &"a".repeat(10_000));
        let text = request[1]["content"].as_str().unwrap();
        assert!(text.chars().count() < USER_CHARS + ANSWER_CHARS + 40);
        assert_eq!(request[0]["content"], SUGGESTIONS_SYSTEM);
    }
}
