//! A message naming uploaded documents (`<uploaded_files>`, as the web UI and the message-file
//! pipeline write it) also names their Markdown versions, so the agent reads the text rather
//! than guessing at a PDF's bytes. A conversion still running when the run starts is waited
//! for, briefly.

use std::time::{Duration, Instant};

use antler_protocol::files::ConversionStatus;
use antler_protocol::paths::USER_DATA_ROOT;
use antler_protocol::runs::RunCreate;
use serde_json::Value;

use super::convert::{self, convertible};
use super::{FileError, FilesService};
use crate::Caller;
use crate::threads::ThreadsService;

/// Longest a run's start waits for its documents' conversions.
const WAIT: Duration = Duration::from_secs(30);

const OPEN: &str = "<uploaded_files>";
const CLOSE: &str = "</uploaded_files>";

impl FilesService {
    /// Adds under each listed document the path of its Markdown version (or why there is
    /// none) in the request's messages.
    pub(crate) async fn name_markdown_versions(
        &self,
        threads: &ThreadsService,
        caller: &Caller,
        thread_id: &str,
        req: &mut RunCreate,
    ) -> Result<(), FileError> {
        let Some(Value::Array(messages)) = req.input.as_mut().and_then(|i| i.get_mut("messages"))
        else {
            return Ok(());
        };
        let mut texts: Vec<&mut String> = messages.iter_mut().flat_map(texts_mut).collect();
        let names: Vec<String> = texts.iter().flat_map(|t| listed(t)).collect();
        if names.is_empty() {
            return Ok(());
        }
        let Ok(dirs) = threads.existing_dirs(caller, thread_id).await else {
            return Ok(());
        };
        let deadline = Instant::now() + WAIT;
        let statuses = loop {
            let dirs = dirs.clone();
            let asked = names.clone();
            let statuses = tokio::task::spawn_blocking(move || {
                asked
                    .iter()
                    .map(|n| (n.clone(), convert::status(&dirs, n)))
                    .collect::<Vec<_>>()
            })
            .await?;
            let running = statuses.iter().any(|(_, s)| {
                s.as_ref()
                    .is_some_and(|s| s.status == ConversionStatus::Pending)
            });
            if !running || Instant::now() >= deadline {
                break statuses;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        for text in &mut texts {
            **text = annotate(text, &|name| {
                let (_, found) = statuses.iter().find(|(n, _)| n == name)?;
                let found = found.as_ref()?;
                let md = format!("{USER_DATA_ROOT}/uploads/{}", convert::markdown_name(name));
                Some(match found.status {
                    ConversionStatus::Done => format!("  Markdown version: {md}"),
                    ConversionStatus::Pending => {
                        format!("  Markdown version still being made (ls to check): {md}")
                    }
                    ConversionStatus::Failed | ConversionStatus::Skipped => format!(
                        "  No Markdown version: {}",
                        found.error.as_deref().unwrap_or("not converted")
                    ),
                })
            });
        }
        Ok(())
    }
}

/// The text parts of a human message.
fn texts_mut(message: &mut Value) -> Vec<&mut String> {
    let human = matches!(
        message
            .get("type")
            .or(message.get("role"))
            .and_then(Value::as_str),
        Some("human" | "user")
    );
    if !human {
        return Vec::new();
    }
    match message.get_mut("content") {
        Some(Value::String(text)) => vec![text],
        Some(Value::Array(blocks)) => blocks
            .iter_mut()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| match b.get_mut("text") {
                Some(Value::String(text)) => Some(text),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The convertible uploads a text's `<uploaded_files>` list names.
fn listed(text: &str) -> Vec<String> {
    let Some(inner) = block(text) else {
        return Vec::new();
    };
    inner
        .lines()
        .filter_map(upload_name)
        .filter(|n| convertible(n))
        .map(str::to_string)
        .collect()
}

fn block(text: &str) -> Option<&str> {
    let start = text.rfind(OPEN)? + OPEN.len();
    let end = text[start..].find(CLOSE)? + start;
    Some(&text[start..end])
}

/// `- /mnt/user-data/uploads/<name>` → `<name>`.
fn upload_name(line: &str) -> Option<&str> {
    let path = line.trim_start().strip_prefix('-')?.trim();
    let name = path
        .strip_prefix(USER_DATA_ROOT)?
        .strip_prefix("/uploads/")?;
    (!name.is_empty() && !name.contains('/')).then_some(name)
}

/// `text` with a line under each listed document that `note` has something to say about
/// (once: a line already followed by a note is left alone).
fn annotate(text: &str, note: &dyn Fn(&str) -> Option<String>) -> String {
    let Some(inner) = block(text) else {
        return text.to_string();
    };
    let start = text.rfind(OPEN).unwrap_or(0) + OPEN.len();
    let end = start + inner.len();
    let lines: Vec<&str> = inner.split('\n').collect();
    let mut out = Vec::with_capacity(lines.len() * 2);
    for (i, line) in lines.iter().enumerate() {
        out.push(line.to_string());
        let noted = lines
            .get(i + 1)
            .is_some_and(|next| next.starts_with("  ") && !next.trim_start().starts_with('-'));
        if let Some(name) = upload_name(line)
            && !noted
            && let Some(extra) = note(name)
        {
            out.push(extra);
        }
    }
    format!("{}{}{}", &text[..start], out.join("\n"), &text[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_in_the_list_get_a_line_naming_their_markdown_version() {
        let text = "summarize\n\n<uploaded_files>\n- /mnt/user-data/uploads/report.pdf\n- /mnt/user-data/uploads/data.json\n- /mnt/user-data/uploads/deck.pptx\n</uploaded_files>";
        assert_eq!(listed(text), ["report.pdf", "deck.pptx"]);
        let note = |name: &str| match name {
            "report.pdf" => {
                Some("  Markdown version: /mnt/user-data/uploads/report.pdf.md".to_string())
            }
            "deck.pptx" => Some("  No Markdown version: broken".to_string()),
            _ => None,
        };
        let once = annotate(text, &note);
        assert_eq!(
            once,
            "summarize\n\n<uploaded_files>\n- /mnt/user-data/uploads/report.pdf\n  Markdown version: /mnt/user-data/uploads/report.pdf.md\n- /mnt/user-data/uploads/data.json\n- /mnt/user-data/uploads/deck.pptx\n  No Markdown version: broken\n</uploaded_files>"
        );
        assert_eq!(annotate(&once, &note), once, "said once");
        assert!(listed("no list here").is_empty());
        assert!(listed("<uploaded_files>\n- /etc/passwd.pdf\n</uploaded_files>").is_empty());
    }
}
