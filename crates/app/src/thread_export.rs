//! Exporting a conversation: Markdown to read (messages with their roles, tool calls and
//! reasoning folded, artifacts linked) or JSON to keep (the LangGraph thread, its state and
//! its history).

use std::fmt::Write as _;

use antler_protocol::messages::{AiMessage, Message, ToolMessage};
use antler_protocol::thread_search::ExportFormat;
use antler_protocol::threads::Thread;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};

use crate::Caller;
use crate::runs::{MAX_PAGE, RunOpError};

/// Characters of a tool result the Markdown keeps (the JSON keeps all).
pub const MAX_RESULT_CHARS: usize = 2000;
/// Characters of a file name made from a title (before the extension).
const MAX_NAME_CHARS: usize = 80;

/// Path characters kept as they are in an artifact link (`/` separates segments).
const PATH_KEEP: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// An exported conversation, ready to send as a file.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadExport {
    /// A file name made from the title (safe on every system; `.md` or `.json`).
    pub filename: String,
    /// The media type.
    pub content_type: &'static str,
    /// The file.
    pub body: String,
}

impl crate::App {
    /// The caller's thread as a file of `format`.
    pub async fn export_thread(
        &self,
        caller: &Caller,
        id: &str,
        format: ExportFormat,
    ) -> Result<ThreadExport, RunOpError> {
        let thread = self.threads.get(caller, id).await?;
        let stem = file_stem(&thread);
        Ok(match format {
            ExportFormat::Markdown => ThreadExport {
                filename: format!("{stem}.md"),
                content_type: "text/markdown; charset=utf-8",
                body: markdown(&thread, chrono::Utc::now()),
            },
            ExportFormat::Json => {
                let state = self.runs.state(caller, id).await?;
                let history = self.runs.history(caller, id, MAX_PAGE, None).await?;
                let doc = json!({"thread": thread, "state": state, "history": history});
                ThreadExport {
                    filename: format!("{stem}.json"),
                    content_type: "application/json",
                    body: serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into()),
                }
            }
        })
    }
}

/// The thread's title, if it has one (the metadata's, as the UI keeps it, else the values').
fn title(thread: &Thread) -> Option<&str> {
    thread
        .metadata
        .get("title")
        .and_then(Value::as_str)
        .or(thread.values.title.as_deref())
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

/// A file name stem from the title: letters and digits of any script, `-` for the rest, at
/// most [`MAX_NAME_CHARS`]; `conversation` when nothing is left.
pub fn file_stem(thread: &Thread) -> String {
    let mut out = String::new();
    for c in title(thread).unwrap_or_default().chars() {
        if c.is_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.chars().count() >= MAX_NAME_CHARS {
            break;
        }
    }
    let out = out.trim_matches('-');
    if out.is_empty() {
        "conversation".into()
    } else {
        out.to_string()
    }
}

/// The conversation as Markdown.
pub fn markdown(thread: &Thread, now: chrono::DateTime<chrono::Utc>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {}\n",
        one_line(title(thread).unwrap_or("Conversation"))
    );
    let _ = writeln!(
        out,
        "_Started {}, last updated {}; exported {}._\n",
        day_time(&thread.created_at),
        day_time(&thread.updated_at),
        now.format("%Y-%m-%d %H:%M UTC")
    );
    let messages = &thread.values.messages;
    // Looked up by call id once, not by scanning every message for each call (long
    // conversations have thousands).
    let mut results = std::collections::HashMap::new();
    let mut calls = std::collections::HashSet::new();
    for m in messages {
        match m {
            Message::Tool(t) => {
                results.entry(t.tool_call_id.as_str()).or_insert(t);
            }
            Message::Ai(a) => calls.extend(a.tool_calls.iter().map(|c| c.id.as_str())),
            _ => {}
        }
    }
    let result_of = |call: &str| results.get(call).copied();
    for message in messages {
        match message {
            Message::Human(m) => {
                let _ = writeln!(out, "## User\n\n{}\n", m.content.trim());
                if !m.images.is_empty() {
                    let _ = writeln!(out, "_({} image(s) attached)_\n", m.images.len());
                }
            }
            Message::Ai(m) => ai(&mut out, m, &result_of),
            Message::System(m) => {
                let _ = writeln!(out, "## System\n\n{}\n", m.content.trim());
            }
            Message::Tool(t) => {
                // Results of calls the conversation shows go with their call.
                let answered = calls.contains(t.tool_call_id.as_str());
                if !answered {
                    let name = t.name.as_deref().unwrap_or("tool");
                    let _ = writeln!(
                        out,
                        "<details>\n<summary>Tool result: {}</summary>\n",
                        html_text(name)
                    );
                    tool_result(&mut out, t);
                    let _ = writeln!(out, "</details>\n");
                }
            }
        }
    }
    if !thread.values.artifacts.is_empty() {
        let _ = writeln!(out, "## Artifacts\n");
        for path in &thread.values.artifacts {
            let name = path.rsplit('/').next().unwrap_or(path);
            let url = format!(
                "/api/threads/{}/artifacts/{}?download=true",
                thread.thread_id,
                utf8_percent_encode(path.trim_start_matches('/'), PATH_KEEP)
            );
            let _ = writeln!(out, "- [{}]({url})", link_text(name));
        }
        out.push('\n');
    }
    out
}

/// An answer: its reasoning folded, its text, then each tool call folded with its result.
fn ai<'a>(out: &mut String, m: &AiMessage, result_of: &dyn Fn(&str) -> Option<&'a ToolMessage>) {
    let reasoning = m
        .additional_kwargs
        .get("reasoning_content")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty());
    if m.content.trim().is_empty() && reasoning.is_none() && m.tool_calls.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Assistant\n");
    if let Some(reasoning) = reasoning {
        let _ = writeln!(
            out,
            "<details>\n<summary>Reasoning</summary>\n\n{reasoning}\n\n</details>\n"
        );
    }
    if !m.content.trim().is_empty() {
        let _ = writeln!(out, "{}\n", m.content.trim());
    }
    for call in &m.tool_calls {
        let _ = writeln!(
            out,
            "<details>\n<summary>Tool call: {}</summary>\n",
            html_text(&call.name)
        );
        let args = serde_json::to_string_pretty(&call.args).unwrap_or_default();
        let _ = writeln!(out, "Arguments:\n\n{}\n", fenced(&args, "json"));
        if let Some(result) = result_of(&call.id) {
            tool_result(out, result);
        }
        let _ = writeln!(out, "</details>\n");
    }
}

fn tool_result(out: &mut String, t: &ToolMessage) {
    let mut text: String = t.content.chars().take(MAX_RESULT_CHARS).collect();
    if t.content.chars().count() > MAX_RESULT_CHARS {
        text.push_str("\n… (cut)");
    }
    let _ = writeln!(
        out,
        "Result ({}):\n\n{}\n",
        t.status.as_str(),
        fenced(&text, "")
    );
}

/// `text` in a code fence longer than any run of backticks inside it.
fn fenced(text: &str, lang: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{text}\n{fence}")
}

/// Text inside HTML (`<summary>`): markup characters escaped.
fn html_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Text of a Markdown link: brackets escaped.
fn link_text(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `2026-01-02T03:04:05.000000Z` as `2026-01-02 03:04 UTC`.
fn day_time(rfc3339: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|_| rfc3339.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(v: Value) -> Thread {
        let mut base = json!({
            "thread_id": "t1", "created_at": "2026-01-02T03:04:05.000000Z",
            "updated_at": "2026-01-02T04:05:06.000000Z", "metadata": {}, "status": "idle",
            "values": {"messages": []}
        });
        if let (Some(base), Some(extra)) = (base.as_object_mut(), v.as_object()) {
            for (k, v) in extra {
                base.insert(k.clone(), v.clone());
            }
        }
        serde_json::from_value(base).unwrap()
    }

    #[test]
    fn file_stems_keep_letters_of_any_script() {
        let named = |t: &str| file_stem(&thread(json!({"metadata": {"title": t}})));
        assert_eq!(named("Trip: Paris / Rome?"), "Trip-Paris-Rome");
        assert_eq!(named("中文 对话"), "中文-对话");
        assert_eq!(named("../../etc/passwd"), "etc-passwd");
        assert_eq!(named("\"; rm -rf"), "rm-rf");
        assert_eq!(named("???"), "conversation");
        assert_eq!(file_stem(&thread(json!({}))), "conversation");
        assert_eq!(named(&"a".repeat(300)).chars().count(), MAX_NAME_CHARS);
    }

    #[test]
    fn markdown_has_roles_folded_tools_and_reasoning_and_artifact_links() {
        let t = thread(json!({
            "metadata": {"title": "Weather <b>"},
            "values": {
                "artifacts": ["/mnt/user-data/outputs/my report.md"],
                "messages": [
                    {"type": "human", "id": "h1", "content": "What is the weather?"},
                    {"type": "ai", "id": "a1", "content": "",
                     "additional_kwargs": {"reasoning_content": "Look it up."},
                     "tool_calls": [{"name": "bash", "args": {"cmd": "echo ```"}, "id": "c1"}]},
                    {"type": "tool", "id": "r1", "tool_call_id": "c1", "name": "bash",
                     "content": "x".repeat(MAX_RESULT_CHARS + 10)},
                    {"type": "ai", "id": "a2", "content": "Sunny."}
                ]
            }
        }));
        let md = markdown(&t, chrono::Utc::now());
        assert!(md.starts_with("# Weather <b>\n"), "{md}");
        assert!(md.contains("_Started 2026-01-02 03:04 UTC, last updated 2026-01-02 04:05 UTC"));
        assert!(md.contains("## User\n\nWhat is the weather?"));
        assert!(md.contains("<summary>Reasoning</summary>\n\nLook it up."));
        assert!(md.contains("<summary>Tool call: bash</summary>"));
        assert!(
            md.contains("````json\n"),
            "a fence longer than the backticks inside: {md}"
        );
        assert!(md.contains("… (cut)"));
        assert!(!md.contains(&"x".repeat(MAX_RESULT_CHARS + 1)));
        assert_eq!(
            md.matches("<details>").count(),
            md.matches("</details>").count()
        );
        assert!(md.contains("## Assistant\n\nSunny."));
        assert!(md.contains(
            "- [my report.md](/api/threads/t1/artifacts/mnt/user-data/outputs/my%20report.md?download=true)"
        ));
        // The result goes with its call, not again on its own.
        assert_eq!(md.matches("Result (success)").count(), 1);
    }
}
