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
    let mut facts: Vec<FactRecord> = store.memory.active(owner).await?;
    // Scores computed once: a comparator reading the clock could contradict itself.
    let now = Utc::now();
    let mut scored: Vec<(f64, FactRecord)> = facts
        .drain(..)
        .map(|f| (usefulness_at(&f, now), f))
        .collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| b.1.updated_at.cmp(&a.1.updated_at))
    });
    for (_, f) in scored.iter().skip(max) {
        store.memory.delete(owner, &f.fact_id).await?;
    }
    Ok(())
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
