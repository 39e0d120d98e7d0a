//! The search tools: `glob` (file names) and `grep` (contents).

use antler_protocol::paths::USER_DATA_ROOT;
use antler_sandbox::api::GrepRequest;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::context::sandbox_error;
use super::files::check_skill_enabled;
use super::{ToolContext, ToolError, ToolOutput, TypedTool, args};

/// Where a search runs when the call names no path.
fn workspace() -> String {
    format!("{USER_DATA_ROOT}/workspace")
}

/// Finds files by glob pattern.
pub(crate) struct Glob;

/// `glob` arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct GlobArgs {
    pattern: String,
    /// Directory to search (default /mnt/user-data/workspace).
    #[serde(default, deserialize_with = "args::opt_text")]
    path: Option<String>,
}

#[async_trait]
impl TypedTool for Glob {
    type Args = GlobArgs;
    const NAME: &'static str = "glob";
    const DESCRIPTION: &'static str =
        "Find files by glob pattern (e.g. **/*.py) under a directory.";

    async fn run(&self, a: GlobArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let path = a.path.unwrap_or_else(workspace);
        let found = ctx
            .sandbox()
            .await?
            .glob(&a.pattern, &path)
            .await
            .map_err(|e| sandbox_error(&e))?;
        if found.paths.is_empty() {
            return Ok(ToolOutput::text(format!(
                "no files match {} under {path}",
                a.pattern
            )));
        }
        let mut text = found.paths.join("\n");
        if found.truncated {
            text.push_str("\n[more matches not shown; narrow the pattern]");
        }
        Ok(ToolOutput::text(text))
    }
}

/// Searches file contents.
pub(crate) struct Grep;

/// `grep` arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct GrepArgs {
    pattern: String,
    /// File or directory (default /mnt/user-data/workspace).
    #[serde(default, deserialize_with = "args::opt_text")]
    path: Option<String>,
    /// Only files matching this glob, e.g. *.md.
    #[serde(default, deserialize_with = "args::opt_text")]
    glob: Option<String>,
    #[serde(default, deserialize_with = "args::flag")]
    #[schemars(with = "Option<bool>")]
    literal: bool,
    #[serde(default, deserialize_with = "args::flag")]
    #[schemars(with = "Option<bool>")]
    case_sensitive: bool,
}

/// Most matches reported per call.
const MAX_MATCHES: usize = 200;

#[async_trait]
impl TypedTool for Grep {
    type Args = GrepArgs;
    const NAME: &'static str = "grep";
    const DESCRIPTION: &'static str =
        "Search file contents with a regular expression (or literal text).";

    async fn run(&self, a: GrepArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let request = GrepRequest {
            pattern: a.pattern,
            path: a.path.unwrap_or_else(workspace),
            glob: a.glob,
            literal: a.literal,
            case_sensitive: a.case_sensitive,
            max_matches: MAX_MATCHES,
        };
        check_skill_enabled(&request.path, ctx.skills)?;
        let found = ctx
            .sandbox()
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
}
