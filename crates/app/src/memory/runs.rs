//! Memory in runs: the facts a run is given, tool mode, learning after a run, and
//! starting the extraction worker.

use std::sync::Arc;

use antler_agent_runtime::config::ModelConfig;
use antler_agent_runtime::memory::{MemorySource, RememberedFact};
use antler_protocol::memory::{FactCategory, FactCreate, FactPatch};
use antler_store::{FactQuery, FactRecord, StoreError};
use async_trait::async_trait;
use chrono::Utc;

use super::rank::usefulness;
use super::{MemoryService, extract};
use crate::{Caller, Config};

fn remembered(f: FactRecord) -> RememberedFact {
    RememberedFact {
        id: f.fact_id,
        content: f.content,
        category: f.category,
    }
}

#[async_trait]
impl MemorySource for MemoryService {
    async fn for_run(&self, owner: &str, assistant_id: &str, text: &str) -> Vec<RememberedFact> {
        if !self.cfg.enabled {
            return Vec::new();
        }
        match self.relevant(owner, assistant_id, text).await {
            Ok(facts) => facts,
            Err(e) => {
                // A run without memory beats a run that fails.
                tracing::warn!(error = %e, "memory could not be read for a run");
                Vec::new()
            }
        }
    }

    async fn search(
        &self,
        owner: &str,
        assistant_id: &str,
        query: &str,
    ) -> Result<Vec<RememberedFact>, String> {
        self.usable(owner).await?;
        let query = FactQuery {
            assistant_id: Some(assistant_id.to_string()),
            search: Some(query.to_string()),
            limit: 20,
            ..FactQuery::default()
        };
        let found = self
            .store
            .memory
            .list(owner, &query)
            .await
            .map_err(|e| e.to_string())?;
        Ok(found.into_iter().map(|(f, _)| remembered(f)).collect())
    }

    async fn add(
        &self,
        owner: &str,
        scope: Option<&str>,
        content: &str,
        category: FactCategory,
    ) -> Result<RememberedFact, String> {
        self.usable(owner).await?;
        let req = FactCreate {
            content: content.to_string(),
            category: Some(category),
            confidence: Some(0.9),
            assistant_id: scope.map(str::to_string),
        };
        let fact = MemoryService::add(self, &Caller::owner_only(owner), req)
            .await
            .map_err(|e| e.to_string())?;
        Ok(RememberedFact {
            id: fact.fact_id,
            content: fact.content,
            category: fact.category,
        })
    }

    async fn update(
        &self,
        owner: &str,
        assistant_id: &str,
        private: bool,
        id: &str,
        content: &str,
    ) -> Result<RememberedFact, String> {
        self.usable(owner).await?;
        self.changeable(owner, assistant_id, private, id).await?;
        let patch = FactPatch {
            content: Some(content.to_string()),
            ..FactPatch::default()
        };
        let fact = MemoryService::update(self, &Caller::owner_only(owner), id, patch)
            .await
            .map_err(|e| e.to_string())?;
        Ok(RememberedFact {
            id: fact.fact_id,
            content: fact.content,
            category: fact.category,
        })
    }

    async fn delete(
        &self,
        owner: &str,
        assistant_id: &str,
        private: bool,
        id: &str,
    ) -> Result<(), String> {
        self.usable(owner).await?;
        self.changeable(owner, assistant_id, private, id).await?;
        MemoryService::delete(self, &Caller::owner_only(owner), id)
            .await
            .map_err(|e| e.to_string())
    }

    fn turn_ended(&self, owner: &str, thread_id: &str, scope: Option<&str>) {
        if !(self.cfg.enabled && self.cfg.extraction) {
            return;
        }
        let store = self.store.clone();
        let due = Utc::now() + chrono::Duration::seconds(self.cfg.debounce_secs as i64);
        let (owner, thread_id, scope) = (
            owner.to_string(),
            thread_id.to_string(),
            scope.map(str::to_string),
        );
        tokio::spawn(async move {
            if let Err(e) = store
                .memory_queue
                .enqueue(&owner, &thread_id, scope.as_deref(), due)
                .await
            {
                tracing::warn!(error = %e, "a conversation could not be queued for memory");
            }
        });
    }
}

impl MemoryService {
    /// A fact the assistant's tools may change: its own, or a shared one unless it has
    /// memory of its own (another agent's private facts are as if they did not exist).
    async fn changeable(
        &self,
        owner: &str,
        assistant_id: &str,
        private: bool,
        id: &str,
    ) -> Result<(), String> {
        let fact = self
            .store
            .memory
            .get(owner, id)
            .await
            .map_err(|e| e.to_string())?;
        match fact {
            // An agent with memory of its own leaves the shared facts as they are.
            Some(f) if private && f.assistant_id.is_none() => Err(format!(
                "the fact '{}' is shared with the person's other agents; add a fact of your own instead",
                id.chars().take(80).collect::<String>()
            )),
            Some(f) if f.assistant_id.as_deref().is_none_or(|a| a == assistant_id) => Ok(()),
            _ => Err(format!(
                "no remembered fact '{}'",
                id.chars().take(80).collect::<String>()
            )),
        }
    }

    /// Memory tools work only while memory is on (for the server and the person).
    async fn usable(&self, owner: &str) -> Result<(), String> {
        let on = self.cfg.enabled
            && self
                .store
                .memory
                .settings(owner)
                .await
                .map_err(|e| e.to_string())?
                .enabled;
        if on {
            Ok(())
        } else {
            Err("memory is switched off for this person".into())
        }
    }

    /// The facts most relevant to `text` (BM25 rank × confidence × recency), then the most
    /// useful others, within the token budget.
    async fn relevant(
        &self,
        owner: &str,
        assistant_id: &str,
        text: &str,
    ) -> Result<Vec<RememberedFact>, StoreError> {
        let Some(version) = self.store.memory.version_if_enabled(owner).await? else {
            return Ok(Vec::new());
        };
        let index = self.facts.at(&self.store, owner, version).await?;
        let visible = |f: &FactRecord| f.assistant_id.as_deref().is_none_or(|a| a == assistant_id);
        let mut ranked: Vec<(usize, f64)> = index
            .search(text, visible, 50)
            .into_iter()
            .map(|(i, rank)| (i, 1.0 + (1.0 + rank) * usefulness(&index.facts[i])))
            .collect();
        let seen: std::collections::HashSet<usize> = ranked.iter().map(|(i, _)| *i).collect();
        ranked.extend(
            index
                .useful
                .iter()
                .filter(|(i, _)| !seen.contains(i) && visible(&index.facts[*i]))
                .take(200)
                .copied(),
        );
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut budget = self.cfg.injection_max_tokens.saturating_mul(4);
        let mut chosen = Vec::new();
        for (i, _) in ranked {
            let f = &index.facts[i];
            let cost = f.content.chars().count() + f.category.as_str().len() + 6;
            if cost > budget {
                continue;
            }
            budget -= cost;
            chosen.push(RememberedFact {
                id: f.fact_id.clone(),
                content: f.content.clone(),
                category: f.category,
            });
        }
        let ids: Vec<String> = chosen.iter().map(|f| f.id.clone()).collect();
        if !ids.is_empty() {
            let store = self.store.clone();
            let owner = owner.to_string();
            // Recording use must not delay the run.
            tokio::spawn(async move {
                let _ = store.memory.touch(&owner, &ids).await;
            });
        }
        Ok(chosen)
    }
}

impl MemoryService {
    /// Starts learning from queued conversations with `model` (when extraction is on).
    pub(crate) fn start_extraction(
        &self,
        model: Option<antler_agent_runtime::model::ModelClient>,
        instance: &str,
    ) -> Option<tokio::task::JoinHandle<()>> {
        (self.cfg.enabled && self.cfg.extraction).then(|| {
            Arc::new(extract::Extractor {
                store: self.store.clone(),
                cfg: self.cfg.clone(),
                model,
                instance: instance.to_string(),
            })
            .start()
        })
    }
}

/// The run manager's view of memory.
pub(crate) fn source(service: &MemoryService) -> Arc<dyn MemorySource> {
    Arc::new(service.clone())
}

/// The model that reads conversations: `memory.model` when set, else the one runs use by
/// default (`None` when the name matches no configured model, or none is configured).
pub(crate) fn extraction_model<'m, M: AsRef<ModelConfig>>(
    config: &Config,
    models: &'m [M],
) -> Option<&'m M> {
    match config.memory.model.as_deref().filter(|n| !n.is_empty()) {
        Some(name) => models.iter().find(|m| m.as_ref().name == name),
        None => config.agent.default_model_in(models),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models(names: &[&str]) -> Vec<ModelConfig> {
        names
            .iter()
            .map(|n| ModelConfig {
                name: n.to_string(),
                ..ModelConfig::default()
            })
            .collect()
    }

    fn chosen(memory: Option<&str>, default: Option<&str>, names: &[&str]) -> Option<String> {
        let mut config = Config::default();
        config.memory.model = memory.map(str::to_string);
        config.agent.default_model = default.map(str::to_string);
        extraction_model(&config, &models(names)).map(|m| m.name.clone())
    }

    #[test]
    fn extraction_uses_memory_model_else_the_runs_default_else_the_first_model() {
        let names = ["fast", "smart", "cheap"];
        assert_eq!(
            chosen(Some("cheap"), Some("smart"), &names).as_deref(),
            Some("cheap")
        );
        assert_eq!(
            chosen(None, Some("smart"), &names).as_deref(),
            Some("smart")
        );
        assert_eq!(chosen(None, None, &names).as_deref(), Some("fast"));
        assert_eq!(chosen(Some("missing"), None, &names), None);
        assert_eq!(chosen(None, None, &[]), None);
    }

    /// An empty `memory.model` means "not set": the runs' default applies, as it does for
    /// an empty `agent.default_model`.
    #[test]
    fn an_empty_memory_model_falls_back_to_the_runs_default() {
        let names = ["fast", "smart"];
        assert_eq!(
            chosen(Some(""), Some("smart"), &names).as_deref(),
            Some("smart")
        );
        assert_eq!(chosen(Some(""), Some(""), &names).as_deref(), Some("fast"));
    }
}
