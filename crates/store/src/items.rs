//! LangGraph's long-term store: each owner's JSON documents under hierarchical namespaces,
//! with filters, full-text search and times to live.
//!
//! A namespace is a list of labels without `.`; the repository stores it joined (see
//! [`namespace_path`]) so a prefix is a range of its primary key.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::StoreError;

/// One stored item.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemRecord {
    /// Whose it is.
    pub owner: String,
    /// Its namespace's labels.
    pub namespace: Vec<String>,
    /// Its key within the namespace.
    pub key: String,
    /// The document.
    pub value: Map<String, Value>,
    /// When it was first stored (or stored again after it expired).
    pub created_at: DateTime<Utc>,
    /// When it was last written.
    pub updated_at: DateTime<Utc>,
    /// Its time to live in minutes (`None`: it never expires).
    pub ttl_minutes: Option<f64>,
    /// When it expires.
    pub expires_at: Option<DateTime<Utc>>,
}

/// An item to store (insert or replace).
#[derive(Debug, Clone, PartialEq)]
pub struct NewItem {
    /// Whose it is.
    pub owner: String,
    /// Its namespace's labels (at least one, none empty or holding a `.`).
    pub namespace: Vec<String>,
    /// Its key.
    pub key: String,
    /// The document.
    pub value: Map<String, Value>,
    /// The text full-text search sees (`None`: not searchable).
    pub search_text: Option<String>,
    /// Time to live in minutes.
    pub ttl_minutes: Option<f64>,
    /// The time of the write (expiry counts from it).
    pub now: DateTime<Utc>,
}

/// A comparison of a filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Equal (JSON equality; numbers by value).
    Eq,
    /// Missing or not equal.
    Ne,
    /// Greater than (numbers with numbers, strings with strings).
    Gt,
    /// Greater than or equal.
    Gte,
    /// Less than.
    Lt,
    /// Less than or equal.
    Lte,
}

impl Op {
    /// The SQL comparison of an ordering operator (`=` and `<>` for the others).
    pub(crate) fn sql(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "<>",
            Op::Gt => ">",
            Op::Gte => ">=",
            Op::Lt => "<",
            Op::Lte => "<=",
        }
    }
}

/// One condition on a top-level field of the value.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// The top-level key.
    pub key: String,
    /// The comparison.
    pub op: Op,
    /// The operand: any JSON value for [`Op::Eq`] and [`Op::Ne`], a number or a string for
    /// the ordering operators (anything else matches nothing).
    pub value: Value,
}

/// What a search looks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemQuery {
    /// Only namespaces starting with these labels (empty: all).
    pub prefix: Vec<String>,
    /// Every condition must hold.
    pub conditions: Vec<Condition>,
    /// Words to rank by full-text relevance (items without any are left out).
    pub text: Option<String>,
    /// Page size.
    pub limit: u32,
    /// Items to skip.
    pub offset: u32,
}

/// What a namespace listing looks for; `*` in a pattern matches any one label.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NamespaceQuery {
    /// Namespaces starting with these labels.
    pub prefix: Vec<String>,
    /// Namespaces ending with these labels.
    pub suffix: Vec<String>,
    /// Namespaces cut to at most this many labels (then deduplicated).
    pub max_depth: Option<usize>,
    /// Page size.
    pub limit: u32,
    /// Namespaces to skip.
    pub offset: u32,
}

/// Reads and writes store items. Expired items are never answered.
#[async_trait]
pub trait ItemRepo: Send + Sync + 'static {
    /// Inserts or replaces an item.
    async fn put(&self, item: &NewItem) -> Result<(), StoreError>;
    /// The item, unexpired at `now`; with `refresh`, its expiry starts again from `now`.
    async fn get(
        &self,
        owner: &str,
        namespace: &[String],
        key: &str,
        now: DateTime<Utc>,
        refresh: bool,
    ) -> Result<Option<ItemRecord>, StoreError>;
    /// Removes an item; false when there was none.
    async fn delete(
        &self,
        owner: &str,
        namespace: &[String],
        key: &str,
    ) -> Result<bool, StoreError>;
    /// A page of matching items, most relevant first with words (the score is the
    /// relevance, higher is better), else most recently updated first; with `refresh`,
    /// the answered items' expiry starts again from `now`.
    async fn search(
        &self,
        owner: &str,
        query: &ItemQuery,
        now: DateTime<Utc>,
        refresh: bool,
    ) -> Result<Vec<(ItemRecord, Option<f64>)>, StoreError>;
    /// A page of the owner's namespaces, sorted.
    async fn namespaces(
        &self,
        owner: &str,
        query: &NamespaceQuery,
        now: DateTime<Utc>,
    ) -> Result<Vec<Vec<String>>, StoreError>;
    /// Deletes up to `max` items expired at `now`; answers how many.
    async fn sweep(&self, now: DateTime<Utc>, max: u32) -> Result<u64, StoreError>;
}

/// The stored form of a namespace: labels joined by `.`, with a trailing `.` so that one
/// namespace's path is a prefix of its descendants' and of nobody else's.
pub fn namespace_path(labels: &[String]) -> String {
    let mut path = String::new();
    for label in labels {
        path.push_str(label);
        path.push('.');
    }
    path
}

/// The labels of a stored namespace path.
pub fn namespace_labels(path: &str) -> Vec<String> {
    path.strip_suffix('.')
        .unwrap_or(path)
        .split('.')
        .map(str::to_string)
        .collect()
}

/// Whether `labels` match `pattern` from the start (`*` matches any one label).
pub fn matches_prefix(labels: &[String], pattern: &[String]) -> bool {
    labels.len() >= pattern.len() && pattern.iter().zip(labels).all(|(p, l)| p == "*" || p == l)
}

/// Whether `labels` match `pattern` at the end (`*` matches any one label).
pub fn matches_suffix(labels: &[String], pattern: &[String]) -> bool {
    labels.len() >= pattern.len()
        && pattern
            .iter()
            .rev()
            .zip(labels.iter().rev())
            .all(|(p, l)| p == "*" || p == l)
}

/// `value` with every object's keys sorted, so equal documents have equal text.
pub fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(canonical_map(map)),
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// [`canonical`] for an object.
pub fn canonical_map(map: &Map<String, Value>) -> Map<String, Value> {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    keys.into_iter()
        .filter_map(|k| map.get(k).map(|v| (k.clone(), canonical(v))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(s: &[&str]) -> Vec<String> {
        s.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn namespace_paths_round_trip_and_nest() {
        let ns = labels(&["a", "b"]);
        assert_eq!(namespace_path(&ns), "a.b.");
        assert_eq!(namespace_labels("a.b."), ns);
        assert!(
            namespace_path(&labels(&["a", "bc"])).starts_with(&namespace_path(&labels(&["a"])))
        );
        assert!(!namespace_path(&labels(&["ab"])).starts_with(&namespace_path(&labels(&["a"]))));
    }

    #[test]
    fn wildcards_match_one_label() {
        let ns = labels(&["users", "u1", "notes"]);
        assert!(matches_prefix(&ns, &labels(&["users", "*"])));
        assert!(!matches_prefix(&ns, &labels(&["docs"])));
        assert!(matches_suffix(&ns, &labels(&["*", "notes"])));
        assert!(!matches_suffix(&ns, &labels(&["u1"])));
        assert!(!matches_suffix(&labels(&["a"]), &labels(&["x", "a"])));
    }
}
