//! Searching an owner's assistants in SQL: filtered, counted, ordered and paged by the
//! database, so a search never loads every assistant (with its metadata) into memory.

use antler_protocol::assistants::AssistantSortBy;
use serde_json::{Map, Value};
use sqlx::types::Json;

use super::assistants::{COLUMNS, Row, VERSION_COLUMNS};
use super::{Db, Engine};
use crate::StoreError;
use crate::assistants::{AssistantFilter, AssistantOrder, AssistantRecord, SortKey};

/// The SQL of a sort field (names compare lower-cased).
fn column(by: AssistantSortBy) -> &'static str {
    match by {
        AssistantSortBy::CreatedAt => "created_at",
        AssistantSortBy::UpdatedAt => "updated_at",
        AssistantSortBy::AssistantId => "assistant_id",
        AssistantSortBy::GraphId => "graph_id",
        AssistantSortBy::Name => "LOWER(name)",
    }
}

/// `%text%` for LIKE, with LIKE's own characters escaped.
fn contains_pattern(text: &str) -> String {
    let mut out = String::from("%");
    for c in text.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// Appends the conditions of `filter` to a query over `alias` (`WHERE` already written);
/// `$pg` says which engine's JSON containment to use.
macro_rules! push_filter {
    ($q:ident, $filter:expr, $alias:literal, $pg:expr) => {{
        let f: &AssistantFilter = $filter;
        if let Some(graph) = &f.graph_id {
            $q.push(concat!(" AND ", $alias, ".graph_id = "))
                .push_bind(graph.clone());
        }
        if let Some(name) = &f.name {
            $q.push(concat!(" AND LOWER(", $alias, ".name) LIKE "))
                .push_bind(contains_pattern(name))
                .push(" ESCAPE '\\'");
        }
        if $pg {
            if !f.metadata.is_empty() {
                $q.push(concat!(" AND ", $alias, ".metadata @> "))
                    .push_bind(Json(f.metadata.clone()));
            }
        } else {
            // Keys are compared as values, never spliced into a JSON path.
            for (key, value) in &f.metadata {
                $q.push(concat!(
                    " AND EXISTS (SELECT 1 FROM json_each(",
                    $alias,
                    ".metadata) AS m WHERE m.key = "
                ))
                .push_bind(key.clone())
                .push(" AND m.value IS json_extract(")
                .push_bind(Json(value.clone()))
                .push(", '$'))");
            }
        }
    }};
}

/// A page of `owner`'s assistants.
pub(super) async fn search(
    db: &Db,
    owner: &str,
    filter: &AssistantFilter,
    order: AssistantOrder,
    limit: u32,
    offset: u64,
) -> Result<Vec<AssistantRecord>, StoreError> {
    let dir = if order.ascending { "ASC" } else { "DESC" };
    let col = column(order.by);
    let pg = matches!(db, Db::Postgres(_));
    let rows: Vec<Row> = super::on!(db, p => {
        let mut q = sqlx::QueryBuilder::new(format!(
            "SELECT {COLUMNS} FROM assistants a WHERE a.owner = "
        ));
        q.push_bind(owner.to_string());
        push_filter!(q, filter, "a", pg);
        q.push(format!(" ORDER BY {col} {dir}, assistant_id {dir} LIMIT "))
            .push_bind(i64::from(limit))
            .push(" OFFSET ")
            .push_bind(i64::try_from(offset).unwrap_or(i64::MAX));
        q.build_query_as().fetch_all(p).await?
    });
    Ok(rows.into_iter().map(Into::into).collect())
}

/// How many of `owner`'s assistants `filter` finds; with `before`, only those ahead of a
/// key in an order.
pub(super) async fn count(
    db: &Db,
    owner: &str,
    filter: &AssistantFilter,
    before: Option<(AssistantOrder, &SortKey)>,
) -> Result<u64, StoreError> {
    let pg = matches!(db, Db::Postgres(_));
    let n: i64 = super::on!(db, p => {
        let mut q = sqlx::QueryBuilder::new("SELECT COUNT(*) FROM assistants a WHERE a.owner = ");
        q.push_bind(owner.to_string());
        push_filter!(q, filter, "a", pg);
        if let Some((order, key)) = before {
            // Ahead in descending order: greater (field, id); in ascending: smaller.
            let cmp = if order.ascending { "<" } else { ">" };
            q.push(format!(" AND ({}, assistant_id) {cmp} (", column(order.by)));
            match key {
                SortKey::Time(t, id) => {
                    q.push_bind(p.time(*t)).push(", ").push_bind(id.clone());
                }
                SortKey::Text(text, id) => {
                    q.push_bind(text.clone()).push(", ").push_bind(id.clone());
                }
            }
            q.push(")");
        }
        q.build_query_scalar().fetch_one(p).await?
    });
    Ok(super::rows::count(n))
}

/// A page of one assistant's versions, newest first.
pub(super) async fn versions(
    db: &Db,
    owner: &str,
    assistant_id: &str,
    metadata: &Map<String, Value>,
    limit: u32,
    offset: u64,
) -> Result<Vec<AssistantRecord>, StoreError> {
    let pg = matches!(db, Db::Postgres(_));
    let filter = AssistantFilter {
        metadata: metadata.clone(),
        ..AssistantFilter::default()
    };
    let rows: Vec<Row> = super::on!(db, p => {
        let mut q = sqlx::QueryBuilder::new(format!(
            "SELECT {VERSION_COLUMNS} FROM assistant_versions v \
             JOIN assistants a ON a.assistant_id = v.assistant_id WHERE a.owner = "
        ));
        q.push_bind(owner.to_string())
            .push(" AND v.assistant_id = ")
            .push_bind(assistant_id.to_string());
        push_filter!(q, &filter, "v", pg);
        q.push(" ORDER BY v.version DESC LIMIT ")
            .push_bind(i64::from(limit))
            .push(" OFFSET ")
            .push_bind(i64::try_from(offset).unwrap_or(i64::MAX));
        q.build_query_as().fetch_all(p).await?
    });
    Ok(rows.into_iter().map(Into::into).collect())
}
