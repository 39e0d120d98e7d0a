//! Anthropic's Messages API: `POST <base_url>/messages` with `x-api-key` and
//! `anthropic-version`, streamed.

pub mod decode;
pub mod request;

use reqwest::header::{HeaderMap, HeaderValue};

pub use decode::Decoder;
pub use request::request;

/// The API version every request names.
pub const API_VERSION: &str = "2023-06-01";

/// `x-api-key` (when a key is configured) and `anthropic-version`.
pub(crate) fn headers(key: Option<&str>) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
    if let Some(v) = key.and_then(|k| HeaderValue::from_str(k).ok()) {
        h.insert("x-api-key", v);
    }
    h
}
