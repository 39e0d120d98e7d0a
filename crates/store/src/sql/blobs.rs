//! Checkpoint messages stored once per thread. A checkpoint row keeps its state without
//! `messages` and the list of its messages' content hashes; each message's JSON text is a
//! row of `checkpoint_blobs` shared by every checkpoint that holds it. So a fork or an
//! `update_state` that changes a few bytes stores a few bytes, not the whole conversation
//! again, and a step of a run stores only the messages it added.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::StoreError;

/// Most hashes in one `IN (…)` list (SQLite allows 32,766 parameters per statement).
pub(crate) const IN_CHUNK: usize = 500;

/// Above this many bytes of messages, a save asks which the thread already holds before
/// writing the others; below it, it offers them all and skips those held (for SQLite a
/// message offered again is a copy in memory, for PostgreSQL a few kilobytes on the wire:
/// cheaper than a round trip).
pub(crate) const ASK_FIRST_BYTES: usize = 16 * 1024;

/// A state split for storage.
pub(crate) struct Split {
    /// The state without `messages` (`None`: nothing was split off, store the state whole).
    pub(crate) rest: Option<Value>,
    /// The messages' hashes, in order.
    pub(crate) refs: Vec<String>,
    /// Each distinct message by hash, as JSON text.
    pub(crate) blobs: HashMap<String, String>,
}

/// The content hash of a message's JSON text (128 bits of SHA-256, in hex): unique within
/// a thread for any practical purpose.
fn hash(text: &str) -> String {
    hex::encode(&Sha256::digest(text.as_bytes())[..16])
}

/// Splits `values.messages` off into blobs. States without a message list are kept whole.
pub(crate) fn split(values: &Value) -> Result<Split, StoreError> {
    let (Some(obj), Some(Value::Array(messages))) = (
        values.as_object(),
        values.as_object().and_then(|o| o.get("messages")),
    ) else {
        return Ok(Split {
            rest: None,
            refs: Vec::new(),
            blobs: HashMap::new(),
        });
    };
    let mut refs = Vec::with_capacity(messages.len());
    let mut blobs = HashMap::new();
    for message in messages {
        let text = serde_json::to_string(message)
            .map_err(|e| StoreError::Unstorable(format!("a message cannot be stored: {e}")))?;
        let h = hash(&text);
        blobs.entry(h.clone()).or_insert(text);
        refs.push(h);
    }
    let rest: Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| k.as_str() != "messages")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(Split {
        rest: Some(Value::Object(rest)),
        refs,
        blobs,
    })
}

/// Messages read back, by hash, with their size as stored.
#[derive(Default)]
pub(crate) struct Loaded {
    messages: HashMap<String, (Value, usize)>,
}

impl Loaded {
    /// Hashes of `refs` not loaded yet (each once).
    pub(crate) fn missing<'a>(&self, refs: &'a [String]) -> Vec<&'a str> {
        let mut seen = HashSet::new();
        refs.iter()
            .map(String::as_str)
            .filter(|h| !self.messages.contains_key(*h) && seen.insert(*h))
            .collect()
    }

    /// Adds a stored message.
    pub(crate) fn add(&mut self, hash: String, text: &str) -> Result<(), StoreError> {
        let value = serde_json::from_str(text)
            .map_err(|e| StoreError::Corrupt(format!("checkpoint message {hash}: {e}")))?;
        self.messages.insert(hash, (value, text.len()));
        Ok(())
    }

    /// The stored size of the messages `refs` names (those loaded).
    pub(crate) fn size_of(&self, refs: &[String]) -> usize {
        refs.iter()
            .filter_map(|h| self.messages.get(h))
            .map(|(_, len)| *len)
            .sum()
    }

    /// `rest` with its `messages` put back.
    pub(crate) fn join(&self, mut rest: Value, refs: &[String]) -> Result<Value, StoreError> {
        let messages = refs
            .iter()
            .map(|h| {
                self.messages.get(h).map(|(v, _)| v.clone()).ok_or_else(|| {
                    StoreError::Corrupt(format!("checkpoint message {h} is missing"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        match &mut rest {
            Value::Object(obj) => {
                obj.insert("messages".into(), Value::Array(messages));
                Ok(rest)
            }
            _ => Err(StoreError::Corrupt(
                "a checkpoint with messages has a state that is not an object".into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn split_and_join_give_the_state_back_with_each_message_once() {
        let state = json!({
            "messages": [{"type": "human", "content": "hi"}, {"type": "ai", "content": "yo"},
                         {"type": "human", "content": "hi"}],
            "title": "t",
        });
        let split = split(&state).unwrap();
        assert_eq!(split.refs.len(), 3);
        assert_eq!(split.blobs.len(), 2, "the repeated message is one blob");
        assert_eq!(split.refs[0], split.refs[2]);
        let rest = split.rest.unwrap();
        assert_eq!(rest, json!({"title": "t"}));
        let mut loaded = Loaded::default();
        assert_eq!(loaded.missing(&split.refs).len(), 2);
        for (h, text) in &split.blobs {
            loaded.add(h.clone(), text).unwrap();
        }
        assert!(loaded.missing(&split.refs).is_empty());
        assert_eq!(loaded.join(rest, &split.refs).unwrap(), state);
    }

    #[test]
    fn states_without_a_message_list_are_kept_whole() {
        for state in [json!({}), json!({"messages": "x"}), json!([1])] {
            let split = split(&state).unwrap();
            assert!(split.rest.is_none() && split.refs.is_empty());
        }
    }

    #[test]
    fn a_missing_message_is_reported_as_corrupt() {
        let loaded = Loaded::default();
        let err = loaded.join(json!({}), &["abc".into()]).unwrap_err();
        assert!(matches!(err, StoreError::Corrupt(_)));
    }
}
