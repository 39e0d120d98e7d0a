//! `view_image`: the agent looks at an image file of the thread (a chart it drew, a photo
//! the person uploaded). Offered only to models that can see; the image travels to the
//! model as an `image_url` part right after the tool's result (see `langchain::to_openai`).

use async_trait::async_trait;
use base64::Engine as _;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::context::sandbox_error;
use super::{ToolContext, ToolError, ToolOutput, TypedTool};

/// Largest image the agent may view: the data stays in the thread's history.
const MAX_VIEW_BYTES: u64 = 4 * 1024 * 1024;

/// Looks at an image file.
pub(crate) struct ViewImage;

/// `view_image` arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct ViewImageArgs {
    /// Absolute path of a PNG, JPEG, GIF or WebP file, e.g. /mnt/user-data/uploads/photo.jpg.
    path: String,
}

#[async_trait]
impl TypedTool for ViewImage {
    type Args = ViewImageArgs;
    const NAME: &'static str = "view_image";
    const DESCRIPTION: &'static str = "Look at an image file (PNG, JPEG, GIF or WebP, at most 4 MB): you see the image \
         right after this tool's result. Use it to check a chart you made or an image the person uploaded.";

    async fn run(&self, a: ViewImageArgs, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        super::files::check_skill_enabled(&a.path, ctx.skills)?;
        let bytes = ctx
            .sandbox()
            .await?
            .read_bytes(&a.path, MAX_VIEW_BYTES)
            .await
            .map_err(|e| sandbox_error(&e))?;
        let Some(mime) = image_type(&bytes) else {
            return Err(ToolError::Model(format!(
                "{} is not a PNG, JPEG, GIF or WebP image",
                a.path
            )));
        };
        let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
        Ok(ToolOutput {
            artifact: Some(json!({
                "image": {"path": a.path, "mimeType": mime, "data": data},
            })),
            ..ToolOutput::text(format!(
                "{} ({mime}, {} bytes) is shown to you next.",
                a.path,
                bytes.len()
            ))
        })
    }
}

/// The image format of `bytes`, from their signature.
fn image_type(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0x89, b'P', b'N', b'G', ..] => Some("image/png"),
        [0xFF, 0xD8, 0xFF, ..] => Some("image/jpeg"),
        [b'G', b'I', b'F', b'8', ..] => Some("image/gif"),
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'E',
            b'B',
            b'P',
            ..,
        ] => Some("image/webp"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::image_type;

    #[test]
    fn formats_are_told_by_their_signature() {
        assert_eq!(image_type(b"\x89PNG\r\n\x1a\n"), Some("image/png"));
        assert_eq!(image_type(b"\xFF\xD8\xFF\xE0"), Some("image/jpeg"));
        assert_eq!(image_type(b"GIF89a"), Some("image/gif"));
        assert_eq!(image_type(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(image_type(b"<svg"), None);
        assert_eq!(image_type(b""), None);
    }
}
