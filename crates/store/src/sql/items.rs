//! Store items: prefix ranges over the primary key, filters on the JSON value (SQLite's
//! `json_each`, PostgreSQL's `jsonb` operators), full-text ranking (SQLite FTS5 with bm25,
//! PostgreSQL `tsvector` with `ts_rank`) and expiry.

use std::collections::BTreeSet;

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use serde_json::{Map, Value};
use sqlx::types::Json;

use super::{Db, Engine, on};
use crate::StoreError;
use crate::items::{
    Condition, ItemQuery, ItemRecord, ItemRepo, NamespaceQuery, NewItem, Op, canonical,
    canonical_map, matches_prefix, matches_suffix, namespace_labels, namespace_path,
};
use crate::memory::search_words;

pub(crate) struct SqlItems(pub(crate) Db);

const COLUMNS: &str = "i.owner, i.namespace, i.key, i.value, i.ttl_minutes, i.expires_at, \
    i.created_at, i.updated_at";

#[derive(sqlx::FromRow)]
struct Row {
    owner: String,
    namespace: String,
    key: String,
    value: Json<Map<String, Value>>,
    ttl_minutes: Option<f64>,
    expires_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    #[sqlx(default)]
    score: Option<f64>,
}

impl From<Row> for (ItemRecord, Option<f64>) {
    fn from(r: Row) -> Self {
        (
            ItemRecord {
                owner: r.owner,
                namespace: namespace_labels(&r.namespace),
                key: r.key,
                value: r.value.0,
                created_at: r.created_at,
                updated_at: r.updated_at,
                ttl_minutes: r.ttl_minutes,
                expires_at: r.expires_at,
            },
            r.score,
        )
    }
}

/// When an item with `ttl` minutes to live written (or read with a refresh) at `now`
/// expires.
fn expiry(now: DateTime<Utc>, ttl: Option<f64>) -> Option<DateTime<Utc>> {
    let ms = ttl? * 60_000.0;
    // The service bounds the time to live; an absurd one never expires rather than wraps.
    if !ms.is_finite() || ms > 1e15 {
        return None;
    }
    now.checked_add_signed(Duration::milliseconds(ms.max(0.0) as i64))
}

/// The exclusive upper end of the range of paths starting with `path` (which ends in `.`):
/// `.` is followed by `/` in byte order.
fn range_end(path: &str) -> String {
    let mut end = path.strip_suffix('.').unwrap_or(path).to_string();
    end.push('/');
    end
}

/// The SQLite `json_each` types a JSON value of this kind has.
fn sqlite_types(value: &Value) -> &'static str {
    match value {
        Value::Null => "('null')",
        Value::Bool(true) => "('true')",
        Value::Bool(false) => "('false')",
        Value::Number(_) => "('integer', 'real')",
        Value::String(_) => "('text')",
        Value::Array(_) => "('array')",
        Value::Object(_) => "('object')",
    }
}

/// Appends ` AND <condition>` for each condition to a query over `i`; `$pg` says which
/// engine's JSON functions to use. Keys are bound as values, never spliced into a path.
macro_rules! push_conditions {
    ($q:ident, $conditions:expr, $pg:expr) => {{
        let conditions: &[Condition] = $conditions;
        for c in conditions {
            let key = c.key.clone();
            match (c.op, &c.value, $pg) {
                (Op::Eq | Op::Ne, value, false) => {
                    let not = if c.op == Op::Ne { " NOT" } else { "" };
                    $q.push(format!(
                        " AND{not} EXISTS (SELECT 1 FROM json_each(i.value) AS m WHERE m.key = "
                    ))
                    .push_bind(key)
                    .push(format!(
                        " AND m.type IN {} AND m.value IS json_extract(",
                        sqlite_types(value)
                    ))
                    .push_bind(Json(canonical(value)))
                    .push(", '$'))");
                }
                (Op::Eq, value, true) => {
                    $q.push(" AND (i.value -> CAST(")
                        .push_bind(key)
                        .push(" AS TEXT)) = ")
                        .push_bind(Json(value.clone()));
                }
                (Op::Ne, value, true) => {
                    $q.push(" AND (i.value -> CAST(")
                        .push_bind(key)
                        .push(" AS TEXT)) IS DISTINCT FROM ")
                        .push_bind(Json(value.clone()));
                }
                (op, Value::Number(n), false) => match n.as_f64() {
                    Some(n) => {
                        $q.push(
                            " AND EXISTS (SELECT 1 FROM json_each(i.value) AS m WHERE m.key = ",
                        )
                        .push_bind(key)
                        .push(format!(
                            " AND m.type IN ('integer', 'real') AND m.value {} ",
                            op.sql()
                        ))
                        .push_bind(n)
                        .push(")");
                    }
                    None => {
                        $q.push(" AND 1 = 0");
                    }
                },
                (op, Value::String(s), false) => {
                    $q.push(" AND EXISTS (SELECT 1 FROM json_each(i.value) AS m WHERE m.key = ")
                        .push_bind(key)
                        .push(format!(" AND m.type = 'text' AND m.value {} ", op.sql()))
                        .push_bind(s.clone())
                        .push(")");
                }
                (op, Value::Number(n), true) => match n.as_f64() {
                    Some(n) => {
                        // CASE: the cast must only see numbers.
                        $q.push(" AND CASE WHEN jsonb_typeof(i.value -> CAST(")
                            .push_bind(key.clone())
                            .push(" AS TEXT)) = 'number' THEN CAST(i.value ->> CAST(")
                            .push_bind(key)
                            .push(format!(" AS TEXT) AS DOUBLE PRECISION) {} ", op.sql()))
                            .push_bind(n)
                            .push(" ELSE FALSE END");
                    }
                    None => {
                        $q.push(" AND 1 = 0");
                    }
                },
                (op, Value::String(s), true) => {
                    $q.push(" AND CASE WHEN jsonb_typeof(i.value -> CAST(")
                        .push_bind(key.clone())
                        .push(" AS TEXT)) = 'string' THEN (i.value ->> CAST(")
                        .push_bind(key)
                        .push(format!(" AS TEXT)) COLLATE \"C\" {} CAST(", op.sql()))
                        .push_bind(s.clone())
                        .push(" AS TEXT) ELSE FALSE END");
                }
                // Ordering other JSON values matches nothing.
                (_, _, _) => {
                    $q.push(" AND 1 = 0");
                }
            }
        }
    }};
}

/// Appends the owner, expiry and namespace-prefix conditions (after `WHERE`).
macro_rules! push_scope {
    ($q:ident, $p:ident, $owner:expr, $prefix:expr, $now:expr) => {{
        $q.push("i.owner = ")
            .push_bind($owner.to_string())
            .push(" AND (i.expires_at IS NULL OR i.expires_at > ")
            .push_bind($p.time($now))
            .push(")");
        let prefix: &[String] = $prefix;
        if !prefix.is_empty() {
            let path = namespace_path(prefix);
            let end = range_end(&path);
            $q.push(" AND i.namespace >= ")
                .push_bind(path)
                .push(" AND i.namespace < ")
                .push_bind(end);
        }
    }};
}

/// Starts the expiry of `items` (those with a time to live) again from `now`.
async fn refresh(
    db: &Db,
    items: &mut [&mut ItemRecord],
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    if items.iter().all(|i| i.ttl_minutes.is_none()) {
        return Ok(());
    }
    on!(db, p => {
        let mut tx = p.begin_write().await?;
        for item in items.iter_mut().filter(|i| i.ttl_minutes.is_some()) {
            let Some(until) = expiry(now, item.ttl_minutes) else { continue };
            // Only while still unexpired: a sweep may have taken it meanwhile.
            sqlx::query(
                "UPDATE store_items SET expires_at = $1 WHERE owner = $2 AND namespace = $3 \
                 AND key = $4 AND expires_at IS NOT NULL AND expires_at > $5",
            )
            .bind(p.time(until))
            .bind(&item.owner)
            .bind(namespace_path(&item.namespace))
            .bind(&item.key)
            .bind(p.time(now))
            .execute(&mut *tx)
            .await?;
            item.expires_at = Some(until);
        }
        tx.commit().await?;
    });
    Ok(())
}

#[async_trait]
impl ItemRepo for SqlItems {
    async fn put(&self, item: &NewItem) -> Result<(), StoreError> {
        let value = Json(canonical_map(&item.value));
        // PostgreSQL text cannot hold NUL; the search text is derived, so it just loses it.
        let text = item.search_text.as_ref().map(|t| t.replace('\0', " "));
        let expires = expiry(item.now, item.ttl_minutes);
        on!(&self.0, p => sqlx::query(
            "INSERT INTO store_items (owner, namespace, key, value, search_text, ttl_minutes, \
             expires_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) \
             ON CONFLICT (owner, namespace, key) DO UPDATE SET value = excluded.value, \
             search_text = excluded.search_text, ttl_minutes = excluded.ttl_minutes, \
             expires_at = excluded.expires_at, updated_at = excluded.updated_at, \
             created_at = CASE WHEN store_items.expires_at IS NOT NULL \
             AND store_items.expires_at <= excluded.updated_at THEN excluded.created_at \
             ELSE store_items.created_at END",
        )
        .bind(&item.owner)
        .bind(namespace_path(&item.namespace))
        .bind(&item.key)
        .bind(&value)
        .bind(&text)
        .bind(item.ttl_minutes)
        .bind(expires.map(|t| p.time(t)))
        .bind(p.time(item.now))
        .execute(p)
        .await
        .map(|_| ())?);
        Ok(())
    }

    async fn get(
        &self,
        owner: &str,
        namespace: &[String],
        key: &str,
        now: DateTime<Utc>,
        refresh_ttl: bool,
    ) -> Result<Option<ItemRecord>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM store_items i WHERE i.owner = $1 AND i.namespace = $2 \
             AND i.key = $3 AND (i.expires_at IS NULL OR i.expires_at > $4)"
        );
        let row: Option<Row> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(owner)
            .bind(namespace_path(namespace))
            .bind(key)
            .bind(p.time(now))
            .fetch_optional(p)
            .await?);
        let Some(row) = row else { return Ok(None) };
        let (mut item, _) = <(ItemRecord, Option<f64>)>::from(row);
        if refresh_ttl {
            refresh(&self.0, &mut [&mut item], now).await?;
        }
        Ok(Some(item))
    }

    async fn delete(
        &self,
        owner: &str,
        namespace: &[String],
        key: &str,
    ) -> Result<bool, StoreError> {
        let done = on!(&self.0, p => sqlx::query(
            "DELETE FROM store_items WHERE owner = $1 AND namespace = $2 AND key = $3",
        )
        .bind(owner)
        .bind(namespace_path(namespace))
        .bind(key)
        .execute(p)
        .await?
        .rows_affected());
        Ok(done > 0)
    }

    async fn search(
        &self,
        owner: &str,
        query: &ItemQuery,
        now: DateTime<Utc>,
        refresh_ttl: bool,
    ) -> Result<Vec<(ItemRecord, Option<f64>)>, StoreError> {
        let words = query.text.as_deref().map(search_words).unwrap_or_default();
        let pg = matches!(self.0, Db::Postgres(_));
        let limit = i64::from(query.limit.max(1));
        let offset = i64::from(query.offset);
        let rows: Vec<Row> = on!(&self.0, p => {
            let mut q = sqlx::QueryBuilder::new("SELECT ");
            q.push(COLUMNS);
            match (words.is_empty(), pg) {
                (true, _) => {
                    q.push(" FROM store_items i WHERE ");
                }
                (false, false) => {
                    // Quoted words: FTS5 syntax in a person's text means nothing.
                    let term = words.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(" OR ");
                    // CROSS JOIN keeps the full-text index the outer loop: the other way
                    // round SQLite runs the MATCH once per item (seconds at 100,000 items).
                    q.push(", -bm25(store_items_fts) AS score FROM store_items_fts \
                            CROSS JOIN store_items i ON i.rowid = store_items_fts.rowid \
                            WHERE store_items_fts MATCH ")
                        .push_bind(term)
                        .push(" AND ");
                }
                (false, true) => {
                    let term = words.join(" | ");
                    q.push(", CAST(ts_rank(i.tsv, to_tsquery('simple', ")
                        .push_bind(term.clone())
                        .push(")) AS DOUBLE PRECISION) AS score FROM store_items i \
                               WHERE i.tsv @@ to_tsquery('simple', ")
                        .push_bind(term)
                        .push(") AND ");
                }
            }
            push_scope!(q, p, owner, &query.prefix, now);
            push_conditions!(q, &query.conditions, pg);
            if words.is_empty() && !pg && !query.prefix.is_empty() {
                // SQLite would walk every item of the owner in time order (the recency
                // index) looking for the prefix; `+` makes it take the prefix's range of
                // the primary key and sort that instead.
                q.push(" ORDER BY +i.updated_at DESC, i.namespace, i.key");
            } else if words.is_empty() {
                q.push(" ORDER BY i.updated_at DESC, i.namespace, i.key");
            } else {
                q.push(" ORDER BY score DESC, i.namespace, i.key");
            }
            q.push(" LIMIT ").push_bind(limit).push(" OFFSET ").push_bind(offset);
            q.build_query_as().fetch_all(p).await?
        });
        let mut found: Vec<(ItemRecord, Option<f64>)> = rows.into_iter().map(Into::into).collect();
        if refresh_ttl {
            let mut items: Vec<&mut ItemRecord> = found.iter_mut().map(|(i, _)| i).collect();
            refresh(&self.0, &mut items, now).await?;
        }
        Ok(found)
    }

    async fn namespaces(
        &self,
        owner: &str,
        query: &NamespaceQuery,
        now: DateTime<Utc>,
    ) -> Result<Vec<Vec<String>>, StoreError> {
        // The database narrows by the labels before any wildcard; the patterns decide.
        let fixed: Vec<String> = query
            .prefix
            .iter()
            .take_while(|l| *l != "*")
            .cloned()
            .collect();
        let paths: Vec<String> = on!(&self.0, p => {
            let mut q = sqlx::QueryBuilder::new("SELECT DISTINCT i.namespace FROM store_items i WHERE ");
            push_scope!(q, p, owner, &fixed, now);
            q.build_query_scalar().fetch_all(p).await?
        });
        let found: BTreeSet<Vec<String>> = paths
            .iter()
            .map(|path| namespace_labels(path))
            .filter(|ns| matches_prefix(ns, &query.prefix) && matches_suffix(ns, &query.suffix))
            .map(|mut ns| {
                if let Some(depth) = query.max_depth {
                    ns.truncate(depth);
                }
                ns
            })
            .collect();
        Ok(found
            .into_iter()
            .skip(usize::try_from(query.offset).unwrap_or(usize::MAX))
            .take(usize::try_from(query.limit).unwrap_or(usize::MAX))
            .collect())
    }

    async fn sweep(&self, now: DateTime<Utc>, max: u32) -> Result<u64, StoreError> {
        Ok(on!(&self.0, p => sqlx::query(
            "DELETE FROM store_items WHERE (owner, namespace, key) IN (SELECT owner, namespace, \
             key FROM store_items WHERE expires_at IS NOT NULL AND expires_at <= $1 LIMIT $2)",
        )
        .bind(p.time(now))
        .bind(i64::from(max))
        .execute(p)
        .await?
        .rows_affected()))
    }
}
