//! Answering only part of a thread or a state, as LangGraph clients ask with `select` (the
//! fields to keep) and, for thread searches, `extract` (`{alias: path}` into each thread).
//! Both are checked before anything is read: an unknown field or a malformed path is a 422
//! naming it, never silently dropped.

use antler_protocol::threads::SearchThreads;
use serde_json::{Map, Value};

use crate::Caller;
use crate::threads::{ThreadError, ThreadsService};

impl ThreadsService {
    /// A thread search as JSON: each thread with only the `select`ed fields (all when
    /// none), plus `extracted` when `extract` names paths.
    pub async fn search_selected(
        &self,
        caller: &Caller,
        mut req: SearchThreads,
    ) -> Result<Vec<Value>, ThreadError> {
        let select = match req.select.take() {
            Some(names) if !names.is_empty() => {
                Some(Select::parse(&names, THREAD_FIELDS, false).map_err(ThreadError::Invalid)?)
            }
            _ => None,
        };
        let extract = match req.extract.take() {
            Some(spec) => Extract::parse(&spec).map_err(ThreadError::Invalid)?,
            None => Extract::default(),
        };
        let threads = self.search(caller, req).await?;
        Ok(threads
            .into_iter()
            .map(|thread| {
                let whole = serde_json::to_value(thread).unwrap_or(Value::Null);
                let extracted = (!extract.is_empty()).then(|| extract.read(&whole));
                // A `query` search's hit stays whatever fields are selected.
                let hit = whole.get("search").cloned();
                let mut out = match &select {
                    Some(select) => select.apply(whole),
                    None => whole,
                };
                if let (Some(hit), Value::Object(map)) = (hit, &mut out) {
                    map.insert("search".into(), hit);
                }
                if let (Some(extracted), Value::Object(map)) = (extracted, &mut out) {
                    map.insert("extracted".into(), extracted);
                }
                out
            })
            .collect())
    }
}

/// Fields a thread has (what `select` may name).
pub const THREAD_FIELDS: &[&str] = &[
    "thread_id",
    "created_at",
    "updated_at",
    "metadata",
    "status",
    "values",
    "interrupts",
];

/// Fields a thread state has; `values.<key>` keeps one value.
pub const STATE_FIELDS: &[&str] = &[
    "values",
    "next",
    "tasks",
    "checkpoint",
    "metadata",
    "created_at",
    "parent_checkpoint",
    "interrupts",
];

/// Most paths one `extract` may hold.
pub const MAX_EXTRACT_PATHS: usize = 10;
/// Most steps (keys and indexes) of one path.
pub const MAX_PATH_STEPS: usize = 5;

/// One step of an extract path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(i64),
}

/// A checked `select`: the whole fields and the single values (`values.<key>`) to keep.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Select {
    fields: Vec<String>,
    values: Vec<String>,
}

impl Select {
    /// Checks `names` against `fields` (and `values.<key>` when `with_value_keys`).
    pub fn parse(names: &[String], fields: &[&str], with_value_keys: bool) -> Result<Self, String> {
        let mut select = Select::default();
        for name in names {
            if fields.contains(&name.as_str()) {
                select.fields.push(name.clone());
            } else if let Some(key) = name.strip_prefix("values.").filter(|_| with_value_keys) {
                if key.is_empty() {
                    return Err("select: `values.` needs a key after the dot".into());
                }
                select.values.push(key.to_string());
            } else {
                let shown: String = name.chars().take(80).collect();
                let extra = if with_value_keys {
                    ", values.<key>"
                } else {
                    ""
                };
                return Err(format!(
                    "select: unknown field {shown:?}; fields are {}{extra}",
                    fields.join(", ")
                ));
            }
        }
        Ok(select)
    }

    /// `object` with only the selected fields (and the selected single values under
    /// `values`).
    pub fn apply(&self, object: Value) -> Value {
        let Value::Object(mut all) = object else {
            return object;
        };
        let mut out = Map::new();
        for field in &self.fields {
            if let Some(v) = all.remove(field) {
                out.insert(field.clone(), v);
            }
        }
        if !self.values.is_empty() && !out.contains_key("values") {
            let mut picked = Map::new();
            if let Some(Value::Object(values)) = all.get_mut("values") {
                for key in &self.values {
                    if let Some(v) = values.remove(key) {
                        picked.insert(key.clone(), v);
                    }
                }
            }
            out.insert("values".into(), Value::Object(picked));
        }
        Value::Object(out)
    }
}

/// A checked `extract`: aliases and their paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extract(Vec<(String, Vec<Step>)>);

impl Extract {
    /// Checks `{alias: path}`: at most [`MAX_EXTRACT_PATHS`] string paths of at most
    /// [`MAX_PATH_STEPS`] steps.
    pub fn parse(spec: &Map<String, Value>) -> Result<Self, String> {
        if spec.len() > MAX_EXTRACT_PATHS {
            return Err(format!(
                "extract: at most {MAX_EXTRACT_PATHS} paths, not {}",
                spec.len()
            ));
        }
        let mut out = Vec::with_capacity(spec.len());
        for (alias, path) in spec {
            let shown: String = alias.chars().take(80).collect();
            let Some(path) = path.as_str() else {
                return Err(format!("extract.{shown}: the path must be a string"));
            };
            let steps = parse_path(path).map_err(|e| format!("extract.{shown}: {e}"))?;
            out.push((alias.clone(), steps));
        }
        Ok(Extract(out))
    }

    /// Whether there is nothing to extract.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `{alias: value}` read from `object` (`null` where a path finds nothing).
    pub fn read(&self, object: &Value) -> Value {
        let mut out = Map::new();
        for (alias, steps) in &self.0 {
            let mut at = Some(object);
            for step in steps {
                at = at.and_then(|v| match (step, v) {
                    (Step::Key(k), Value::Object(m)) => m.get(k),
                    (Step::Index(i), Value::Array(list)) => {
                        let len = i64::try_from(list.len()).unwrap_or(i64::MAX);
                        let i = if *i < 0 { len + i } else { *i };
                        usize::try_from(i).ok().and_then(|i| list.get(i))
                    }
                    _ => None,
                });
            }
            out.insert(alias.clone(), at.cloned().unwrap_or(Value::Null));
        }
        Value::Object(out)
    }
}

/// What an `extract` path looks like (the OpenAPI document says so too): a thread field,
/// then at most four `.key` or `[index]` steps.
pub fn extract_path_pattern() -> String {
    format!(
        r"^({})(\.[^.\[\]]+|\[-?[0-9]{{1,18}}\]){{0,4}}$",
        THREAD_FIELDS.join("|")
    )
}

/// `values.messages[-1].content` as steps; the first must be a field of a thread.
fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let shown: String = path.chars().take(120).collect();
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => part.split_at(i),
            None => (part, ""),
        };
        if key.is_empty() {
            return Err(format!("{shown:?} has an empty key"));
        }
        if key.contains(']') {
            return Err(format!("{shown:?}: a key holds no `]`"));
        }
        steps.push(Step::Key(key.to_string()));
        while !rest.is_empty() {
            let end = rest
                .find(']')
                .filter(|_| rest.starts_with('['))
                .ok_or_else(|| format!("{shown:?}: an index is `[n]`"))?;
            let digits = &rest[1..end];
            let number = digits.strip_prefix('-').unwrap_or(digits);
            // What the OpenAPI document's pattern says: at most 18 digits, no `+`.
            let index: i64 = Some(number)
                .filter(|n| (1..=18).contains(&n.len()) && n.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|_| digits.parse().ok())
                .ok_or_else(|| format!("{shown:?}: {digits:?} is not an index"))?;
            steps.push(Step::Index(index));
            rest = &rest[end + 1..];
        }
    }
    match steps.first() {
        Some(Step::Key(first)) if THREAD_FIELDS.contains(&first.as_str()) => {}
        _ => {
            return Err(format!(
                "{shown:?} must start with a thread field ({})",
                THREAD_FIELDS.join(", ")
            ));
        }
    }
    if steps.len() > MAX_PATH_STEPS {
        return Err(format!("{shown:?} has more than {MAX_PATH_STEPS} steps"));
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn extract_paths_are_taken_exactly_when_the_documented_pattern_matches() {
        let pattern = regex::Regex::new(&extract_path_pattern()).unwrap();
        for path in [
            "values.messages[-1].content",
            "values",
            "metadata.a b.c",
            "values[0][1]",
            "values.a.b.c.d",
            "values.a.b.c.d.e",
            "values.[0]",
            "values..a",
            "values.a]b",
            "values[+1]",
            "values[1234567890123456789]",
            "values[-12]x",
            "config.x",
            "",
            "values[",
            "status.é\n",
        ] {
            assert_eq!(
                pattern.is_match(path),
                parse_path(path).is_ok(),
                "{path:?}: {:?}",
                parse_path(path)
            );
        }
    }

    #[test]
    fn select_keeps_named_fields_and_single_values() {
        let select =
            Select::parse(&names(&["status", "values.title"]), STATE_FIELDS, true).unwrap_err();
        assert!(select.contains("unknown field \"status\""), "{select}");
        let select = Select::parse(&names(&["next", "values.title"]), STATE_FIELDS, true).unwrap();
        let out = select
            .apply(json!({"next": [], "tasks": [], "values": {"title": "T", "messages": [1]}}));
        assert_eq!(out, json!({"next": [], "values": {"title": "T"}}));
        assert!(Select::parse(&names(&["values.x"]), THREAD_FIELDS, false).is_err());
    }

    #[test]
    fn extract_reads_keys_and_indexes_and_null_where_nothing_is() {
        let spec = json!({"last": "values.messages[-1].content", "first": "values.messages[0]", "who": "metadata.user", "none": "values.messages[5]"});
        let extract = Extract::parse(spec.as_object().unwrap()).unwrap();
        let thread = json!({"metadata": {"user": "ann"}, "values": {"messages": [{"content": "a"}, {"content": "b"}]}});
        assert_eq!(
            extract.read(&thread),
            json!({"last": "b", "first": {"content": "a"}, "who": "ann", "none": null})
        );
        for bad in [
            "secret.x",
            "values..x",
            "values.messages[x]",
            "values.a.b.c.d.e",
            "values[0",
        ] {
            let spec = json!({ "a": bad });
            assert!(Extract::parse(spec.as_object().unwrap()).is_err(), "{bad}");
        }
        assert!(Extract::parse(json!({"a": 1}).as_object().unwrap()).is_err());
    }
}
