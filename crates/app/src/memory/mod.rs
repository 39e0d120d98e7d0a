//! Long-term memory: what the agent remembers about each person — facts they can list,
//! search, add, correct (an update keeps the old version as history), delete and export —
//! and the facts each run is given, the most relevant within a budget.

mod extract;
mod index;
mod rank;
mod runs;
mod secrets;

use antler_protocol::memory::{
    Fact, FactCategory, FactCreate, FactPatch, MemoryExport, MemoryImported, MemoryList,
    MemorySettingsBody,
};
use antler_store::threads::timestamp;
use antler_store::{FactQuery, FactRecord, MemorySettings, Store, StoreError};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::Caller;

use antler_protocol::validation::{MAX_FACT_CHARS, MAX_IMPORTED_FACTS};

/// `memory` in the configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryConfig {
    /// Memory at all (each person can also switch theirs off).
    pub enabled: bool,
    /// Most facts kept per person; over it, the least useful go (lowest confidence, fewest
    /// confirmations, longest unused).
    pub max_facts: usize,
    /// Tokens (about 4 characters each) of facts one run is given.
    pub injection_max_tokens: usize,
    /// Learn facts from conversations after their runs.
    pub extraction: bool,
    /// Seconds a conversation must be quiet before it is read (a burst of turns is read
    /// once).
    pub debounce_secs: u64,
    /// Seconds after which a conversation claimed by a replica that stopped (crashed,
    /// killed) is taken over by another.
    pub claim_timeout_secs: u64,
    /// Facts the model is less sure of are not kept.
    pub min_confidence: f64,
    /// Most new facts one reading of a conversation adds (the most confident kept), so one
    /// conversation cannot push out everything else.
    pub max_new_facts_per_conversation: usize,
    /// The model that reads conversations (a configured name; the default model when empty).
    pub model: Option<String>,
    /// Tool mode for every run: the model searches, adds, corrects and deletes facts itself
    /// (`memory_search`, `memory_add`, `memory_update`, `memory_delete`); an assistant's
    /// `memory_tools` decides for its runs.
    pub tools: bool,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            enabled: true,
            max_facts: 100,
            injection_max_tokens: 2000,
            extraction: true,
            debounce_secs: 30,
            claim_timeout_secs: 300,
            min_confidence: 0.7,
            max_new_facts_per_conversation: 10,
            model: None,
            tools: false,
        }
    }
}

/// What can go wrong with memory.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// No such fact for this person.
    #[error("no fact '{0}'")]
    NotFound(String),
    /// The request is not valid.
    #[error("{0}")]
    Invalid(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The memory use-cases.
#[derive(Clone)]
pub struct MemoryService {
    store: Store,
    cfg: MemoryConfig,
    /// People's facts indexed for ranking at run start.
    facts: std::sync::Arc<index::FactCache>,
}

impl std::fmt::Debug for MemoryService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryService").finish_non_exhaustive()
    }
}

fn wire(r: FactRecord) -> Fact {
    Fact {
        fact_id: r.fact_id,
        content: r.content,
        category: r.category,
        confidence: r.confidence,
        confirmations: r.confirmations,
        assistant_id: r.assistant_id,
        source_thread: r.source_thread,
        supersedes: r.supersedes,
        created_at: timestamp(r.created_at),
        updated_at: timestamp(r.updated_at),
        last_used_at: r.last_used_at.map(timestamp),
    }
}

/// A new fact `owner` gave (added or imported), checked.
fn given_fact(owner: &str, req: FactCreate, now: DateTime<Utc>) -> Result<FactRecord, MemoryError> {
    Ok(FactRecord {
        fact_id: uuid::Uuid::new_v4().to_string(),
        owner: owner.to_string(),
        assistant_id: req.assistant_id.filter(|a| !a.trim().is_empty()),
        content: checked_content(&req.content)?,
        category: req.category.unwrap_or_default(),
        confidence: checked_confidence(req.confidence)?,
        confirmations: 0,
        source_thread: None,
        supersedes: None,
        active: true,
        created_at: now,
        updated_at: now,
        last_used_at: None,
    })
}

/// A fact's text as stored (trimmed): not blank, at most [`MAX_FACT_CHARS`] as sent, and
/// nothing that looks like a secret.
fn checked_content(content: &str) -> Result<String, MemoryError> {
    if content.chars().count() > MAX_FACT_CHARS || content.trim().is_empty() {
        return Err(MemoryError::Invalid(format!(
            "content must be 1-{MAX_FACT_CHARS} characters, not blank"
        )));
    }
    if secrets::looks_secret(content) {
        return Err(MemoryError::Invalid(
            "this looks like a secret (a key, token or password); secrets are never remembered"
                .into(),
        ));
    }
    Ok(content.trim().to_string())
}

/// A summary as stored: none when blank, else checked as a fact's text is.
fn checked_summary(summary: Option<&str>) -> Result<Option<String>, MemoryError> {
    match summary {
        Some(s) if s.chars().count() > MAX_FACT_CHARS => Err(MemoryError::Invalid(format!(
            "summary: at most {MAX_FACT_CHARS} characters"
        ))),
        None => Ok(None),
        Some(s) if s.trim().is_empty() => Ok(None),
        Some(s) => checked_content(s)
            .map(Some)
            .map_err(|e| MemoryError::Invalid(format!("summary: {e}"))),
    }
}

fn checked_confidence(confidence: Option<f64>) -> Result<f64, MemoryError> {
    match confidence {
        None => Ok(1.0),
        Some(c) if (0.0..=1.0).contains(&c) => Ok(c),
        Some(_) => Err(MemoryError::Invalid(
            "confidence must be between 0 and 1".into(),
        )),
    }
}

impl MemoryService {
    pub(crate) fn new(store: Store, cfg: MemoryConfig) -> Self {
        MemoryService {
            store,
            cfg,
            facts: std::sync::Arc::default(),
        }
    }

    /// The caller's facts (searched when `search` is given) and settings.
    pub async fn list(
        &self,
        caller: &Caller,
        search: Option<String>,
        category: Option<FactCategory>,
        limit: u32,
        offset: u32,
    ) -> Result<MemoryList, MemoryError> {
        let owner = caller.owner();
        let query = FactQuery {
            search: search.filter(|s| !s.trim().is_empty()),
            category,
            limit: limit.clamp(1, 1000),
            offset,
            ..FactQuery::default()
        };
        let facts = self.store.memory.list(owner, &query).await?;
        let settings = self.store.memory.settings(owner).await?;
        Ok(MemoryList {
            facts: facts.into_iter().map(|(f, _)| wire(f)).collect(),
            total: self.store.memory.count(owner).await?,
            summary: settings.summary,
            enabled: settings.enabled,
        })
    }

    /// Remembers a fact the person gave.
    pub async fn add(&self, caller: &Caller, req: FactCreate) -> Result<Fact, MemoryError> {
        let fact = given_fact(caller.owner(), req, Utc::now())?;
        self.store.memory.add(&fact).await?;
        evict(&self.store, caller.owner(), self.cfg.max_facts).await?;
        Ok(wire(fact))
    }

    /// A corrected version of a fact; the old one stays as its history.
    pub async fn update(
        &self,
        caller: &Caller,
        fact_id: &str,
        patch: FactPatch,
    ) -> Result<Fact, MemoryError> {
        let owner = caller.owner();
        let current = self
            .store
            .memory
            .get(owner, fact_id)
            .await?
            .filter(|f| f.active)
            .ok_or_else(|| MemoryError::NotFound(fact_id.chars().take(80).collect()))?;
        let now = Utc::now();
        let next = FactRecord {
            fact_id: uuid::Uuid::new_v4().to_string(),
            content: match &patch.content {
                Some(c) => checked_content(c)?,
                None => current.content.clone(),
            },
            category: match &patch.category {
                Some(c) => *c,
                None => current.category,
            },
            confidence: match patch.confidence {
                Some(c) => checked_confidence(Some(c))?,
                None => current.confidence,
            },
            supersedes: Some(current.fact_id.clone()),
            created_at: now,
            updated_at: now,
            ..current
        };
        if !self.store.memory.supersede(owner, fact_id, &next).await? {
            return Err(MemoryError::NotFound(fact_id.chars().take(80).collect()));
        }
        Ok(wire(next))
    }

    /// Forgets a fact with its history.
    pub async fn delete(&self, caller: &Caller, fact_id: &str) -> Result<(), MemoryError> {
        if self.store.memory.delete(caller.owner(), fact_id).await? {
            Ok(())
        } else {
            Err(MemoryError::NotFound(fact_id.chars().take(80).collect()))
        }
    }

    /// Forgets everything about the caller; answers how many facts went.
    pub async fn forget_all(&self, caller: &Caller) -> Result<u64, MemoryError> {
        let owner = caller.owner();
        // The facts the person knows of; their history goes too.
        let n = self.store.memory.count(owner).await?;
        // What is queued would bring some of it back.
        self.store.memory_queue.drop_queued(owner, None).await?;
        self.store.memory.forget_all(owner).await?;
        let mut settings = self.store.memory.settings(owner).await?;
        settings.summary = None;
        self.store.memory.set_settings(owner, &settings).await?;
        tracing::info!(facts = n, "memory forgotten at its owner's request");
        Ok(n)
    }

    /// Forgets the facts learned from one of the caller's threads (with their history).
    pub async fn forget_thread(
        &self,
        caller: &Caller,
        thread_id: &str,
    ) -> Result<u64, MemoryError> {
        self.store
            .memory_queue
            .drop_queued(caller.owner(), Some(thread_id))
            .await?;
        Ok(self
            .store
            .memory
            .forget_thread(caller.owner(), thread_id)
            .await?)
    }

    /// The caller's settings.
    pub async fn settings(&self, caller: &Caller) -> Result<MemorySettingsBody, MemoryError> {
        let s = self.store.memory.settings(caller.owner()).await?;
        Ok(MemorySettingsBody {
            enabled: s.enabled,
            summary: s.summary,
        })
    }

    /// Stores the caller's settings.
    pub async fn set_settings(
        &self,
        caller: &Caller,
        body: MemorySettingsBody,
    ) -> Result<MemorySettingsBody, MemoryError> {
        let summary = checked_summary(body.summary.as_deref())?;
        let settings = MemorySettings {
            enabled: body.enabled,
            summary,
        };
        self.store
            .memory
            .set_settings(caller.owner(), &settings)
            .await?;
        Ok(MemorySettingsBody {
            enabled: settings.enabled,
            summary: settings.summary,
        })
    }

    /// Everything about the caller, to keep or to move.
    pub async fn export(&self, caller: &Caller) -> Result<MemoryExport, MemoryError> {
        let owner = caller.owner();
        // Every active fact, however many: an export is the whole memory.
        let facts = self.store.memory.active(owner).await?;
        Ok(MemoryExport {
            facts: facts
                .into_iter()
                .map(|f| FactCreate {
                    content: f.content,
                    category: Some(f.category),
                    confidence: Some(f.confidence),
                    assistant_id: f.assistant_id,
                })
                .collect(),
            summary: self.store.memory.settings(owner).await?.summary,
        })
    }

    /// Adds exported facts in one transaction (each checked first: one invalid fact refuses
    /// the whole import). Facts already remembered are skipped, so importing the same file
    /// twice changes nothing; over `memory.max_facts`, the least useful of old and new alike
    /// are not kept, and the answer says how many of each.
    pub async fn import(
        &self,
        caller: &Caller,
        data: MemoryExport,
    ) -> Result<MemoryImported, MemoryError> {
        if data.facts.len() > MAX_IMPORTED_FACTS {
            return Err(MemoryError::Invalid(format!(
                "at most {MAX_IMPORTED_FACTS} facts per import"
            )));
        }
        let summary = checked_summary(data.summary.as_deref())?;
        let owner = caller.owner();
        let now = Utc::now();
        let mut fresh = Vec::with_capacity(data.facts.len());
        for (i, f) in data.facts.into_iter().enumerate() {
            let at = |e: MemoryError| MemoryError::Invalid(format!("facts[{i}]: {e}"));
            fresh.push(given_fact(owner, f, now).map_err(at)?);
        }
        let existing = self.store.memory.active(owner).await?;
        let plan = rank::plan_import(existing, fresh, self.cfg.max_facts, now);
        let added = self
            .store
            .memory
            .import(owner, &plan.add, &plan.evict, summary.as_deref())
            .await?;
        let outcome = MemoryImported {
            count: added,
            duplicates: plan.duplicates + (plan.add.len() as u64 - added),
            not_kept: plan.not_kept,
            evicted: plan.evict.len() as u64,
            total: self.store.memory.count(owner).await?,
        };
        tracing::info!(
            added = outcome.count,
            duplicates = outcome.duplicates,
            not_kept = outcome.not_kept,
            evicted = outcome.evicted,
            "memory imported"
        );
        Ok(outcome)
    }
}

pub(crate) use rank::evict;
pub(crate) use runs::{extraction_model, source};

#[cfg(test)]
mod tests {
    use super::*;

    /// The limits count what was sent, as the OpenAPI document's `maxLength` does.
    #[test]
    fn fact_text_is_counted_as_sent_trimmed_when_kept_and_never_blank() {
        assert_eq!(checked_content("  Likes tea ").unwrap(), "Likes tea");
        assert!(checked_content(&"x".repeat(MAX_FACT_CHARS)).is_ok());
        for bad in [
            String::new(),
            " \u{3000}\n".to_string(),
            "x".repeat(MAX_FACT_CHARS + 1),
            format!(" {}", "x".repeat(MAX_FACT_CHARS)),
        ] {
            assert!(checked_content(&bad).is_err(), "{bad:?}");
        }
        assert_eq!(checked_summary(Some("   ")).unwrap(), None);
        assert_eq!(checked_summary(None).unwrap(), None);
        assert!(checked_summary(Some(&" ".repeat(MAX_FACT_CHARS + 1))).is_err());
    }
}
