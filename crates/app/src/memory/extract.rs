//! Learning from conversations: a thread whose run ended well is queued (in the database,
//! debounced per thread, claimed by one replica), then the model reads its latest turns with
//! what is already known and answers in JSON which facts to add, confirm, update or delete.
//! An answer that is not valid is sent back once with the error.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use tracing::Instrument;

use antler_agent_runtime::model::ModelClient;
use antler_protocol::messages::Message;
use antler_protocol::threads::ThreadValues;
use antler_store::{FactQuery, FactRecord, Learned, QueuedTurn, Store};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{MemoryConfig, secrets::looks_secret};
use antler_protocol::memory::FactCategory;
use antler_protocol::validation::MAX_FACT_CHARS;

const SYSTEM: &str = "You maintain what an assistant remembers about a person across conversations. \
Read the known facts and the latest conversation, and answer with ONLY a JSON object: \
{\"add\": [{\"content\": \"…\", \"category\": \"preference|knowledge|context|behavior|goal\", \"confidence\": 0.0-1.0}], \
\"confirm\": [\"<id of a known fact the conversation shows again>\"], \
\"update\": [{\"id\": \"<id>\", \"content\": \"<the corrected fact>\"}], \
\"delete\": [\"<id of a known fact the person says is wrong or wants forgotten>\"]}. \
Keep only lasting facts about the person (preferences, background, goals, how they work), one short sentence each, \
never secrets (passwords, keys, tokens), never facts about the assistant. Use empty lists when there is nothing.";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Extraction {
    #[serde(default)]
    add: Vec<NewFact>,
    #[serde(default)]
    confirm: Vec<String>,
    #[serde(default)]
    update: Vec<Correction>,
    #[serde(default)]
    delete: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct NewFact {
    content: String,
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    confidence: Option<f64>,
}

#[derive(Debug, Deserialize)]
struct Correction {
    id: String,
    content: String,
}

/// Reads queued conversations and learns from them.
pub(crate) struct Extractor {
    pub(crate) store: Store,
    pub(crate) cfg: MemoryConfig,
    pub(crate) model: Option<ModelClient>,
    pub(crate) instance: String,
}

impl Extractor {
    /// Works the queue until the process ends.
    pub(crate) fn start(self: Arc<Self>) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                // A claim older than this is another replica's that died.
                let stale = i64::try_from(self.cfg.claim_timeout_secs)
                    .ok()
                    .and_then(chrono::TimeDelta::try_seconds)
                    .and_then(|age| Utc::now().checked_sub_signed(age))
                    .unwrap_or(chrono::DateTime::<Utc>::MIN_UTC);
                match self.store.memory_queue.claim(&self.instance, stale).await {
                    Ok(Some(item)) => self.handle(item).await,
                    Ok(None) => tokio::time::sleep(Duration::from_millis(500)).await,
                    Err(e) => {
                        tracing::warn!(error = %e, "memory queue could not be read");
                        tokio::time::sleep(Duration::from_secs(5)).await;
                    }
                }
            }
        })
    }

    async fn handle(&self, item: QueuedTurn) {
        // The claim is renewed while the model reads, so no other replica takes it over; one
        // that did (this replica stalled) is left to finish.
        let every = Duration::from_millis((self.cfg.claim_timeout_secs * 1000 / 3).max(200));
        let span = antler_agent_runtime::telemetry::memory_span(&item.owner, &item.thread_id);
        let learning = self.learn(&item).instrument(span.clone());
        tokio::pin!(learning);
        let result = loop {
            tokio::select! {
                r = &mut learning => break r,
                () = tokio::time::sleep(every) => {
                    match self.store.memory_queue.renew(&item, &self.instance).await {
                        Ok(true) => {}
                        Ok(false) => {
                            tracing::info!(thread.id = %item.thread_id, "another replica took this conversation over");
                            return;
                        }
                        Err(e) => tracing::warn!(error = %e, "the memory claim could not be renewed"),
                    }
                }
            }
        };
        if result.is_err() {
            antler_agent_runtime::telemetry::span_failed(&span, "memory");
        }
        let stored = match &result {
            // Finished with what was learned, in the same transaction.
            Ok(Read::Applied) => return,
            Ok(Read::TakenOver) => {
                tracing::info!(thread.id = %item.thread_id, "another replica took this conversation over");
                return;
            }
            Ok(Read::Nothing) => self.store.memory_queue.finish(&item).await,
            Err(why) if item.attempts < 3 => {
                tracing::warn!(thread.id = %item.thread_id, %why, attempt = item.attempts, "memory extraction failed; it will be tried again");
                let later = Utc::now() + chrono::Duration::seconds(30 * item.attempts);
                self.store.memory_queue.retry(&item, later).await
            }
            Err(why) => {
                tracing::warn!(thread.id = %item.thread_id, %why, "memory extraction failed three times; the turn is skipped");
                self.store.memory_queue.finish(&item).await
            }
        };
        if let Err(e) = stored {
            tracing::warn!(error = %e, "memory queue could not be updated");
        }
    }

    /// Reads a thread's latest turns and applies what the model found.
    async fn learn(&self, item: &QueuedTurn) -> Result<Read, String> {
        let owner = item.owner.as_str();
        let store = &self.store;
        let err = |e: antler_store::StoreError| e.to_string();
        if !store.memory.settings(owner).await.map_err(err)?.enabled {
            return Ok(Read::Nothing);
        }
        let Some(thread) = store
            .threads
            .get(owner, &item.thread_id)
            .await
            .map_err(err)?
        else {
            return Ok(Read::Nothing);
        };
        let values = ThreadValues::from_value(&thread.values).map_err(|e| e.to_string())?;
        let conversation = conversation(&values.messages);
        if conversation.is_empty() {
            return Ok(Read::Nothing);
        }
        let Some(model) = &self.model else {
            return Err("no model is configured".into());
        };
        let Some(scope) = self.scope_of(owner, &item.thread_id).await.map_err(err)? else {
            tracing::info!(thread.id = %item.thread_id, "two agents with memory of their own spoke in this conversation; nothing is learned from it");
            return Ok(Read::Nothing);
        };
        let scope = scope.as_deref();
        let known: Vec<FactRecord> = store
            .memory
            .list(
                owner,
                &FactQuery {
                    limit: 100,
                    ..FactQuery::visible_to(scope)
                },
            )
            .await
            .map_err(err)?
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        let facts: String = known
            .iter()
            .map(|f| format!("{}: [{}] {}\n", f.fact_id, f.category, f.content))
            .collect();
        let mut request = vec![
            json!({"role": "system", "content": SYSTEM}),
            json!({"role": "user", "content": format!(
                "Known facts:\n{}\nConversation:\n{conversation}",
                if facts.is_empty() { "(none)\n".to_string() } else { facts }
            )}),
        ];
        let cancel = CancellationToken::new();
        let mut answer = ask(model, &request, &cancel).await?;
        let extraction = match parse(&answer) {
            Ok(x) => x,
            Err(why) => {
                request.push(json!({"role": "assistant", "content": answer}));
                request.push(json!({"role": "user", "content": format!(
                    "That answer was not valid: {why}. Answer again with only the JSON object."
                )}));
                answer = ask(model, &request, &cancel).await?;
                parse(&answer).map_err(|why| format!("the answer was not valid twice: {why}"))?
            }
        };
        match self.apply(item, scope, &known, extraction).await {
            Ok(true) => Ok(Read::Applied),
            Ok(false) => Ok(Read::TakenOver),
            Err(e) => Err(err(e)),
        }
    }

    /// Whose a conversation's facts are: the assistant with memory of its own that spoke in
    /// it (what the person told it stays with it), or the person's shared memory (`None`);
    /// `Ok(None)` for the outer option when two such assistants spoke in it.
    async fn scope_of(
        &self,
        owner: &str,
        thread_id: &str,
    ) -> Result<Option<Option<String>>, antler_store::StoreError> {
        let runs = self.store.runs.list(thread_id, None, 1000, 0).await?;
        let assistants: std::collections::BTreeSet<String> =
            runs.into_iter().map(|r| r.assistant_id).collect();
        let mut private = Vec::new();
        for id in assistants {
            let Some(record) = self.store.assistants.get(owner, &id).await? else {
                continue;
            };
            let settings = crate::assistants::settings::read(&record.config, &record.context)
                .unwrap_or_default();
            if settings.memory_scope == Some(antler_protocol::assistants::MemoryScope::Assistant) {
                private.push(id);
            }
        }
        Ok(match private.len() {
            0 => Some(None),
            1 => Some(private.pop()),
            _ => None,
        })
    }

    /// Applies what the model found, and ends the turn, in one transaction; new facts
    /// belong to `scope`. A conversation with an agent of memory of its own never changes
    /// the shared facts: a correction of one becomes that agent's own fact, and it forgets
    /// none. At most `memory.max_new_facts_per_conversation` facts are added (the most
    /// confident), so one conversation cannot push out everything else.
    async fn apply(
        &self,
        item: &QueuedTurn,
        scope: Option<&str>,
        known: &[FactRecord],
        x: Extraction,
    ) -> Result<bool, antler_store::StoreError> {
        let (owner, thread_id) = (item.owner.as_str(), item.thread_id.as_str());
        let ids: HashSet<&str> = known.iter().map(|f| f.fact_id.as_str()).collect();
        let mut confirmed: HashSet<String> = x
            .confirm
            .into_iter()
            .filter(|id| ids.contains(id.as_str()))
            .collect();
        let now = Utc::now();
        let mut learned = Learned::default();
        let mut seen = HashSet::new();
        let mut candidates = Vec::new();
        for f in x.add {
            let content = f.content.trim().to_string();
            let confidence = f.confidence.unwrap_or(0.8).clamp(0.0, 1.0);
            if content.is_empty()
                || content.chars().count() > MAX_FACT_CHARS
                || confidence < self.cfg.min_confidence
                || looks_secret(&content)
                || !seen.insert(content.to_lowercase())
            {
                continue;
            }
            // Known already: found again.
            if let Some(same) = known
                .iter()
                .find(|k| k.content.eq_ignore_ascii_case(&content))
            {
                confirmed.insert(same.fact_id.clone());
                continue;
            }
            // The model's word, read leniently: an unknown category is `context`.
            let category = f
                .category
                .and_then(|c| c.parse::<FactCategory>().ok())
                .unwrap_or_default();
            candidates.push(FactRecord {
                fact_id: uuid::Uuid::new_v4().to_string(),
                owner: owner.to_string(),
                assistant_id: scope.map(str::to_string),
                content,
                category,
                confidence,
                confirmations: 0,
                source_thread: Some(thread_id.to_string()),
                supersedes: None,
                active: true,
                created_at: now,
                updated_at: now,
                last_used_at: None,
            });
        }
        // The most confident first; the stable sort keeps the model's order on ties.
        candidates.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
        let dropped = candidates
            .len()
            .saturating_sub(self.cfg.max_new_facts_per_conversation);
        candidates.truncate(self.cfg.max_new_facts_per_conversation);
        learned.add = candidates;
        learned.confirm = confirmed.into_iter().collect();
        for c in x.update {
            let Some(old) = known.iter().find(|k| k.fact_id == c.id) else {
                continue;
            };
            let content = c.content.trim().to_string();
            if content.is_empty()
                || content.chars().count() > MAX_FACT_CHARS
                || looks_secret(&content)
            {
                continue;
            }
            if scope.is_some() && old.assistant_id.is_none() {
                learned.add.push(FactRecord {
                    fact_id: uuid::Uuid::new_v4().to_string(),
                    content,
                    assistant_id: scope.map(str::to_string),
                    source_thread: Some(thread_id.to_string()),
                    confirmations: 0,
                    supersedes: None,
                    created_at: now,
                    updated_at: now,
                    last_used_at: None,
                    ..old.clone()
                });
                continue;
            }
            let next = FactRecord {
                fact_id: uuid::Uuid::new_v4().to_string(),
                content,
                supersedes: Some(old.fact_id.clone()),
                // Versions keep their first thread, so forgetting it takes them all.
                created_at: now,
                updated_at: now,
                ..old.clone()
            };
            learned.supersede.push((old.fact_id.clone(), next));
        }
        for id in x.delete.iter().filter(|id| ids.contains(id.as_str())) {
            let shared = known
                .iter()
                .any(|k| k.fact_id == *id && k.assistant_id.is_none());
            if scope.is_none() || !shared {
                learned.delete.push(id.clone());
            }
        }
        // What stays over the maximum once all of this is applied.
        let gone: HashSet<&str> = learned
            .delete
            .iter()
            .chain(learned.supersede.iter().map(|(old, _)| old))
            .map(String::as_str)
            .collect();
        let mut after: Vec<FactRecord> = self
            .store
            .memory
            .active(owner)
            .await?
            .into_iter()
            .filter(|f| !gone.contains(f.fact_id.as_str()))
            .collect();
        after.extend(learned.add.iter().cloned());
        after.extend(learned.supersede.iter().map(|(_, next)| next.clone()));
        learned.evict = super::rank::least_useful(&after, self.cfg.max_facts, now);
        let applied = self
            .store
            .memory_queue
            .apply_learned(item, &learned)
            .await?;
        tracing::info!(
            thread.id = thread_id,
            added = learned.add.len(),
            over_the_cap = dropped,
            confirmed = learned.confirm.len(),
            corrected = learned.supersede.len(),
            deleted = learned.delete.len(),
            evicted = learned.evict.len(),
            applied,
            "memory learned from a conversation"
        );
        Ok(applied)
    }
}

/// How a reading of a conversation ended.
enum Read {
    /// Nothing to learn (memory off, no thread, no messages): the turn is finished.
    Nothing,
    /// What was learned is stored and the turn finished, together.
    Applied,
    /// Another replica holds the turn now: nothing was changed.
    TakenOver,
}

async fn ask(
    model: &ModelClient,
    request: &[Value],
    cancel: &CancellationToken,
) -> Result<String, String> {
    let call = model.complete(request.to_vec(), Some(1000), cancel);
    match tokio::time::timeout(Duration::from_secs(120), call).await {
        Ok(Ok(done)) => Ok(done.turn.content),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("the model did not answer within 120 s".into()),
    }
}

/// The JSON object of an answer (code fences around it are allowed).
fn parse(answer: &str) -> Result<Extraction, String> {
    let text = answer.trim();
    let text = text
        .strip_prefix("```json")
        .or_else(|| text.strip_prefix("```"))
        .and_then(|t| t.strip_suffix("```"))
        .unwrap_or(text);
    serde_json::from_str(text.trim()).map_err(|e| e.to_string())
}

/// The latest turns as text: the person's and the assistant's words, not tool output.
fn conversation(messages: &[Message]) -> String {
    let mut lines: Vec<String> = messages
        .iter()
        .rev()
        .filter_map(|m| match m {
            Message::Human(h) if !h.content.trim().is_empty() => {
                Some(format!("User: {}", clip(&h.content)))
            }
            Message::Ai(a) if !a.content.trim().is_empty() => {
                Some(format!("Assistant: {}", clip(&a.content)))
            }
            _ => None,
        })
        .take(12)
        .collect();
    lines.reverse();
    lines.join("\n")
}

fn clip(text: &str) -> String {
    let clipped: String = text.chars().take(2000).collect();
    clipped.replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn answers_are_read_with_or_without_fences_and_checked() {
        let x = parse("```json\n{\"add\": [{\"content\": \"Likes tea\"}]}\n```").unwrap();
        assert_eq!(x.add.len(), 1);
        assert!(parse("{\"add\": \"tea\"}").is_err());
        assert!(
            parse("{\"remember\": []}").is_err(),
            "unknown keys are an error"
        );
        assert!(parse("I think they like tea").is_err());
        assert!(parse("{}").is_ok());
    }
}
