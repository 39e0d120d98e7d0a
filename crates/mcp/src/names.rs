//! Tool names the model sees: `mcp__<server>__<tool>`, only letters, digits, `_` and `-`
//! (what OpenAI-compatible APIs accept), at most 64 characters, unique.

use std::collections::HashSet;

/// Longest tool name OpenAI-compatible APIs accept.
pub const MAX_NAME: usize = 64;

fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `tools` with each MCP name once (the first listed wins), and a warning for each name a
/// server listed more than once: providers refuse a request naming two functions alike.
pub fn unique_tools(tools: Vec<crate::ToolInfo>) -> (Vec<crate::ToolInfo>, Vec<String>) {
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let mut kept = Vec::with_capacity(tools.len());
    let mut order = Vec::new();
    for tool in tools {
        let n = seen.entry(tool.name.clone()).or_insert(0);
        *n += 1;
        if *n == 1 {
            order.push(tool.name.clone());
            kept.push(tool);
        }
    }
    let warnings = order
        .iter()
        .filter(|name| seen[*name] > 1)
        .map(|name| {
            format!(
                "the server lists the tool '{name}' {} times; only the first is offered",
                seen[name]
            )
        })
        .collect();
    (kept, warnings)
}

/// A short, stable hash of `s` (FNV-1a), to tell apart names cut to the same prefix.
fn tag(s: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{h:08x}")
}

/// The model-facing names of `server`'s tools, in the same order. A name too long is cut
/// and tagged with a hash of the original; names that still collide (after cleaning or with
/// `taken`) get the hash too, so the outcome does not depend on the order tools arrive in.
pub fn model_names(server: &str, tools: &[&str], taken: &HashSet<String>) -> Vec<String> {
    let base: Vec<String> = tools
        .iter()
        .map(|t| format!("mcp__{}__{}", clean(server), clean(t)))
        .collect();
    let mut count = std::collections::HashMap::new();
    for b in &base {
        *count.entry(b.clone()).or_insert(0usize) += 1;
    }
    base.iter()
        .zip(tools)
        .map(|(b, original)| {
            let unique = count[b] == 1 && !taken.contains(b);
            if unique && b.len() <= MAX_NAME {
                b.clone()
            } else {
                let suffix = format!("_{}", tag(original));
                let keep = (MAX_NAME - suffix.len()).min(b.len());
                // ASCII only after cleaning: any byte index is a char boundary.
                format!("{}{suffix}", &b[..keep])
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_listed_twice_is_kept_once_with_a_warning() {
        let tool = |name: &str, description: &str| crate::ToolInfo {
            name: name.into(),
            description: description.into(),
            input_schema: serde_json::json!({"type": "object"}),
        };
        let (kept, warnings) = unique_tools(vec![
            tool("a", "first"),
            tool("b", "only"),
            tool("a", "second"),
            tool("a", "third"),
        ]);
        let names: Vec<(&str, &str)> = kept
            .iter()
            .map(|t| (t.name.as_str(), t.description.as_str()))
            .collect();
        assert_eq!(names, [("a", "first"), ("b", "only")]);
        assert_eq!(
            warnings,
            ["the server lists the tool 'a' 3 times; only the first is offered"]
        );
        assert!(unique_tools(vec![tool("x", "")]).1.is_empty());
    }

    #[test]
    fn names_are_prefixed_cleaned_cut_and_unique() {
        let none = HashSet::new();
        assert_eq!(
            model_names("everything", &["echo"], &none),
            ["mcp__everything__echo"]
        );
        let [dotted, spaced] = &model_names("gh", &["a.b", "a b"], &none)[..] else {
            panic!("two names");
        };
        assert_ne!(dotted, spaced, "a.b and a b both clean to a_b");
        assert!(dotted.starts_with("mcp__gh__a_b_"));
        let long = "x".repeat(100);
        let cut = &model_names("s", &[&long], &none)[0];
        assert_eq!(cut.len(), MAX_NAME);
        let taken: HashSet<String> = ["mcp__s__t".to_string()].into();
        assert_ne!(model_names("s", &["t"], &taken)[0], "mcp__s__t");
        assert_eq!(
            model_names("s", &["a.b", "a b"], &none),
            model_names("s", &["a.b", "a b"], &none),
            "deterministic"
        );
    }
}
