//! Assistants (custom agents): the built-in one every caller has, and the caller's own,
//! with their versions; and the agent a run is, resolved from its `assistant_id`.

mod graph;
pub(crate) mod settings;

use antler_agent_runtime::profile::AgentProfile;
use antler_protocol::assistants::{
    AgentSettings, Assistant, AssistantCreate, AssistantGraph, AssistantIfExists, AssistantPatch,
    AssistantSchemas, AssistantSearch, AssistantSortBy, AssistantVersionsQuery, GRAPH_ID,
};
use antler_protocol::threads::SortOrder;
use antler_store::threads::{merge, timestamp};
use antler_store::{AssistantRecord, Store, StoreError};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

pub use settings::Known;

use crate::Caller;

/// The built-in assistant's fixed id (LangGraph's way: a UUIDv5 of the graph id).
pub fn built_in_id() -> String {
    uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, b"antler:assistant:agent").to_string()
}

/// Names that mean the built-in assistant: the graph id (what the Agent Chat UI and the
/// SDK examples send) and DeerFlow's graph name.
const BUILT_IN_ALIASES: [&str; 2] = [GRAPH_ID, "lead_agent"];

/// Most assistants one owner may have.
const MAX_PER_OWNER: usize = 1000;

/// What can go wrong with an assistant.
#[derive(Debug, thiserror::Error)]
pub enum AssistantError {
    /// No such assistant for this caller.
    #[error("no assistant '{0}'")]
    NotFound(String),
    /// The request is not valid.
    #[error("{0}")]
    Invalid(String),
    /// The id is taken, or the built-in assistant was to be changed.
    #[error("{0}")]
    Conflict(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The assistants use-cases.
pub struct AssistantsService {
    store: Store,
    known: Known,
    started: DateTime<Utc>,
}

impl std::fmt::Debug for AssistantsService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AssistantsService").finish_non_exhaustive()
    }
}

impl AssistantsService {
    pub(crate) fn new(store: Store, known: Known) -> Self {
        AssistantsService {
            store,
            known,
            started: Utc::now(),
        }
    }

    /// The built-in agent as an assistant.
    fn built_in(&self) -> Assistant {
        let at = timestamp(self.started);
        Assistant {
            assistant_id: built_in_id(),
            graph_id: GRAPH_ID.into(),
            config: json!({}),
            context: json!({}),
            metadata: json!({"created_by": "system"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            version: 1,
            name: "Antler".into(),
            description: Some("The built-in agent: every enabled skill and tool.".into()),
            created_at: at.clone(),
            updated_at: at,
        }
    }

    fn is_built_in(id: &str) -> bool {
        BUILT_IN_ALIASES.contains(&id) || id == built_in_id()
    }

    /// Creates an assistant of the caller's.
    pub async fn create(
        &self,
        caller: &Caller,
        req: AssistantCreate,
    ) -> Result<Assistant, AssistantError> {
        check_graph(&req.graph_id)?;
        let id = match &req.assistant_id {
            Some(id) => uuid_of(id)?,
            None => uuid::Uuid::new_v4().to_string(),
        };
        if Self::is_built_in(&id) {
            return Err(AssistantError::Conflict(
                "that id is the built-in assistant's".into(),
            ));
        }
        let config = object_or_empty("config", req.config)?;
        let context = object_or_empty("context", req.context)?;
        self.checked(&config, &context)?;
        if self.store.assistants.list(caller.owner()).await?.len() >= MAX_PER_OWNER {
            return Err(AssistantError::Conflict(format!(
                "you have {MAX_PER_OWNER} assistants already; delete one first"
            )));
        }
        let now = Utc::now();
        let record = AssistantRecord {
            assistant_id: id.clone(),
            owner: caller.owner().to_string(),
            graph_id: GRAPH_ID.into(),
            name: name_of(req.name.as_deref())?,
            description: description_of(req.description)?,
            config,
            context,
            metadata: req.metadata.unwrap_or_default(),
            version: 1,
            created_at: now,
            updated_at: now,
        };
        if self.store.assistants.create(&record).await? {
            tracing::info!(assistant.id = %id, "assistant created");
            return self.get(caller, &id).await;
        }
        match (
            req.if_exists,
            self.store.assistants.get(caller.owner(), &id).await?,
        ) {
            (Some(AssistantIfExists::DoNothing), Some(existing)) => Ok(wire(existing)),
            _ => Err(AssistantError::Conflict(format!(
                "an assistant with id '{id}' exists"
            ))),
        }
    }

    /// One assistant (the built-in one by its id or graph id).
    pub async fn get(&self, caller: &Caller, id: &str) -> Result<Assistant, AssistantError> {
        // Any spelling of a UUID (upper case, braces, no hyphens) names the same one.
        let id = &canonical(id);
        if Self::is_built_in(id) {
            return Ok(self.built_in());
        }
        Ok(wire(self.record(caller, id).await?))
    }

    /// The caller's assistants and the built-in one, filtered, sorted and paged.
    pub async fn search(
        &self,
        caller: &Caller,
        query: &AssistantSearch,
    ) -> Result<Vec<Assistant>, AssistantError> {
        let mut all = self.matching(caller, query).await?;
        let by = query.sort_by.unwrap_or_default();
        all.sort_by(|a, b| {
            let key = |x: &Assistant| match by {
                AssistantSortBy::CreatedAt => x.created_at.clone(),
                AssistantSortBy::UpdatedAt => x.updated_at.clone(),
                AssistantSortBy::AssistantId => x.assistant_id.clone(),
                AssistantSortBy::GraphId => x.graph_id.clone(),
                AssistantSortBy::Name => x.name.to_lowercase(),
            };
            key(a)
                .cmp(&key(b))
                .then_with(|| a.assistant_id.cmp(&b.assistant_id))
        });
        if query.sort_order != Some(SortOrder::Asc) {
            all.reverse();
        }
        Ok(page(all, query.offset, query.limit))
    }

    /// How many assistants a search finds (before paging).
    pub async fn count(
        &self,
        caller: &Caller,
        query: &AssistantSearch,
    ) -> Result<usize, AssistantError> {
        Ok(self.matching(caller, query).await?.len())
    }

    async fn matching(
        &self,
        caller: &Caller,
        query: &AssistantSearch,
    ) -> Result<Vec<Assistant>, AssistantError> {
        let mut all = vec![self.built_in()];
        all.extend(
            self.store
                .assistants
                .list(caller.owner())
                .await?
                .into_iter()
                .map(wire),
        );
        let name = query.name.as_deref().map(str::to_lowercase);
        all.retain(|a| {
            query.graph_id.as_deref().is_none_or(|g| a.graph_id == g)
                && name
                    .as_deref()
                    .is_none_or(|n| a.name.to_lowercase().contains(n))
                && has_metadata(&a.metadata, query.metadata.as_ref())
        });
        Ok(all)
    }

    /// A new version with the patch applied (metadata merged, the rest replaced).
    pub async fn update(
        &self,
        caller: &Caller,
        id: &str,
        patch: AssistantPatch,
    ) -> Result<Assistant, AssistantError> {
        // Any spelling of a UUID (upper case, braces, no hyphens) names the same one.
        let id = &canonical(id);
        if Self::is_built_in(id) {
            return Err(built_in_fixed());
        }
        let current = self.record(caller, id).await?;
        if let Some(graph) = &patch.graph_id {
            check_graph(graph)?;
        }
        let config = match patch.config {
            Some(c) => object_or_empty("config", Some(c))?,
            None => current.config.clone(),
        };
        let context = match patch.context {
            Some(c) => object_or_empty("context", Some(c))?,
            None => current.context.clone(),
        };
        self.checked(&config, &context)?;
        let mut metadata = current.metadata.clone();
        if let Some(m) = patch.metadata {
            merge(&mut metadata, m);
        }
        let next = AssistantRecord {
            name: match patch.name {
                Some(n) => name_of(Some(&n))?,
                None => current.name.clone(),
            },
            description: match patch.description {
                Some(d) => description_of(Some(d))?,
                None => current.description.clone(),
            },
            config,
            context,
            metadata,
            updated_at: Utc::now(),
            ..current
        };
        let stored = self
            .store
            .assistants
            .update(&next)
            .await?
            .ok_or_else(|| AssistantError::NotFound(id.to_string()))?;
        tracing::info!(assistant.id = %id, version = stored.version, "assistant updated");
        Ok(wire(stored))
    }

    /// Deletes an assistant with its versions (its threads and runs stay).
    pub async fn delete(&self, caller: &Caller, id: &str) -> Result<(), AssistantError> {
        // Any spelling of a UUID (upper case, braces, no hyphens) names the same one.
        let id = &canonical(id);
        if Self::is_built_in(id) {
            return Err(built_in_fixed());
        }
        uuid_of(id).map_err(|_| AssistantError::NotFound(id.to_string()))?;
        if !self.store.assistants.delete(caller.owner(), id).await? {
            return Err(AssistantError::NotFound(id.to_string()));
        }
        tracing::info!(assistant.id = %id, "assistant deleted");
        Ok(())
    }

    /// An assistant's versions, newest first.
    pub async fn versions(
        &self,
        caller: &Caller,
        id: &str,
        query: &AssistantVersionsQuery,
    ) -> Result<Vec<Assistant>, AssistantError> {
        // Any spelling of a UUID (upper case, braces, no hyphens) names the same one.
        let id = &canonical(id);
        if Self::is_built_in(id) {
            return Ok(vec![self.built_in()]);
        }
        self.record(caller, id).await?;
        let versions: Vec<Assistant> = self
            .store
            .assistants
            .versions(caller.owner(), id)
            .await?
            .into_iter()
            .map(wire)
            .filter(|v| has_metadata(&v.metadata, query.metadata.as_ref()))
            .collect();
        Ok(page(versions, query.offset, query.limit))
    }

    /// Makes an earlier version current again.
    pub async fn set_latest(
        &self,
        caller: &Caller,
        id: &str,
        version: i64,
    ) -> Result<Assistant, AssistantError> {
        // Any spelling of a UUID (upper case, braces, no hyphens) names the same one.
        let id = &canonical(id);
        if Self::is_built_in(id) {
            return Err(built_in_fixed());
        }
        self.record(caller, id).await?;
        let chosen = self
            .store
            .assistants
            .set_version(caller.owner(), id, version)
            .await?
            .ok_or_else(|| AssistantError::NotFound(format!("{id} version {version}")))?;
        Ok(wire(chosen))
    }

    /// The JSON Schemas of an assistant's graph.
    pub async fn schemas(
        &self,
        caller: &Caller,
        id: &str,
    ) -> Result<AssistantSchemas, AssistantError> {
        // Any spelling of a UUID (upper case, braces, no hyphens) names the same one.
        let id = &canonical(id);
        self.get(caller, id).await?;
        Ok(graph::schemas(&self.known))
    }

    /// An assistant's graph.
    pub async fn graph(&self, caller: &Caller, id: &str) -> Result<AssistantGraph, AssistantError> {
        // Any spelling of a UUID (upper case, braces, no hyphens) names the same one.
        let id = &canonical(id);
        self.get(caller, id).await?;
        Ok(graph::graph())
    }

    /// The agent a run with `assistant_id` is.
    pub async fn profile(
        &self,
        caller: &Caller,
        assistant_id: &str,
    ) -> Result<AgentProfile, AssistantError> {
        // Any spelling of a UUID (upper case, braces, no hyphens) names the same one.
        let assistant_id = &canonical(assistant_id);
        if Self::is_built_in(assistant_id) {
            return Ok(AgentProfile::built_in(&built_in_id()));
        }
        let record = self.record(caller, assistant_id).await?;
        // Stored settings were checked when saved; a model removed from the configuration
        // since is named by the run's own refusal.
        let settings = settings::read(&record.config, &record.context).unwrap_or_default();
        Ok(AgentProfile::custom(&record.assistant_id, settings))
    }

    async fn record(&self, caller: &Caller, id: &str) -> Result<AssistantRecord, AssistantError> {
        let shown: String = id.chars().take(80).collect();
        if uuid::Uuid::parse_str(id).is_err() {
            return Err(AssistantError::NotFound(shown));
        }
        self.store
            .assistants
            .get(caller.owner(), id)
            .await?
            .ok_or(AssistantError::NotFound(shown))
    }

    fn checked(&self, config: &Value, context: &Value) -> Result<AgentSettings, AssistantError> {
        let settings = settings::read(config, context).map_err(AssistantError::Invalid)?;
        settings::check(&settings, &self.known).map_err(AssistantError::Invalid)?;
        Ok(settings)
    }
}

fn built_in_fixed() -> AssistantError {
    AssistantError::Conflict("the built-in assistant cannot be changed or deleted".into())
}

fn check_graph(graph_id: &str) -> Result<(), AssistantError> {
    if graph_id == GRAPH_ID || graph_id == "lead_agent" {
        return Ok(());
    }
    let shown: String = graph_id.chars().take(80).collect();
    Err(AssistantError::Invalid(format!(
        "no graph '{shown}': the only graph is '{GRAPH_ID}'"
    )))
}

/// A UUID in its one stored spelling (lower-case, hyphenated); anything else as given.
fn canonical(id: &str) -> String {
    uuid::Uuid::parse_str(id).map_or_else(|_| id.to_string(), |u| u.to_string())
}

fn uuid_of(id: &str) -> Result<String, AssistantError> {
    uuid::Uuid::parse_str(id)
        .map(|u| u.to_string())
        .map_err(|_| {
            let shown: String = id.chars().take(80).collect();
            AssistantError::Invalid(format!("assistant_id '{shown}' is not a UUID"))
        })
}

fn object_or_empty(what: &str, value: Option<Value>) -> Result<Value, AssistantError> {
    match value {
        None | Some(Value::Null) => Ok(json!({})),
        Some(v @ Value::Object(_)) => Ok(v),
        Some(_) => Err(AssistantError::Invalid(format!("{what} must be an object"))),
    }
}

fn name_of(name: Option<&str>) -> Result<String, AssistantError> {
    let name = name
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .unwrap_or("Untitled");
    if name.chars().count() > 200 || name.chars().any(char::is_control) {
        return Err(AssistantError::Invalid(
            "name must be at most 200 characters without control characters".into(),
        ));
    }
    Ok(name.to_string())
}

fn description_of(description: Option<String>) -> Result<Option<String>, AssistantError> {
    match description {
        Some(d) if d.chars().count() > 2000 => Err(AssistantError::Invalid(
            "description must be at most 2000 characters".into(),
        )),
        Some(d) if d.trim().is_empty() => Ok(None),
        other => Ok(other),
    }
}

fn has_metadata(metadata: &Map<String, Value>, wanted: Option<&Map<String, Value>>) -> bool {
    wanted.is_none_or(|w| w.iter().all(|(k, v)| metadata.get(k) == Some(v)))
}

fn page<T>(items: Vec<T>, offset: Option<u32>, limit: Option<u32>) -> Vec<T> {
    let limit = limit.unwrap_or(10).clamp(1, crate::runs::MAX_PAGE) as usize;
    items
        .into_iter()
        .skip(offset.unwrap_or(0) as usize)
        .take(limit)
        .collect()
}

fn wire(r: AssistantRecord) -> Assistant {
    Assistant {
        assistant_id: r.assistant_id,
        graph_id: r.graph_id,
        config: r.config,
        context: r.context,
        metadata: r.metadata,
        version: r.version,
        name: r.name,
        description: r.description,
        created_at: timestamp(r.created_at),
        updated_at: timestamp(r.updated_at),
    }
}
