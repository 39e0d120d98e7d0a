//! LangGraph's long-term store (`/api/store/…`): each person's JSON documents under
//! hierarchical namespaces, as the official SDKs send and read them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// Most labels in a namespace.
pub const MAX_NAMESPACE_DEPTH: usize = 20;
/// Most characters in a namespace label.
pub const MAX_LABEL_CHARS: usize = 256;
/// Most characters in a key.
pub const MAX_KEY_CHARS: usize = 1024;
/// Most bytes of a value as JSON text.
pub const MAX_VALUE_BYTES: usize = 1024 * 1024;
/// Most items or namespaces one page holds.
pub const MAX_PAGE: u32 = 1000;
/// Most items or namespaces a page may skip.
pub const MAX_OFFSET: u32 = 100_000;
/// Most conditions in a filter.
pub const MAX_CONDITIONS: usize = 64;
/// Most characters in a search query.
pub const MAX_QUERY_CHARS: usize = 2048;
/// Most fields an item may index.
pub const MAX_INDEX_FIELDS: usize = 64;
/// Longest time to live, in minutes (ten years).
pub const MAX_TTL_MINUTES: f64 = 10.0 * 366.0 * 24.0 * 60.0;

/// A stored item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Item {
    /// Its namespace's labels.
    #[schema(example = json!(["memories", "preferences"]))]
    pub namespace: Vec<String>,
    /// Its key within the namespace.
    pub key: String,
    /// The document.
    #[schema(value_type = Object)]
    pub value: Map<String, Value>,
    /// When it was first stored (RFC 3339).
    pub created_at: String,
    /// When it was last written (RFC 3339).
    pub updated_at: String,
}

/// An item found by a search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SearchItem {
    /// Its namespace's labels.
    pub namespace: Vec<String>,
    /// Its key within the namespace.
    pub key: String,
    /// The document.
    #[schema(value_type = Object)]
    pub value: Map<String, Value>,
    /// When it was first stored (RFC 3339).
    pub created_at: String,
    /// When it was last written (RFC 3339).
    pub updated_at: String,
    /// Full-text relevance to `query` (higher is better); null without a query.
    pub score: Option<f64>,
}

/// `PUT /api/store/items` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PutItem {
    /// The namespace's labels (1 to 20, each 1 to 256 characters without `.`).
    pub namespace: Vec<String>,
    /// The key (1 to 1,024 characters).
    pub key: String,
    /// The document: a JSON object of at most 1 MiB.
    #[schema(value_type = Object)]
    pub value: Value,
    /// What full-text search sees: null or absent for the whole value, `false` for nothing,
    /// or a list of field paths (`"a.b"`, `"tags[*]"`, `"items[0].name"`).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub index: Option<Value>,
    /// Time to live in minutes (null or absent: it never expires); reads refresh it.
    #[serde(default)]
    pub ttl: Option<f64>,
}

/// `DELETE /api/store/items` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DeleteItem {
    /// The namespace's labels.
    pub namespace: Vec<String>,
    /// The key.
    pub key: String,
}

/// `POST /api/store/items/search` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SearchItems {
    /// Only namespaces starting with these labels (empty: every namespace).
    #[serde(default)]
    pub namespace_prefix: Vec<String>,
    /// Conditions on top-level fields of the value: `{"k": v}` is equality, `{"k":
    /// {"$gt": 3}}` compares (`$eq $ne $gt $gte $lt $lte`; numbers with numbers, strings
    /// with strings).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub filter: Option<Value>,
    /// Page size (default 10, 1 to 1,000).
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    #[schema(value_type = Option<u32>)]
    pub limit: Option<u32>,
    /// Items to skip (default 0, at most 100,000).
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    #[schema(value_type = Option<u32>)]
    pub offset: Option<u32>,
    /// Words to rank by full-text relevance; items matching none are left out.
    #[serde(default)]
    pub query: Option<String>,
    /// Whether the found items' time to live starts again (default true).
    #[serde(default)]
    pub refresh_ttl: Option<bool>,
}

/// `POST /api/store/items/search` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SearchItemsResponse {
    /// The page of items.
    pub items: Vec<SearchItem>,
}

/// `POST /api/store/namespaces` body; `*` in `prefix` or `suffix` matches any one label.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ListNamespaces {
    /// Only namespaces starting with these labels.
    #[serde(default)]
    pub prefix: Option<Vec<String>>,
    /// Only namespaces ending with these labels.
    #[serde(default)]
    pub suffix: Option<Vec<String>>,
    /// Namespaces cut to at most this many labels (1 to 20), duplicates merged.
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    #[schema(value_type = Option<u32>)]
    pub max_depth: Option<u32>,
    /// Page size (default 100, 1 to 1,000).
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    #[schema(value_type = Option<u32>)]
    pub limit: Option<u32>,
    /// Namespaces to skip (default 0, at most 100,000).
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    #[schema(value_type = Option<u32>)]
    pub offset: Option<u32>,
}

/// `POST /api/store/namespaces` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ListNamespacesResponse {
    /// The namespaces, sorted.
    pub namespaces: Vec<Vec<String>>,
}
