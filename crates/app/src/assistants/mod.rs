//! Assistants (custom agents): the built-in one every caller has, and the caller's own,
//! with their versions; and the agent a run is, resolved from its `assistant_id`.

mod fields;
mod graph;
pub(crate) mod settings;

use antler_agent_runtime::profile::AgentProfile;
use antler_protocol::assistants::{
    AgentSettings, Assistant, AssistantCreate, AssistantGraph, AssistantIfExists, AssistantPatch,
    AssistantSchemas, AssistantSearch, AssistantSortBy, AssistantVersionsQuery, GRAPH_ID,
};
use antler_protocol::threads::SortOrder;
use antler_store::threads::{merge, timestamp};
use antler_store::{AssistantFilter, AssistantOrder, AssistantRecord, SortKey, Store, StoreError};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

pub use settings::Known;

use fields::{
    admin_only, built_in_fixed, canonical, check_graph, description_of, metadata_of, name_of,
    object_or_empty, uuid_of,
};

use crate::Caller;

/// The built-in assistant's fixed id (LangGraph's way: a UUIDv5 of the graph id).
pub fn built_in_id() -> String {
    uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, b"antler:assistant:agent").to_string()
}

/// Names that mean the built-in assistant: the graph id (what the Agent Chat UI and the
/// SDK examples send) and DeerFlow's graph name.
const BUILT_IN_ALIASES: [&str; 2] = [GRAPH_ID, "lead_agent"];

/// Most assistants one owner may have.
const MAX_PER_OWNER: u64 = 1000;

/// Largest metadata of an assistant, as JSON text.
pub const MAX_METADATA_BYTES: usize = 64 * 1024;

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
    /// The caller may not change what they asked to (an admin-only setting).
    #[error("{0}")]
    Forbidden(String),
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
        let settings = self.checked(&config, &context)?;
        admin_only(caller, None, &settings)?;
        let owned = self
            .store
            .assistants
            .count(caller.owner(), &AssistantFilter::default())
            .await?;
        if owned >= MAX_PER_OWNER {
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
            metadata: metadata_of(req.metadata.unwrap_or_default())?,
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

    /// The caller's assistants and the built-in one, filtered, sorted and paged (by the
    /// database: the built-in one takes its place in the order by a count of those ahead
    /// of it).
    pub async fn search(
        &self,
        caller: &Caller,
        query: &AssistantSearch,
    ) -> Result<Vec<Assistant>, AssistantError> {
        let filter = filter_of(query);
        let order = AssistantOrder {
            by: query.sort_by.unwrap_or_default(),
            ascending: query.sort_order == Some(SortOrder::Asc),
        };
        let limit = query.limit.unwrap_or(10).clamp(1, crate::runs::MAX_PAGE);
        let offset = u64::from(query.offset.unwrap_or(0));
        let built_in = self.built_in();
        let at = if self.built_in_matches(&built_in, query) {
            let key = self.built_in_key(order);
            Some(
                self.store
                    .assistants
                    .count_before(caller.owner(), &filter, order, &key)
                    .await?,
            )
        } else {
            None
        };
        // The stored page around the built-in assistant's place.
        let (skip, take, insert) = match at {
            Some(at) if at < offset => (offset - 1, limit, None),
            Some(at) if at < offset + u64::from(limit) => {
                (offset, limit - 1, Some((at - offset) as usize))
            }
            _ => (offset, limit, None),
        };
        let mut page: Vec<Assistant> = if take == 0 {
            Vec::new()
        } else {
            self.store
                .assistants
                .search(caller.owner(), &filter, order, take, skip)
                .await?
                .into_iter()
                .map(wire)
                .collect()
        };
        if let Some(i) = insert {
            page.insert(i.min(page.len()), built_in);
        }
        Ok(page)
    }

    /// How many assistants a search finds (before paging).
    pub async fn count(
        &self,
        caller: &Caller,
        query: &AssistantSearch,
    ) -> Result<u64, AssistantError> {
        let stored = self
            .store
            .assistants
            .count(caller.owner(), &filter_of(query))
            .await?;
        Ok(stored + u64::from(self.built_in_matches(&self.built_in(), query)))
    }

    fn built_in_matches(&self, built_in: &Assistant, query: &AssistantSearch) -> bool {
        let name = query.name.as_deref().map(str::to_lowercase);
        query
            .graph_id
            .as_deref()
            .is_none_or(|g| built_in.graph_id == g)
            && name
                .as_deref()
                .is_none_or(|n| built_in.name.to_lowercase().contains(n))
            && has_metadata(&built_in.metadata, query.metadata.as_ref())
    }

    /// The built-in assistant's place in `order`.
    fn built_in_key(&self, order: AssistantOrder) -> SortKey {
        let id = built_in_id();
        match order.by {
            AssistantSortBy::CreatedAt | AssistantSortBy::UpdatedAt => {
                SortKey::Time(self.started, id)
            }
            AssistantSortBy::AssistantId => SortKey::Text(id.clone(), id),
            AssistantSortBy::GraphId => SortKey::Text(GRAPH_ID.into(), id),
            AssistantSortBy::Name => SortKey::Text(self.built_in().name.to_lowercase(), id),
        }
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
        let settings = self.checked(&config, &context)?;
        let before = settings::read(&current.config, &current.context).unwrap_or_default();
        admin_only(caller, Some(&before), &settings)?;
        let mut metadata = current.metadata.clone();
        if let Some(m) = patch.metadata {
            merge(&mut metadata, m);
        }
        let metadata = metadata_of(metadata)?;
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
        let limit = query.limit.unwrap_or(10).clamp(1, crate::runs::MAX_PAGE);
        let metadata = query.metadata.clone().unwrap_or_default();
        Ok(self
            .store
            .assistants
            .versions(
                caller.owner(),
                id,
                &metadata,
                limit,
                u64::from(query.offset.unwrap_or(0)),
            )
            .await?
            .into_iter()
            .map(wire)
            .collect())
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
        let current = self.record(caller, id).await?;
        if !caller.is_admin() {
            // Going back to a version must not bring back what only an admin may set.
            let target = self
                .store
                .assistants
                .versions(
                    caller.owner(),
                    id,
                    &Map::new(),
                    u32::try_from(antler_store::assistants::MAX_VERSIONS).unwrap_or(u32::MAX),
                    0,
                )
                .await?
                .into_iter()
                .find(|v| v.version == version)
                .ok_or_else(|| AssistantError::NotFound(format!("{id} version {version}")))?;
            let before = settings::read(&current.config, &current.context).unwrap_or_default();
            let after = settings::read(&target.config, &target.context).unwrap_or_default();
            admin_only(caller, Some(&before), &after)?;
        }
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

fn has_metadata(metadata: &Map<String, Value>, wanted: Option<&Map<String, Value>>) -> bool {
    wanted.is_none_or(|w| w.iter().all(|(k, v)| metadata.get(k) == Some(v)))
}

/// The stored part of a search.
fn filter_of(query: &AssistantSearch) -> AssistantFilter {
    AssistantFilter {
        graph_id: query.graph_id.clone(),
        name: query.name.clone().filter(|n| !n.is_empty()),
        metadata: query.metadata.clone().unwrap_or_default(),
    }
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
