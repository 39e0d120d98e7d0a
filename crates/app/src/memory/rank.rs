//! Which facts matter most: usefulness (confidence, confirmations, recent use) and the
//! eviction it decides.

use antler_store::{FactRecord, Store, StoreError};
use chrono::Utc;

/// Keeps at most `max` active facts of `owner`: the least useful go.
pub(crate) async fn evict(store: &Store, owner: &str, max: usize) -> Result<(), StoreError> {
    let count = store.memory.count(owner).await? as usize;
    if count <= max {
        return Ok(());
    }
    let facts: Vec<FactRecord> = store.memory.active(owner).await?;
    for id in least_useful(&facts, max, Utc::now()) {
        store.memory.delete(owner, &id).await?;
    }
    Ok(())
}

/// The ids of the facts past the `max` most useful of `facts`.
pub(super) fn least_useful(
    facts: &[FactRecord],
    max: usize,
    now: chrono::DateTime<Utc>,
) -> Vec<String> {
    if facts.len() <= max {
        return Vec::new();
    }
    // Scores computed once: a comparator reading the clock could contradict itself.
    let mut scored: Vec<(f64, &FactRecord)> =
        facts.iter().map(|f| (usefulness_at(f, now), f)).collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| b.1.updated_at.cmp(&a.1.updated_at))
    });
    scored
        .iter()
        .skip(max)
        .map(|(_, f)| f.fact_id.clone())
        .collect()
}

/// How useful a fact is to keep: confidence, confirmations and recent use.
pub(super) fn usefulness(f: &FactRecord) -> f64 {
    usefulness_at(f, Utc::now())
}

fn usefulness_at(f: &FactRecord, now: chrono::DateTime<Utc>) -> f64 {
    let used = f.last_used_at.unwrap_or(f.updated_at);
    let days = (now - used).num_seconds().max(0) as f64 / 86_400.0;
    f.confidence * (1.0 + 0.1 * f.confirmations as f64) / (1.0 + days / 30.0)
}

/// What an import does: the facts to add, the remembered ones to forget, and what was left
/// out.
#[derive(Debug, Default)]
pub(super) struct ImportPlan {
    /// New facts kept.
    pub(super) add: Vec<FactRecord>,
    /// Remembered facts (ids) forgotten to make room.
    pub(super) evict: Vec<String>,
    /// New facts already remembered, or repeated in the import.
    pub(super) duplicates: u64,
    /// New facts less useful than the `max` kept.
    pub(super) not_kept: u64,
}

/// The same fact, however it is spaced or capitalised, for the same assistant.
fn dedupe_key(f: &FactRecord) -> (String, Option<String>) {
    let words: Vec<String> = f
        .content
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    (words.join(" "), f.assistant_id.clone())
}

/// Decides an import: duplicates of remembered facts (or of each other) are skipped, then
/// the `max` most useful of old and new together are kept.
pub(super) fn plan_import(
    existing: Vec<FactRecord>,
    fresh: Vec<FactRecord>,
    max: usize,
    now: chrono::DateTime<Utc>,
) -> ImportPlan {
    let mut plan = ImportPlan::default();
    let mut seen: std::collections::HashSet<_> = existing.iter().map(dedupe_key).collect();
    let mut all: Vec<(f64, bool, FactRecord)> = existing
        .into_iter()
        .map(|f| (usefulness_at(&f, now), false, f))
        .collect();
    for f in fresh {
        if seen.insert(dedupe_key(&f)) {
            all.push((usefulness_at(&f, now), true, f));
        } else {
            plan.duplicates += 1;
        }
    }
    // Most useful first; on a tie the remembered fact stays (its history is worth more).
    all.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (rank, (_, new, f)) in all.into_iter().enumerate() {
        match (rank < max, new) {
            (true, true) => plan.add.push(f),
            (true, false) => {}
            (false, true) => plan.not_kept += 1,
            (false, false) => plan.evict.push(f.fact_id),
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(content: &str, confidence: f64) -> FactRecord {
        let now = Utc::now();
        FactRecord {
            fact_id: uuid::Uuid::new_v4().to_string(),
            owner: "o".into(),
            assistant_id: None,
            content: content.into(),
            category: antler_protocol::memory::FactCategory::Context,
            confidence,
            confirmations: 0,
            source_thread: None,
            supersedes: None,
            active: true,
            created_at: now,
            updated_at: now,
            last_used_at: None,
        }
    }

    #[test]
    fn an_import_skips_what_is_remembered_and_keeps_the_most_useful() {
        let now = Utc::now();
        let old = vec![fact("Lives in Lyon", 0.9), fact("Likes tea", 0.5)];
        let new = vec![
            fact("lives  in LYON", 1.0),
            fact("Works on compilers", 0.8),
            fact("Works on compilers", 0.8),
            fact("Plays chess", 0.95),
        ];
        let plan = plan_import(old, new, 3, now);
        assert_eq!(plan.duplicates, 2);
        let added: Vec<_> = plan.add.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(added, ["Plays chess", "Works on compilers"]);
        assert_eq!(
            plan.evict.len(),
            1,
            "the least useful remembered fact makes room"
        );
        assert_eq!(plan.not_kept, 0);
        let plan = plan_import(Vec::new(), vec![fact("a", 0.9), fact("b", 0.1)], 1, now);
        assert_eq!((plan.add.len(), plan.not_kept), (1, 1));
    }
}
