//! One person's facts ranked in memory: an inverted index with BM25 over their words, built
//! from the store and kept while the person's facts do not change (their version number in
//! the store, one key lookup per run start). A run start then ranks in microseconds instead
//! of asking the database to rank every fact that shares a word with the message.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use antler_agent_runtime::bm25;
use antler_store::{FactRecord, Store, StoreError};

use super::rank::usefulness;

/// Usefulness follows use (`last_used_at`), which does not change the version: an index
/// is rebuilt after this long anyway.
const MAX_AGE: Duration = Duration::from_secs(60);
/// People whose index is kept.
const MAX_PEOPLE: usize = 256;

/// One person's active facts, indexed.
pub(crate) struct FactIndex {
    version: u64,
    built: Instant,
    /// The facts.
    pub(crate) facts: Vec<FactRecord>,
    words: bm25::Index,
    /// Fact positions, most useful first, with their usefulness.
    pub(crate) useful: Vec<(usize, f64)>,
}

impl FactIndex {
    fn build(version: u64, facts: Vec<FactRecord>) -> Self {
        let words = bm25::Index::new(facts.iter().map(|f| bm25::words(&f.content)));
        let mut useful: Vec<(usize, f64)> = facts
            .iter()
            .enumerate()
            .map(|(i, f)| (i, usefulness(f)))
            .collect();
        useful.sort_by(|a, b| b.1.total_cmp(&a.1));
        FactIndex {
            version,
            built: Instant::now(),
            facts,
            words,
            useful,
        }
    }

    /// The facts matching `text`'s words that `visible` allows, best first, with their
    /// BM25 scores; at most `limit`.
    pub(crate) fn search(
        &self,
        text: &str,
        visible: impl Fn(&FactRecord) -> bool,
        limit: usize,
    ) -> Vec<(usize, f64)> {
        self.words.search(text, |i| visible(&self.facts[i]), limit)
    }
}

/// The indexes of the people whose facts were ranked lately.
#[derive(Default)]
pub(crate) struct FactCache(Mutex<HashMap<String, Arc<FactIndex>>>);

impl FactCache {
    /// `owner`'s index as of `version` (read by the caller), rebuilt when their facts
    /// changed or it is old.
    pub(crate) async fn at(
        &self,
        store: &Store,
        owner: &str,
        version: u64,
    ) -> Result<Arc<FactIndex>, StoreError> {
        let cached = self.lock().get(owner).cloned();
        if let Some(index) = cached
            && index.version == version
            && index.built.elapsed() < MAX_AGE
        {
            return Ok(index);
        }
        let facts = store.memory.active(owner).await?;
        let index = Arc::new(FactIndex::build(version, facts));
        let mut map = self.lock();
        if map.len() >= MAX_PEOPLE && !map.contains_key(owner) {
            map.clear();
        }
        map.insert(owner.to_string(), index.clone());
        Ok(index)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<FactIndex>>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;

    fn fact(id: &str, content: &str, assistant: Option<&str>) -> FactRecord {
        FactRecord {
            fact_id: id.into(),
            owner: "o".into(),
            assistant_id: assistant.map(str::to_string),
            content: content.into(),
            category: antler_protocol::memory::FactCategory::Context,
            confidence: 0.9,
            confirmations: 0,
            source_thread: None,
            supersedes: None,
            active: true,
            created_at: Utc::now(),
            updated_at: Utc::now(),
            last_used_at: None,
        }
    }

    #[test]
    fn rare_words_rank_first_and_invisible_facts_are_left_out() {
        let index = FactIndex::build(
            3,
            vec![
                fact("a", "Likes tea and bread", None),
                fact("b", "Bakes sourdough bread every Sunday", None),
                fact("c", "Bakes for the bakery assistant", Some("other")),
            ],
        );
        let found = index.search("what sourdough bread?", |f| f.assistant_id.is_none(), 10);
        let ids: Vec<&str> = found
            .iter()
            .map(|(i, _)| index.facts[*i].fact_id.as_str())
            .collect();
        assert_eq!(ids, ["b", "a"]);
        // The shared scorer, over the facts' words.
        let docs: Vec<Vec<String>> = index
            .facts
            .iter()
            .map(|f| bm25::words(&f.content))
            .collect();
        assert_eq!(found, bm25::rank(&docs, "what sourdough bread?", 10));
        assert!(
            index
                .search("bakery", |f| f.assistant_id.is_none(), 10)
                .is_empty()
        );
        assert_eq!(index.useful.len(), 3);
    }
}
