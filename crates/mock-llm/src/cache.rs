//! A prompt cache like Anthropic's, simple but honest: a request's blocks (tools, system,
//! then each message's content) form a prefix; every `cache_control` breakpoint writes the
//! prefix up to it; a later request reads the longest prefix of its own that an earlier one
//! wrote. Tokens are estimated at four characters each.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Value, json};

/// Input tokens split as Anthropic reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheUsage {
    /// Tokens neither read from nor written to the cache.
    pub input: u64,
    /// Tokens read from the cache.
    pub read: u64,
    /// Tokens written to the cache.
    pub write: u64,
}

/// A block's estimated tokens (at least one).
pub fn tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4).max(1)
}

/// The request's blocks in prefix order, each with whether it is a breakpoint.
fn blocks(body: &Value) -> Vec<(Value, bool)> {
    let mut out = Vec::new();
    let mut push = |tag: &str, block: &Value| {
        let mut b = block.clone();
        let marked = b
            .as_object_mut()
            .and_then(|o| o.remove("cache_control"))
            .is_some();
        out.push((json!({"at": tag, "block": b}), marked));
    };
    for t in body["tools"].as_array().into_iter().flatten() {
        push("tool", t);
    }
    match &body["system"] {
        Value::String(s) => push("system", &json!({"type": "text", "text": s})),
        Value::Array(blocks) => blocks.iter().for_each(|b| push("system", b)),
        _ => {}
    }
    for m in body["messages"].as_array().into_iter().flatten() {
        let role = m["role"].as_str().unwrap_or("");
        match &m["content"] {
            Value::String(s) => push(role, &json!({"type": "text", "text": s})),
            Value::Array(blocks) => blocks.iter().for_each(|b| push(role, b)),
            _ => {}
        }
    }
    out
}

/// Splits the request's input tokens, reading from and writing to `cache`.
pub fn usage(body: &Value, cache: &mut HashMap<u64, u64>) -> CacheUsage {
    let mut hasher = DefaultHasher::new();
    let mut total = 0u64;
    // (prefix fingerprint, tokens so far, is a breakpoint) at every block boundary.
    let mut boundaries = Vec::new();
    for (block, marked) in blocks(body) {
        let text = block.to_string();
        text.hash(&mut hasher);
        total += tokens(&text);
        boundaries.push((hasher.finish(), total, marked));
    }
    let Some(last_mark) = boundaries.iter().rposition(|b| b.2) else {
        return CacheUsage {
            input: total,
            ..CacheUsage::default()
        };
    };
    let read = boundaries[..=last_mark]
        .iter()
        .rev()
        .find_map(|(hash, _, _)| cache.get(hash).copied())
        .unwrap_or(0);
    let write = boundaries[last_mark].1.saturating_sub(read);
    for (hash, n, _) in boundaries.iter().filter(|b| b.2) {
        cache.insert(*hash, *n);
    }
    CacheUsage {
        input: total - read - write,
        read,
        write,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_request_reads_the_prefix_the_first_wrote() {
        let mut cache = HashMap::new();
        let first = json!({"system": [{"type": "text", "text": "S".repeat(400), "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}]}]});
        let u1 = usage(&first, &mut cache);
        assert_eq!(u1.read, 0);
        assert!(u1.write > 100);
        let second = json!({"system": [{"type": "text", "text": "S".repeat(400), "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hello"}]},
                         {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
                         {"role": "user", "content": [{"type": "text", "text": "more", "cache_control": {"type": "ephemeral"}}]}]});
        let u2 = usage(&second, &mut cache);
        assert_eq!(
            u2.read, u1.write,
            "everything the first request wrote is read"
        );
        assert!(u2.write > 0 && u2.write < u2.read);
        let unmarked = json!({"messages": [{"role": "user", "content": "hello"}]});
        assert_eq!(usage(&unmarked, &mut cache).read, 0);
    }
}
