//! `present_files`: finished files under `/mnt/user-data/outputs` become the thread's
//! artifacts.

use antler_sandbox::VirtualPath;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::context::sandbox_error;
use super::{Effect, ToolContext, ToolError, ToolOutput, TypedTool, args};

/// Shows files to the person.
pub(crate) struct PresentFiles;

/// `present_files` arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct PresentArgs {
    #[serde(deserialize_with = "args::string_list")]
    filepaths: Vec<String>,
}

#[async_trait]
impl TypedTool for PresentFiles {
    type Args = PresentArgs;
    const NAME: &'static str = "present_files";
    const DESCRIPTION: &'static str = "Show finished files to the person (they can open and download them). Paths must be \
         under /mnt/user-data/outputs.";

    async fn run(&self, a: PresentArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        if a.filepaths.is_empty() {
            return Err(ToolError::Model("filepaths is empty".into()));
        }
        let sandbox = ctx.sandbox().await?;
        let mut presented = Vec::new();
        for path in a.filepaths {
            let normal = VirtualPath::parse_user_data(&path)
                .ok()
                .filter(|p| {
                    p.segments.first().map(String::as_str) == Some("outputs")
                        && p.segments.len() > 1
                })
                .map(|p| p.display())
                .ok_or_else(|| {
                    ToolError::Model(format!(
                        "{path} is not under /mnt/user-data/outputs; write the file there first"
                    ))
                })?;
            let (parent, name) = normal.rsplit_once('/').unwrap_or(("", &normal));
            let listing = sandbox
                .list_dir(parent, 1)
                .await
                .map_err(|e| sandbox_error(&e))?;
            let exists = listing
                .entries
                .iter()
                .any(|e| !e.is_dir && e.path.rsplit('/').next() == Some(name));
            if !exists {
                return Err(ToolError::Model(format!(
                    "{normal} does not exist (or is a directory)"
                )));
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
}
