//! What full-text search sees of an item: the text of its whole value, of some fields
//! (LangGraph's `index` paths: `a.b`, `tags[*]`, `items[0].name`), or nothing.

use antler_protocol::store_items::MAX_INDEX_FIELDS;
use serde_json::{Map, Value};

use super::ItemError;

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Step {
    /// An object's field.
    Field(String),
    /// An array's element.
    Index(usize),
    /// Every element of an array.
    All,
}

/// What an item's `index` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Index {
    /// The whole value.
    All,
    /// Nothing: stored, not searchable.
    Off,
    /// These fields.
    Fields(Vec<Vec<Step>>),
}

/// Reads `index` (null or absent: the whole value; `false`: nothing; a list of paths).
pub(super) fn parse(index: Option<&Value>) -> Result<Index, ItemError> {
    let paths = match index {
        None | Some(Value::Null) => return Ok(Index::All),
        Some(Value::Bool(false)) => return Ok(Index::Off),
        Some(Value::Array(paths)) => paths,
        Some(_) => {
            return Err(ItemError::Invalid(
                "index must be false, null or a list of field paths".into(),
            ));
        }
    };
    if paths.len() > MAX_INDEX_FIELDS {
        return Err(ItemError::Invalid(format!(
            "index lists {} fields; at most {MAX_INDEX_FIELDS} are allowed",
            paths.len()
        )));
    }
    let mut fields = Vec::new();
    for path in paths {
        let Some(path) = path.as_str() else {
            return Err(ItemError::Invalid(
                "index field paths must be strings".into(),
            ));
        };
        fields.push(steps(path).ok_or_else(|| {
            ItemError::Invalid(format!(
                "index field path '{}' is not valid (for example \"a.b\", \"tags[*]\", \"items[0].name\")",
                path.chars().take(64).collect::<String>()
            ))
        })?);
    }
    Ok(Index::Fields(fields))
}

/// The steps of one path; `None` when it is malformed.
fn steps(path: &str) -> Option<Vec<Step>> {
    if path.is_empty() || path.chars().count() > 256 {
        return None;
    }
    let mut out = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = part.split_once('[').map_or((part, ""), |(n, r)| (n, r));
        if name.is_empty() {
            return None;
        }
        out.push(Step::Field(name.to_string()));
        // `[*]` or `[N]`, one or more.
        while !rest.is_empty() {
            let (inside, after) = rest.split_once(']')?;
            out.push(match inside {
                "*" => Step::All,
                n => Step::Index(n.parse().ok()?),
            });
            rest = match after {
                "" => "",
                more => more.strip_prefix('[')?,
            };
        }
    }
    Some(out)
}

/// The text search sees of `value` under `index`; `None` when nothing is searchable.
pub(super) fn search_text(value: &Map<String, Value>, index: &Index) -> Option<String> {
    let mut text = String::new();
    match index {
        Index::Off => return None,
        Index::All => {
            for v in value.values() {
                leaves(v, &mut text);
            }
        }
        Index::Fields(paths) => {
            for path in paths {
                if let Some((Step::Field(first), rest)) = path.split_first()
                    && let Some(v) = value.get(first)
                {
                    follow(v, rest, &mut text);
                }
            }
        }
    }
    Some(text)
}

/// Appends the text at `path` under `value`.
fn follow(value: &Value, path: &[Step], out: &mut String) {
    let Some((step, rest)) = path.split_first() else {
        leaves(value, out);
        return;
    };
    match (step, value) {
        (Step::Field(name), Value::Object(map)) => {
            if let Some(v) = map.get(name) {
                follow(v, rest, out);
            }
        }
        (Step::Index(i), Value::Array(items)) => {
            if let Some(v) = items.get(*i) {
                follow(v, rest, out);
            }
        }
        (Step::All, Value::Array(items)) => {
            for v in items {
                follow(v, rest, out);
            }
        }
        _ => {}
    }
}

/// Appends every string, number and boolean under `value`.
fn leaves(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => push(out, s),
        Value::Number(n) => push(out, &n.to_string()),
        Value::Bool(b) => push(out, if *b { "true" } else { "false" }),
        Value::Null => {}
        Value::Array(items) => items.iter().for_each(|v| leaves(v, out)),
        Value::Object(map) => map.values().for_each(|v| leaves(v, out)),
    }
}

fn push(out: &mut String, text: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(value: Value, index: Value) -> Option<String> {
        let Value::Object(map) = value else {
            unreachable!()
        };
        search_text(&map, &parse(Some(&index)).unwrap())
    }

    #[test]
    fn the_whole_value_or_the_listed_fields_are_searchable() {
        let doc =
            json!({"title": "Rust", "body": {"text": "ownership", "n": 3}, "tags": ["a", "b"]});
        assert_eq!(
            text(doc.clone(), Value::Null).unwrap().split('\n').count(),
            5
        );
        assert_eq!(
            text(doc.clone(), json!(["body.text"])).as_deref(),
            Some("ownership")
        );
        assert_eq!(text(doc.clone(), json!(["tags[1]"])).as_deref(), Some("b"));
        assert_eq!(
            text(doc.clone(), json!(["tags[*]", "title"])).as_deref(),
            Some("a\nb\nRust")
        );
        assert_eq!(
            text(doc.clone(), json!(["missing.path"])).as_deref(),
            Some("")
        );
        assert_eq!(text(doc, json!(false)), None);
    }

    #[test]
    fn malformed_paths_are_refused() {
        for bad in [
            json!([""]),
            json!(["a..b"]),
            json!(["a[x]"]),
            json!(["a[1"]),
            json!([3]),
            json!(true),
        ] {
            assert!(parse(Some(&bad)).is_err(), "{bad}");
        }
    }
}
