//! The file tools: `ls`, `read_file`, `write_file`, `str_replace`.

use antler_protocol::paths::SKILLS_ROOT;
use antler_skills::Snapshot;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::context::sandbox_error;
use super::{ToolContext, ToolError, ToolOutput, TypedTool, args};

/// Lists a directory.
pub(crate) struct Ls;

/// `ls` arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct LsArgs {
    /// Absolute path, e.g. /mnt/user-data/workspace.
    path: String,
    /// Levels to list (1-5).
    #[serde(default, deserialize_with = "args::opt_u64")]
    #[schemars(with = "Option<u64>")]
    depth: Option<u64>,
}

#[async_trait]
impl TypedTool for Ls {
    type Args = LsArgs;
    const NAME: &'static str = "ls";
    const DESCRIPTION: &'static str = "List a directory (two levels by default).";

    async fn run(&self, a: LsArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let depth = a.depth.unwrap_or(2).clamp(1, 5) as usize;
        let listing = ctx
            .sandbox()
            .await?
            .list_dir(&a.path, depth)
            .await
            .map_err(|e| sandbox_error(&e))?;
        if listing.entries.is_empty() {
            return Ok(ToolOutput::text(format!("{} is empty", a.path)));
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
}

/// Refuses reading files of a disabled skill, naming it.
pub(crate) fn check_skill_enabled(path: &str, skills: &Snapshot) -> Result<(), ToolError> {
    let Some(rest) = path
        .strip_prefix(SKILLS_ROOT)
        .and_then(|r| r.strip_prefix('/'))
    else {
        return Ok(());
    };
    for s in &skills.list.skills {
        let dir = format!("{}/{}/", s.category, s.relative_path);
        if rest.starts_with(&dir) && !s.enabled {
            return Err(ToolError::Model(format!(
                "the skill '{}' is disabled; its files cannot be read",
                s.name
            )));
        }
    }
    Ok(())
}

/// Reads a text file, or some of its lines.
pub(crate) struct ReadFile;

/// `read_file` arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct ReadFileArgs {
    /// Absolute path.
    path: String,
    #[serde(default, deserialize_with = "args::opt_u64")]
    #[schemars(with = "Option<u64>")]
    start_line: Option<u64>,
    #[serde(default, deserialize_with = "args::opt_u64")]
    #[schemars(with = "Option<u64>")]
    end_line: Option<u64>,
}

#[async_trait]
impl TypedTool for ReadFile {
    type Args = ReadFileArgs;
    const NAME: &'static str = "read_file";
    const DESCRIPTION: &'static str = "Read a text file, optionally only lines start_line..end_line (1-based, inclusive). \
         Use it to read a skill's SKILL.md before following it.";

    async fn run(&self, a: ReadFileArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        check_skill_enabled(&a.path, ctx.skills)?;
        let range = match (a.start_line, a.end_line) {
            (None, None) => None,
            (start, end) => Some((
                start.unwrap_or(1) as usize,
                end.unwrap_or(u64::from(u32::MAX)) as usize,
            )),
        };
        let text = ctx
            .sandbox()
            .await?
            .read_file(&a.path, range)
            .await
            .map_err(|e| sandbox_error(&e))?;
        if text.is_empty() {
            return Ok(ToolOutput::text(format!(
                "{} is empty (or the range has no lines)",
                a.path
            )));
        }
        Ok(ToolOutput::text(text))
    }
}

/// Writes (or appends to) a text file.
pub(crate) struct WriteFile;

/// `write_file` arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct WriteFileArgs {
    /// Absolute path under /mnt/user-data.
    path: String,
    content: String,
    #[serde(default, deserialize_with = "args::flag")]
    #[schemars(with = "Option<bool>")]
    append: bool,
}

#[async_trait]
impl TypedTool for WriteFile {
    type Args = WriteFileArgs;
    const NAME: &'static str = "write_file";
    const DESCRIPTION: &'static str =
        "Write a text file (parent directories are created). Set append to add to the end.";

    async fn run(&self, a: WriteFileArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        ctx.sandbox()
            .await?
            .write_file(&a.path, &a.content, a.append)
            .await
            .map_err(|e| sandbox_error(&e))?;
        let verb = if a.append { "Appended" } else { "Wrote" };
        Ok(ToolOutput::text(format!(
            "{verb} {} bytes to {}",
            a.content.len(),
            a.path
        )))
    }
}

/// Replaces exact text in a file.
pub(crate) struct StrReplace;

/// `str_replace` arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct StrReplaceArgs {
    path: String,
    old_str: String,
    new_str: String,
    #[serde(default, deserialize_with = "args::flag")]
    #[schemars(with = "Option<bool>")]
    replace_all: bool,
}

#[async_trait]
impl TypedTool for StrReplace {
    type Args = StrReplaceArgs;
    const NAME: &'static str = "str_replace";
    const DESCRIPTION: &'static str = "Replace exact text in a file. Fails when old_str is absent, or appears more than once \
         unless replace_all is true.";

    async fn run(&self, a: StrReplaceArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        if a.old_str.is_empty() {
            return Err(ToolError::Model("old_str must not be empty".into()));
        }
        let sandbox = ctx.sandbox().await?;
        let text = sandbox
            .read_file(&a.path, None)
            .await
            .map_err(|e| sandbox_error(&e))?;
        let count = text.matches(&a.old_str).count();
        let replaced = match count {
            0 => {
                return Err(ToolError::Model(format!(
                    "old_str was not found in {}; read the file and copy the text exactly",
                    a.path
                )));
            }
            1 => text.replacen(&a.old_str, &a.new_str, 1),
            _ if a.replace_all => text.replace(&a.old_str, &a.new_str),
            n => {
                return Err(ToolError::Model(format!(
                    "old_str appears {n} times in {}; add surrounding text to make it unique or set replace_all",
                    a.path
                )));
            }
        };
        sandbox
            .write_file(&a.path, &replaced, false)
            .await
            .map_err(|e| sandbox_error(&e))?;
        Ok(ToolOutput::text(format!(
            "Replaced {count} occurrence(s) in {}",
            a.path
        )))
    }
}
