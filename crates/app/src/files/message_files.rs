//! Files sent inside a message (LangChain `{"type": "file", "mimeType", "data", "metadata":
//! {"filename"}}` or OpenAI `{"type": "file", "file": {"filename", "file_data"}}` blocks, as
//! the Agent Chat UI sends a PDF): stored as the thread's uploads under the same limits and
//! names as `POST …/uploads`, and replaced in the message by the list of their paths the web
//! UI writes (`<uploaded_files>`), so the agent reads them from the sandbox.

use std::collections::HashSet;
use std::io::Write as _;

use antler_protocol::paths::USER_DATA_ROOT;
use antler_protocol::runs::{IfNotExists, RunCreate};
use antler_protocol::threads::CreateThread;
use base64::Engine as _;
use serde_json::{Value, json};

use super::names::{dedupe, safe_file_name};
use super::{FileError, FilesService, Staged};
use crate::Caller;
use crate::config::UploadsConfig;
use crate::threads::ThreadsService;

impl FilesService {
    /// Stores the file blocks of `req`'s messages as uploads of the thread and rewrites the
    /// messages to name them; a request without any is left as it is.
    pub(crate) async fn store_message_files(
        &self,
        threads: &ThreadsService,
        limits: &UploadsConfig,
        caller: &Caller,
        thread_id: &str,
        req: &mut RunCreate,
    ) -> Result<(), FileError> {
        store(self, threads, limits, caller, thread_id, req).await
    }
}

async fn store(
    files: &FilesService,
    threads: &ThreadsService,
    limits: &UploadsConfig,
    caller: &Caller,
    thread_id: &str,
    req: &mut RunCreate,
) -> Result<(), FileError> {
    let Some(messages) = req.input.as_mut().and_then(messages_mut) else {
        return Ok(());
    };
    if !messages.iter().any(|m| !file_blocks(m).is_empty()) {
        return Ok(());
    }
    if req.if_not_exists == Some(IfNotExists::Create) {
        let create = CreateThread {
            thread_id: Some(thread_id.to_string()),
            ..CreateThread::default()
        };
        threads.create(caller, create).await?;
    }
    let mut staged = Vec::new();
    let mut names = HashSet::new();
    let mut total = 0u64;
    for (i, message) in messages.iter_mut().enumerate() {
        let blocks = file_blocks(message);
        if blocks.is_empty() {
            continue;
        }
        let Some(Value::Array(content)) = message.get_mut("content") else {
            continue;
        };
        let mut paths = Vec::new();
        // In message order, so the first of two files with one name keeps it.
        for &j in &blocks {
            let (name, bytes) = decode(&content[j]).map_err(|why| {
                FileError::Invalid(format!("input.messages[{i}].content[{j}]: {why}"))
            })?;
            if staged.len() == limits.max_files {
                return Err(FileError::TooLarge(format!(
                    "too many files: at most {} per request",
                    limits.max_files
                )));
            }
            let size = bytes.len() as u64;
            total += size;
            if size > limits.max_file_bytes || total > limits.max_request_bytes {
                return Err(FileError::TooLarge(format!(
                    "file '{name}' is larger than the limit of {} bytes per file ({} per request)",
                    limits.max_file_bytes, limits.max_request_bytes
                )));
            }
            let name = dedupe(&name, &names);
            names.insert(name.clone());
            let mut file = tempfile::Builder::new()
                .prefix("upload-")
                .tempfile_in(files.scratch())?;
            file.write_all(&bytes)?;
            paths.push(format!("{USER_DATA_ROOT}/uploads/{name}"));
            staged.push(Staged { file, name, size });
        }
        for &j in blocks.iter().rev() {
            content.remove(j);
        }
        let list: Vec<String> = paths.iter().map(|p| format!("- {p}")).collect();
        content.push(json!({
            "type": "text",
            "text": format!("\n<uploaded_files>\n{}\n</uploaded_files>", list.join("\n")),
        }));
    }
    let stored = files
        .store_uploads(threads, caller, thread_id, staged)
        .await?;
    tracing::info!(
        thread.id = thread_id,
        files = stored.files.len(),
        bytes = total,
        "files from a message stored as uploads"
    );
    Ok(())
}

fn messages_mut(input: &mut Value) -> Option<&mut Vec<Value>> {
    match input.get_mut("messages")? {
        Value::Array(list) => Some(list),
        _ => None,
    }
}

/// The indexes of a human message's file blocks.
fn file_blocks(message: &Value) -> Vec<usize> {
    let human = matches!(
        message
            .get("type")
            .or_else(|| message.get("role"))
            .and_then(Value::as_str),
        Some("human" | "user")
    );
    match message.get("content") {
        Some(Value::Array(blocks)) if human => blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.get("type").and_then(Value::as_str) == Some("file"))
            .map(|(i, _)| i)
            .collect(),
        _ => Vec::new(),
    }
}

/// A file block's safe name and bytes.
fn decode(block: &Value) -> Result<(String, Vec<u8>), String> {
    let openai = block.get("file");
    let named = [
        block.pointer("/metadata/filename"),
        block.pointer("/metadata/name"),
        block.get("filename"),
        openai.and_then(|f| f.get("filename")),
    ]
    .into_iter()
    .flatten()
    .find_map(Value::as_str)
    .unwrap_or("file");
    let name = safe_file_name(named)
        .ok_or_else(|| format!("file name {named:?} has no usable characters"))?;
    let data = match (block.get("data"), openai.and_then(|f| f.get("file_data"))) {
        (Some(Value::String(data)), _) => data.as_str(),
        (_, Some(Value::String(url))) => url
            .split_once(";base64,")
            .map(|(_, data)| data)
            .ok_or("file.file_data must be a base64 data: URL")?,
        _ if block.get("url").is_some() || block.get("file_id").is_some() => {
            return Err(
                "files must be sent as base64 data (a URL or file id cannot be fetched)".into(),
            );
        }
        _ => return Err("a file block needs base64 \"data\"".into()),
    };
    let data: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| format!("the file data is not base64: {e}"))?;
    Ok((name, bytes))
}
