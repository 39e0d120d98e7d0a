//! Images in a person's message: read from the content-block shapes clients send, checked,
//! and handed to the model as OpenAI `image_url` parts — or, for a model that cannot see,
//! as a note that they were attached.

use antler_protocol::messages::Image;
use base64::Engine as _;
use serde_json::{Value, json};

/// Most images in one message.
pub const MAX_IMAGES: usize = 10;
/// Largest image, decoded.
pub const MAX_IMAGE_BYTES: usize = 10 * 1024 * 1024;
/// Formats every vision model takes.
const MIME_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

/// The text and the images of a content value (a string or a list of blocks). Blocks:
/// `{"type": "text", "text"}`; LangChain `{"type": "image", "mimeType" | "mime_type",
/// "data"}` or `{"type": "image", "url"}` (also with `"source_type"`); OpenAI
/// `{"type": "image_url", "image_url": {"url"} | "<url>"}` with an `http(s):` or `data:` URL.
pub fn split_content(content: &Value) -> Result<(String, Vec<Image>), String> {
    let Value::Array(blocks) = content else {
        return Ok((crate::langchain::content_text(content), Vec::new()));
    };
    let mut text = Vec::new();
    let mut images = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let kind = block.get("type").and_then(Value::as_str);
        let image = match (block, kind) {
            (Value::String(s), _) => {
                text.push(s.clone());
                continue;
            }
            (_, Some("image")) => langchain_image(block),
            (_, Some("image_url")) => openai_image(block),
            (_, Some("file")) => {
                return Err(format!(
                    "content[{i}]: files cannot be sent in a message; upload them to the thread (POST /api/threads/{{id}}/uploads)"
                ));
            }
            _ => {
                if let Some(t) = block.get("text").and_then(Value::as_str) {
                    text.push(t.to_string());
                }
                continue;
            }
        };
        images.push(image.map_err(|why| format!("content[{i}]: {why}"))?);
    }
    if images.len() > MAX_IMAGES {
        return Err(format!(
            "content: {} images in one message; at most {MAX_IMAGES}",
            images.len()
        ));
    }
    Ok((text.join("\n"), images))
}

fn field<'a>(block: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| block.get(*k).and_then(Value::as_str))
}

fn langchain_image(block: &Value) -> Result<Image, String> {
    if let Some(data) = field(block, &["data", "base64"]) {
        let mime = field(block, &["mimeType", "mime_type"])
            .ok_or("an image with data needs its mimeType")?;
        return inline(mime, data);
    }
    match field(block, &["url"]) {
        Some(url) => from_url(url),
        None => Err("an image needs data (base64) or a url".into()),
    }
}

fn openai_image(block: &Value) -> Result<Image, String> {
    let url = match block.get("image_url") {
        Some(Value::String(url)) => url.as_str(),
        Some(obj) => obj
            .get("url")
            .and_then(Value::as_str)
            .ok_or("image_url needs a url")?,
        None => return Err("image_url needs a url".into()),
    };
    from_url(url)
}

/// An `http(s):` URL, or a `data:<mime>;base64,<data>` URL taken apart.
fn from_url(url: &str) -> Result<Image, String> {
    if let Some(rest) = url.strip_prefix("data:") {
        let (mime, data) = rest
            .split_once(";base64,")
            .ok_or("a data: URL must be base64 (data:<type>;base64,…)")?;
        return inline(mime, data);
    }
    let parsed = url::Url::parse(url).map_err(|e| format!("not a valid image URL: {e}"))?;
    if parsed.scheme() != "https" && parsed.scheme() != "http" {
        return Err(format!(
            "image URLs must be http(s):// or data: (not {}:)",
            parsed.scheme()
        ));
    }
    Ok(Image::Url(url.to_string()))
}

fn inline(mime: &str, data: &str) -> Result<Image, String> {
    let mime = mime.trim().to_ascii_lowercase();
    if !MIME_TYPES.contains(&mime.as_str()) {
        return Err(format!(
            "images must be {} (not {mime})",
            MIME_TYPES.join(", ")
        ));
    }
    // Checked before decoding: base64 is 4 characters per 3 bytes.
    if data.len() / 4 * 3 > MAX_IMAGE_BYTES + 3 {
        return Err(format!("the image is larger than {MAX_IMAGE_BYTES} bytes"));
    }
    let data: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(&data)
        .map_err(|e| format!("the image data is not base64: {e}"))?;
    Ok(Image::Data {
        mime_type: mime,
        data,
    })
}

/// The Chat Completions `content` of a person's message with images: text and `image_url`
/// parts for a vision model, else the text and a note saying what the model cannot see.
pub fn user_content(text: &str, images: &[Image], vision: bool) -> Value {
    if images.is_empty() {
        return json!(text);
    }
    if !vision {
        let note = format!(
            "[{} image(s) attached; this model cannot see images, so ask the person to describe them if they matter.]",
            images.len()
        );
        return json!(if text.is_empty() {
            note
        } else {
            format!("{text}\n\n{note}")
        });
    }
    let mut parts = Vec::with_capacity(images.len() + 1);
    if !text.is_empty() {
        parts.push(json!({"type": "text", "text": text}));
    }
    parts.extend(
        images
            .iter()
            .map(|i| json!({"type": "image_url", "image_url": {"url": i.url()}})),
    );
    json!(parts)
}

/// The user-message parts that show an image a tool returned (`view_image`'s artifact
/// `image`, an MCP tool's `images`): a line naming it, and the image.
pub fn viewed_parts(image: &Value) -> Vec<Value> {
    let (Some(mime), Some(data)) = (field(image, &["mimeType"]), field(image, &["data"])) else {
        return Vec::new();
    };
    let what = match field(image, &["path"]) {
        Some(path) => format!("[view_image: {path}]"),
        None => "[an image from the tool above]".to_string(),
    };
    vec![
        json!({"type": "text", "text": what}),
        json!({"type": "image_url", "image_url": {"url": format!("data:{mime};base64,{data}")}}),
    ]
}

#[cfg(test)]
mod tests;
