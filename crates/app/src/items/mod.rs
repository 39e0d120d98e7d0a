//! LangGraph's long-term store: each person's JSON documents under hierarchical
//! namespaces — put, get, delete, search (filters, full-text ranking) and namespace
//! listings, with times to live.
//!
//! Every item belongs to the caller who stored it; nobody else sees, lists, overwrites or
//! deletes it. Admins are no exception: the store is personal data, so an admin's requests
//! see the admin's own items only.

mod filter;
mod text;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use antler_protocol::store_items::{
    DeleteItem, Item, ListNamespaces, ListNamespacesResponse, MAX_KEY_CHARS, MAX_LABEL_CHARS,
    MAX_NAMESPACE_DEPTH, MAX_OFFSET, MAX_PAGE, MAX_QUERY_CHARS, MAX_TTL_MINUTES, MAX_VALUE_BYTES,
    PutItem, SearchItem, SearchItems, SearchItemsResponse,
};
use antler_store::threads::timestamp;
use antler_store::{ItemQuery, ItemRecord, ItemRepo, NamespaceQuery, NewItem, StoreError};
use chrono::Utc;
use serde_json::Value;

use crate::Caller;

/// Seconds between sweeps of expired items (run by a write that finds the last one older).
const SWEEP_EVERY_SECS: i64 = 60;
/// Most expired items one sweep deletes (the next takes the rest).
const SWEEP_MAX: u32 = 5000;

/// What can go wrong with store items.
#[derive(Debug, thiserror::Error)]
pub enum ItemError {
    /// The request is not valid.
    #[error("{0}")]
    Invalid(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The store item use-cases.
#[derive(Clone)]
pub struct ItemsService {
    repo: Arc<dyn ItemRepo>,
    /// When expired items were last swept (Unix seconds).
    swept_at: Arc<AtomicI64>,
}

impl std::fmt::Debug for ItemsService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ItemsService").finish_non_exhaustive()
    }
}

impl ItemsService {
    /// The service over a repository.
    pub fn new(repo: Arc<dyn ItemRepo>) -> Self {
        ItemsService {
            repo,
            swept_at: Arc::new(AtomicI64::new(0)),
        }
    }

    /// Stores an item of the caller's, replacing one with the same namespace and key.
    pub async fn put(&self, caller: &Caller, body: PutItem) -> Result<(), ItemError> {
        let namespace = labels(body.namespace, "namespace", false)?;
        check_key(&body.key)?;
        let Value::Object(value) = body.value else {
            return Err(invalid("value must be a JSON object"));
        };
        let size = serde_json::to_vec(&value).map_or(usize::MAX, |v| v.len());
        if size > MAX_VALUE_BYTES {
            return Err(invalid(format!(
                "value is {size} bytes as JSON; at most {MAX_VALUE_BYTES} are allowed"
            )));
        }
        if let Some(ttl) = body.ttl
            && !(ttl > 0.0 && ttl <= MAX_TTL_MINUTES)
        {
            return Err(invalid(format!(
                "ttl is minutes to live: more than 0, at most {MAX_TTL_MINUTES}"
            )));
        }
        let index = text::parse(body.index.as_ref())?;
        let now = Utc::now();
        let item = NewItem {
            owner: caller.owner().to_string(),
            namespace,
            key: body.key,
            search_text: text::search_text(&value, &index),
            value,
            ttl_minutes: body.ttl,
            now,
        };
        self.repo.put(&item).await?;
        self.sweep_if_due(now.timestamp()).await;
        Ok(())
    }

    /// One of the caller's items (`namespace` with its labels joined by `.`); `None` when
    /// there is none or it expired. Reading it starts its time to live again unless
    /// `refresh_ttl` is false.
    pub async fn get(
        &self,
        caller: &Caller,
        namespace: &str,
        key: &str,
        refresh_ttl: Option<bool>,
    ) -> Result<Option<Item>, ItemError> {
        if namespace.is_empty() {
            return Err(invalid("namespace must not be empty"));
        }
        let namespace = labels(
            namespace.split('.').map(str::to_string).collect(),
            "namespace",
            false,
        )?;
        check_key(key)?;
        let found = self
            .repo
            .get(
                caller.owner(),
                &namespace,
                key,
                Utc::now(),
                refresh_ttl.unwrap_or(true),
            )
            .await?;
        Ok(found.map(item))
    }

    /// Deletes one of the caller's items (nothing happens when there is none).
    pub async fn delete(&self, caller: &Caller, body: DeleteItem) -> Result<(), ItemError> {
        let namespace = labels(body.namespace, "namespace", false)?;
        check_key(&body.key)?;
        self.repo
            .delete(caller.owner(), &namespace, &body.key)
            .await?;
        Ok(())
    }

    /// A page of the caller's items under a namespace prefix, filtered, ranked by `query`
    /// when given (else most recently updated first).
    pub async fn search(
        &self,
        caller: &Caller,
        body: SearchItems,
    ) -> Result<SearchItemsResponse, ItemError> {
        let prefix = labels(body.namespace_prefix, "namespace_prefix", true)?;
        let conditions = filter::conditions(body.filter.as_ref())?;
        if body
            .query
            .as_ref()
            .is_some_and(|q| q.chars().count() > MAX_QUERY_CHARS)
        {
            return Err(invalid(format!(
                "query is longer than {MAX_QUERY_CHARS} characters"
            )));
        }
        let query = ItemQuery {
            prefix,
            conditions,
            text: body.query.filter(|q| !q.trim().is_empty()),
            limit: page(body.limit, 10)?,
            offset: offset(body.offset)?,
        };
        let found = self
            .repo
            .search(
                caller.owner(),
                &query,
                Utc::now(),
                body.refresh_ttl.unwrap_or(true),
            )
            .await?;
        Ok(SearchItemsResponse {
            items: found
                .into_iter()
                .map(|(record, score)| {
                    let i = item(record);
                    SearchItem {
                        namespace: i.namespace,
                        key: i.key,
                        value: i.value,
                        created_at: i.created_at,
                        updated_at: i.updated_at,
                        score,
                    }
                })
                .collect(),
        })
    }

    /// A page of the caller's namespaces (sorted), matching a prefix and a suffix (`*`:
    /// any one label), cut to `max_depth`.
    pub async fn list_namespaces(
        &self,
        caller: &Caller,
        body: ListNamespaces,
    ) -> Result<ListNamespacesResponse, ItemError> {
        let prefix = patterns(body.prefix, "prefix")?;
        let suffix = patterns(body.suffix, "suffix")?;
        let max_depth = match body.max_depth {
            None => None,
            Some(d) if d >= 1 && d as usize <= MAX_NAMESPACE_DEPTH => Some(d as usize),
            Some(_) => {
                return Err(invalid(format!(
                    "max_depth must be 1 to {MAX_NAMESPACE_DEPTH}"
                )));
            }
        };
        let query = NamespaceQuery {
            prefix,
            suffix,
            max_depth,
            limit: page(body.limit, 100)?,
            offset: offset(body.offset)?,
        };
        let namespaces = self
            .repo
            .namespaces(caller.owner(), &query, Utc::now())
            .await?;
        Ok(ListNamespacesResponse { namespaces })
    }

    /// Deletes expired items when the last sweep is a minute old (one caller at a time);
    /// a failure is logged, the write that triggered it has succeeded.
    async fn sweep_if_due(&self, now: i64) {
        let last = self.swept_at.load(Ordering::Relaxed);
        if now - last < SWEEP_EVERY_SECS
            || self
                .swept_at
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        match self.repo.sweep(Utc::now(), SWEEP_MAX).await {
            Ok(0) => {}
            Ok(removed) => tracing::debug!(removed, "expired store items removed"),
            Err(error) => tracing::warn!(%error, "sweeping expired store items failed"),
        }
    }
}

fn item(r: ItemRecord) -> Item {
    Item {
        namespace: r.namespace,
        key: r.key,
        value: r.value,
        created_at: timestamp(r.created_at),
        updated_at: timestamp(r.updated_at),
    }
}

fn invalid(message: impl Into<String>) -> ItemError {
    ItemError::Invalid(message.into())
}

/// A namespace's labels, checked: at most [`MAX_NAMESPACE_DEPTH`], each 1 to
/// [`MAX_LABEL_CHARS`] characters without `.` or control characters (the stored form joins
/// them with `.`).
fn labels(labels: Vec<String>, what: &str, may_be_empty: bool) -> Result<Vec<String>, ItemError> {
    if labels.is_empty() && !may_be_empty {
        return Err(invalid(format!("{what} must have at least one label")));
    }
    if labels.len() > MAX_NAMESPACE_DEPTH {
        return Err(invalid(format!(
            "{what} has {} labels; at most {MAX_NAMESPACE_DEPTH} are allowed",
            labels.len()
        )));
    }
    for label in &labels {
        if label.is_empty() || label.contains('.') || label.chars().any(char::is_control) {
            return Err(invalid(format!(
                "{what} labels must not be empty or contain '.' or control characters"
            )));
        }
        if label.chars().count() > MAX_LABEL_CHARS {
            return Err(invalid(format!(
                "{what} labels are at most {MAX_LABEL_CHARS} characters"
            )));
        }
    }
    Ok(labels)
}

/// A listing's prefix or suffix: labels, where `*` matches any one.
fn patterns(given: Option<Vec<String>>, what: &str) -> Result<Vec<String>, ItemError> {
    labels(given.unwrap_or_default(), what, true)
}

fn check_key(key: &str) -> Result<(), ItemError> {
    if key.is_empty() || key.chars().count() > MAX_KEY_CHARS || key.contains('\0') {
        return Err(invalid(format!(
            "key must be 1 to {MAX_KEY_CHARS} characters without NUL"
        )));
    }
    Ok(())
}

fn page(limit: Option<u32>, default: u32) -> Result<u32, ItemError> {
    match limit.unwrap_or(default) {
        n @ 1..=MAX_PAGE => Ok(n),
        _ => Err(invalid(format!("limit must be 1 to {MAX_PAGE}"))),
    }
}

fn offset(offset: Option<u32>) -> Result<u32, ItemError> {
    match offset.unwrap_or(0) {
        n @ 0..=MAX_OFFSET => Ok(n),
        _ => Err(invalid(format!("offset must be 0 to {MAX_OFFSET}"))),
    }
}
