//! Tool execution on the thread's sandbox, with model-facing output formats and size caps.
//! A failed tool call becomes an `Error: …` message to the model; the run goes on.

pub mod schema;

use std::sync::Arc;
use std::time::Duration;

use antler_sandbox::SandboxError;
use antler_sandbox::api::{ExecRequest, GrepRequest, Sandbox, SandboxProvider};
use antler_skills::Snapshot;
use serde_json::{Value, json};
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;

use crate::config::AgentConfig;

/// The thread's sandbox, acquired on the first tool call that needs it.
pub struct SandboxHandle {
    provider: Arc<dyn SandboxProvider>,
    thread_id: String,
    cell: OnceCell<Arc<dyn Sandbox>>,
}

impl SandboxHandle {
    /// A handle for `thread_id`.
    pub fn new(provider: Arc<dyn SandboxProvider>, thread_id: &str) -> Self {
        SandboxHandle {
            provider,
            thread_id: thread_id.to_string(),
            cell: OnceCell::new(),
        }
    }

    async fn get(&self) -> Result<&Arc<dyn Sandbox>, SandboxError> {
        self.cell
            .get_or_try_init(|| self.provider.acquire(&self.thread_id))
            .await
    }

    /// Marks the sandbox idle when it was used.
    pub async fn release(&self) {
        if self.cell.initialized() {
            self.provider.release(&self.thread_id).await;
        }
    }
}

/// What a tool call changes beyond its message.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Nothing.
    None,
    /// Files to add to the thread's artifacts.
    Present(Vec<String>),
    /// The run stops to wait for the person's answer.
    Clarify,
}

/// A tool's result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the model reads.
    pub content: String,
    /// Shown as failed in the UI.
    pub is_error: bool,
    /// Structured data for the UI.
    pub artifact: Option<Value>,
    /// Side effect on the thread.
    pub effect: Effect,
}

impl ToolOutput {
    fn text(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: false,
            artifact: None,
            effect: Effect::None,
        }
    }

    /// An `Error: …` result for the model.
    pub fn error(message: impl std::fmt::Display) -> Self {
        ToolOutput {
            content: format!("Error: {message}"),
            is_error: true,
            artifact: None,
            effect: Effect::None,
        }
    }
}

/// What tools need from the run.
pub struct ToolEnv<'a> {
    /// The sandbox.
    pub sandbox: &'a SandboxHandle,
    /// The catalog at run start (for disabled-skill checks).
    pub skills: &'a Snapshot,
    /// Limits.
    pub cfg: &'a AgentConfig,
    /// Cancels running commands.
    pub cancel: &'a CancellationToken,
}

/// Runs one tool call. `Err` carries a message for the model (the hook pipeline turns it into
/// an error result).
pub async fn execute(name: &str, args: &Value, env: &ToolEnv<'_>) -> Result<ToolOutput, String> {
    let result = match name {
        "bash" => bash(args, env).await,
        "ls" => ls(args, env).await,
        "read_file" => read_file(args, env).await,
        "write_file" => write_file(args, env).await,
        "str_replace" => str_replace(args, env).await,
        "glob" => glob(args, env).await,
        "grep" => grep(args, env).await,
        "present_files" => present_files(args, env).await,
        "ask_clarification" => ask_clarification(args),
        other => Err(format!(
            "unknown tool '{other}'; use one of the listed tools"
        )),
    };
    result.map(|mut out| {
        out.content = cap(&out.content, env.cfg.max_tool_output_chars);
        out
    })
}

type ToolResult = Result<ToolOutput, String>;

fn arg_str<'v>(args: &'v Value, key: &str) -> Result<&'v str, String> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing required string argument '{key}'"))
}

fn arg_opt_str<'v>(args: &'v Value, key: &str) -> Option<&'v str> {
    args.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

fn arg_bool(args: &Value, key: &str) -> bool {
    args.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn arg_u64(args: &Value, key: &str) -> Option<u64> {
    args.get(key)
        .and_then(|v| v.as_u64().or_else(|| v.as_str()?.parse().ok()))
}

/// What the model reads about a sandbox error. Infrastructure details (engine messages that
/// may quote host paths) go to the server log only.
fn sandbox_error(e: &SandboxError) -> String {
    if e.is_model_facing() {
        return e.to_string();
    }
    tracing::warn!(error = %e, "sandbox failure during a tool call");
    match e {
        SandboxError::Unavailable(_) => {
            "the sandbox is unavailable right now; try again shortly, or answer without tools"
        }
        _ => "the sandbox failed to carry out this call (the details are in the server log)",
    }
    .to_string()
}

async fn sandbox<'a>(env: &'a ToolEnv<'_>) -> Result<&'a Arc<dyn Sandbox>, String> {
    env.sandbox.get().await.map_err(|e| sandbox_error(&e))
}

/// Keeps head and tail of long output.
pub fn cap(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars {
        return text.to_string();
    }
    let half = max_chars / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!(
        "{head}\n\n[... {} characters omitted ...]\n\n{tail}",
        count - 2 * half
    )
}

async fn bash(args: &Value, env: &ToolEnv<'_>) -> ToolResult {
    let command = arg_str(args, "command")?;
    let secs = arg_u64(args, "timeout_secs")
        .unwrap_or(env.cfg.bash_timeout_secs)
        .clamp(1, env.cfg.bash_timeout_secs.max(1));
    let request = ExecRequest {
        command: command.to_string(),
        timeout: Duration::from_secs(secs),
        cancel: env.cancel.clone(),
    };
    let out = sandbox(env)
        .await?
        .exec(request)
        .await
        .map_err(|e| sandbox_error(&e))?;
    let mut text = out.stdout.clone();
    if !out.stderr.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("[stderr]\n");
        text.push_str(&out.stderr);
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let status = if out.timed_out {
        format!("[timed out after {secs}s; the command and everything it started were killed]")
    } else if out.cancelled {
        "[cancelled]".to_string()
    } else {
        format!(
            "[exit code: {}]",
            out.exit_code
                .map_or("unknown".to_string(), |c| c.to_string())
        )
    };
    text.push_str(&status);
    Ok(ToolOutput {
        content: text,
        is_error: out.timed_out || out.exit_code.is_some_and(|c| c != 0),
        artifact: Some(json!({
            "exit_code": out.exit_code,
            "timed_out": out.timed_out,
            "cancelled": out.cancelled,
            "stdout_skipped": out.stdout_skipped,
            "stderr_skipped": out.stderr_skipped,
        })),
        effect: Effect::None,
    })
}

async fn ls(args: &Value, env: &ToolEnv<'_>) -> ToolResult {
    let path = arg_str(args, "path")?;
    let depth = arg_u64(args, "depth").unwrap_or(2).clamp(1, 5) as usize;
    let listing = sandbox(env)
        .await?
        .list_dir(path, depth)
        .await
        .map_err(|e| sandbox_error(&e))?;
    if listing.entries.is_empty() {
        return Ok(ToolOutput::text(format!("{path} is empty")));
    }
    let mut lines: Vec<String> = listing
        .entries
        .iter()
        .map(|e| {
            if e.is_dir {
                format!("{}/", e.path)
            } else {
                format!("{} ({} bytes)", e.path, e.size)
            }
        })
        .collect();
    if listing.truncated {
        lines.push("[listing truncated; narrow the path or lower the depth]".into());
    }
    Ok(ToolOutput::text(lines.join("\n")))
}

/// Refuses reading files of a disabled skill, naming it.
fn check_skill_enabled(path: &str, skills: &Snapshot) -> Result<(), String> {
    let Some(rest) = path.strip_prefix("/mnt/skills/") else {
        return Ok(());
    };
    for s in &skills.list.skills {
        let dir = format!("{}/{}/", s.category, s.relative_path);
        if rest.starts_with(&dir) && !s.enabled {
            return Err(format!(
                "the skill '{}' is disabled; its files cannot be read",
                s.name
            ));
        }
    }
    Ok(())
}

async fn read_file(args: &Value, env: &ToolEnv<'_>) -> ToolResult {
    let path = arg_str(args, "path")?;
    check_skill_enabled(path, env.skills)?;
    let range = match (arg_u64(args, "start_line"), arg_u64(args, "end_line")) {
        (None, None) => None,
        (start, end) => Some((
            start.unwrap_or(1) as usize,
            end.unwrap_or(u64::from(u32::MAX)) as usize,
        )),
    };
    let text = sandbox(env)
        .await?
        .read_file(path, range)
        .await
        .map_err(|e| sandbox_error(&e))?;
    if text.is_empty() {
        return Ok(ToolOutput::text(format!(
            "{path} is empty (or the range has no lines)"
        )));
    }
    Ok(ToolOutput::text(text))
}

async fn write_file(args: &Value, env: &ToolEnv<'_>) -> ToolResult {
    let path = arg_str(args, "path")?;
    let content = arg_str(args, "content")?;
    let append = arg_bool(args, "append");
    sandbox(env)
        .await?
        .write_file(path, content, append)
        .await
        .map_err(|e| sandbox_error(&e))?;
    let verb = if append { "Appended" } else { "Wrote" };
    Ok(ToolOutput::text(format!(
        "{verb} {} bytes to {path}",
        content.len()
    )))
}

async fn str_replace(args: &Value, env: &ToolEnv<'_>) -> ToolResult {
    let path = arg_str(args, "path")?;
    let old = arg_str(args, "old_str")?;
    let new = arg_str(args, "new_str")?;
    if old.is_empty() {
        return Err("old_str must not be empty".into());
    }
    let sb = sandbox(env).await?;
    let text = sb
        .read_file(path, None)
        .await
        .map_err(|e| sandbox_error(&e))?;
    let count = text.matches(old).count();
    let replaced = match count {
        0 => {
            return Err(format!(
                "old_str was not found in {path}; read the file and copy the text exactly"
            ));
        }
        1 => text.replacen(old, new, 1),
        n if arg_bool(args, "replace_all") => {
            let _ = n;
            text.replace(old, new)
        }
        n => {
            return Err(format!(
                "old_str appears {n} times in {path}; add surrounding text to make it unique or set replace_all"
            ));
        }
    };
    sb.write_file(path, &replaced, false)
        .await
        .map_err(|e| sandbox_error(&e))?;
    Ok(ToolOutput::text(format!(
        "Replaced {count} occurrence(s) in {path}"
    )))
}

async fn glob(args: &Value, env: &ToolEnv<'_>) -> ToolResult {
    let pattern = arg_str(args, "pattern")?;
    let path = arg_opt_str(args, "path").unwrap_or("/mnt/user-data/workspace");
    let found = sandbox(env)
        .await?
        .glob(pattern, path)
        .await
        .map_err(|e| sandbox_error(&e))?;
    if found.paths.is_empty() {
        return Ok(ToolOutput::text(format!(
            "no files match {pattern} under {path}"
        )));
    }
    let mut text = found.paths.join("\n");
    if found.truncated {
        text.push_str("\n[more matches not shown; narrow the pattern]");
    }
    Ok(ToolOutput::text(text))
}

async fn grep(args: &Value, env: &ToolEnv<'_>) -> ToolResult {
    let request = GrepRequest {
        pattern: arg_str(args, "pattern")?.to_string(),
        path: arg_opt_str(args, "path")
            .unwrap_or("/mnt/user-data/workspace")
            .to_string(),
        glob: arg_opt_str(args, "glob").map(str::to_owned),
        literal: arg_bool(args, "literal"),
        case_sensitive: arg_bool(args, "case_sensitive"),
        max_matches: 200,
    };
    check_skill_enabled(&request.path, env.skills)?;
    let found = sandbox(env)
        .await?
        .grep(request.clone())
        .await
        .map_err(|e| sandbox_error(&e))?;
    if found.matches.is_empty() {
        return Ok(ToolOutput::text(format!(
            "no matches for {:?} in {}",
            request.pattern, request.path
        )));
    }
    let mut lines: Vec<String> = found
        .matches
        .iter()
        .map(|m| format!("{}:{}: {}", m.path, m.line_number, m.line))
        .collect();
    if found.truncated {
        lines.push("[more matches not shown; narrow the search]".into());
    }
    Ok(ToolOutput::text(lines.join("\n")))
}

async fn present_files(args: &Value, env: &ToolEnv<'_>) -> ToolResult {
    let paths: Vec<String> = match args.get("filepaths") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Some(Value::String(one)) => vec![one.clone()],
        _ => return Err("missing required argument 'filepaths' (a list of paths)".into()),
    };
    if paths.is_empty() {
        return Err("filepaths is empty".into());
    }
    let sb = sandbox(env).await?;
    let mut presented = Vec::new();
    for path in paths {
        let normal = antler_sandbox::VirtualPath::parse_user_data(&path)
            .ok()
            .filter(|p| {
                p.segments.first().map(String::as_str) == Some("outputs") && p.segments.len() > 1
            })
            .map(|p| p.display())
            .ok_or_else(|| {
                format!("{path} is not under /mnt/user-data/outputs; write the file there first")
            })?;
        let (parent, name) = normal.rsplit_once('/').unwrap_or(("", &normal));
        let listing = sb
            .list_dir(parent, 1)
            .await
            .map_err(|e| sandbox_error(&e))?;
        let exists = listing
            .entries
            .iter()
            .any(|e| !e.is_dir && e.path.rsplit('/').next() == Some(name));
        if !exists {
            return Err(format!("{normal} does not exist (or is a directory)"));
        }
        presented.push(normal);
    }
    Ok(ToolOutput {
        content: format!(
            "Presented {} file(s) to the person: {}",
            presented.len(),
            presented.join(", ")
        ),
        is_error: false,
        artifact: Some(json!({"filepaths": presented})),
        effect: Effect::Present(presented),
    })
}

fn ask_clarification(args: &Value) -> ToolResult {
    let question = arg_str(args, "question")?;
    let kind = arg_opt_str(args, "clarification_type").unwrap_or("missing_info");
    let context = arg_opt_str(args, "context");
    let options: Vec<String> = args
        .get("options")
        .and_then(Value::as_array)
        .map(|o| {
            o.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut text = String::new();
    if let Some(c) = context {
        text.push_str(c);
        text.push_str("\n\n");
    }
    text.push_str(question);
    for (i, o) in options.iter().enumerate() {
        text.push_str(&format!("\n{}. {o}", i + 1));
    }
    Ok(ToolOutput {
        content: text,
        is_error: false,
        artifact: Some(json!({
            "question": question,
            "clarification_type": kind,
            "context": context,
            "options": options,
        })),
        effect: Effect::Clarify,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infrastructure_errors_never_show_the_model_host_details() {
        let infra = SandboxError::Infra("docker create: bind /var/lib/antler/users/x".into());
        let told = sandbox_error(&infra);
        assert!(!told.contains("/var/lib"), "{told}");
        let down = sandbox_error(&SandboxError::Unavailable("socket /run/docker.sock".into()));
        assert!(
            !down.contains("docker.sock") && down.contains("unavailable"),
            "{down}"
        );
        let missing = sandbox_error(&SandboxError::NotFound("/mnt/user-data/a.txt".into()));
        assert!(
            missing.contains("/mnt/user-data/a.txt"),
            "the model can act on this"
        );
    }

    #[test]
    fn long_output_keeps_head_and_tail() {
        let text = format!("{}{}", "a".repeat(100), "b".repeat(100));
        let out = cap(&text, 50);
        assert!(out.starts_with(&"a".repeat(25)) && out.ends_with(&"b".repeat(25)));
        assert!(out.contains("150 characters omitted"));
        assert_eq!(cap("short", 50), "short");
    }

    #[test]
    fn clarification_lists_options() {
        let out = ask_clarification(&json!({"question": "Which format?", "clarification_type": "approach_choice", "options": ["CSV", "JSON"]})).unwrap();
        assert_eq!(out.content, "Which format?\n1. CSV\n2. JSON");
        assert_eq!(out.effect, Effect::Clarify);
        assert!(ask_clarification(&json!({})).is_err());
    }
}
