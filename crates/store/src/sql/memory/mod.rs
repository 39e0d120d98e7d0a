//! Memory: facts with full-text search (SQLite FTS5, PostgreSQL `tsvector`), settings.

use antler_protocol::memory::FactCategory;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::wire::Wire;
use super::{Db, Engine, on};
use crate::StoreError;
use crate::memory::{FactQuery, FactRecord, MemoryRepo, MemorySettings, search_words};

pub(crate) struct SqlMemory(pub(crate) Db);

const COLUMNS: &str = "f.fact_id, f.owner, f.assistant_id, f.content, f.category, f.confidence, \
    f.confirmations, f.source_thread, f.supersedes, f.active, f.created_at, f.updated_at, \
    f.last_used_at";

#[derive(sqlx::FromRow)]
struct Row {
    fact_id: String,
    owner: String,
    assistant_id: Option<String>,
    content: String,
    category: Wire<FactCategory>,
    confidence: f64,
    confirmations: i64,
    source_thread: Option<String>,
    supersedes: Option<String>,
    active: bool,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    last_used_at: Option<DateTime<Utc>>,
    #[sqlx(default)]
    rank: Option<f64>,
}

impl From<Row> for (FactRecord, f64) {
    fn from(r: Row) -> Self {
        (
            FactRecord {
                fact_id: r.fact_id,
                owner: r.owner,
                assistant_id: r.assistant_id,
                content: r.content,
                category: r.category.0,
                confidence: r.confidence,
                confirmations: r.confirmations,
                source_thread: r.source_thread,
                supersedes: r.supersedes,
                active: r.active,
                created_at: r.created_at,
                updated_at: r.updated_at,
                last_used_at: r.last_used_at,
            },
            r.rank.unwrap_or(0.0),
        )
    }
}

/// Inserts a fact (inside `$tx`).
macro_rules! insert {
    ($p:ident, $tx:expr, $f:expr) => {
        sqlx::query(
            "INSERT INTO memory_facts (fact_id, owner, assistant_id, content, category, \
             confidence, confirmations, source_thread, supersedes, active, created_at, \
             updated_at, last_used_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
             $12, $13)",
        )
        .bind(&$f.fact_id)
        .bind(&$f.owner)
        .bind(&$f.assistant_id)
        .bind(&$f.content)
        .bind(Wire($f.category))
        .bind($f.confidence)
        .bind($f.confirmations)
        .bind(&$f.source_thread)
        .bind(&$f.supersedes)
        .bind($f.active)
        .bind($p.time($f.created_at))
        .bind($p.time($f.updated_at))
        .bind($f.last_used_at.map(|t| $p.time(t)))
        .execute(&mut *$tx)
        .await?
    };
}

/// Ends a claimed turn inside transaction `$tx`, only while the claim is still `$item`'s
/// (a replica that took it over finishes it); a newer turn that arrived meanwhile stays
/// queued, unclaimed.
macro_rules! finish_claim {
    ($p:ident, $tx:ident, $item:expr) => {{
        let removed = sqlx::query(
            "DELETE FROM memory_queue WHERE owner = $1 AND thread_id = $2 AND due_at <= $3 \
             AND claimed_by = $4",
        )
        .bind(&$item.owner)
        .bind(&$item.thread_id)
        .bind($p.time($item.claimed_at))
        .bind(&$item.claimed_by)
        .execute(&mut *$tx)
        .await?
        .rows_affected();
        if removed == 0 {
            sqlx::query(
                "UPDATE memory_queue SET claimed_by = NULL, claimed_at = NULL, attempts = 0 \
                 WHERE owner = $1 AND thread_id = $2 AND claimed_by = $3",
            )
            .bind(&$item.owner)
            .bind(&$item.thread_id)
            .bind(&$item.claimed_by)
            .execute(&mut *$tx)
            .await?;
        }
    }};
}

/// Deletes a fact and the chain of facts it superseded inside transaction `$tx`; answers
/// the rows deleted.
macro_rules! delete_chain {
    ($tx:ident, $owner:expr, $fact_id:expr) => {{
        let mut next = Some($fact_id.to_string());
        let mut deleted = 0;
        let mut steps = 0;
        while let Some(id) = next.take() {
            steps += 1;
            let superseded: Option<Option<String>> = sqlx::query_scalar(
                "SELECT supersedes FROM memory_facts WHERE owner = $1 AND fact_id = $2",
            )
            .bind($owner)
            .bind(&id)
            .fetch_optional(&mut *$tx)
            .await?;
            let Some(superseded) = superseded else { break };
            deleted += sqlx::query("DELETE FROM memory_facts WHERE owner = $1 AND fact_id = $2")
                .bind($owner)
                .bind(&id)
                .execute(&mut *$tx)
                .await?
                .rows_affected();
            next = superseded.filter(|_| steps < 1000);
        }
        deleted
    }};
}

#[async_trait]
impl MemoryRepo for SqlMemory {
    async fn add(&self, fact: &FactRecord) -> Result<(), StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            insert!(p, tx, fact);
            tx.commit().await?;
        });
        Ok(())
    }

    async fn get(&self, owner: &str, fact_id: &str) -> Result<Option<FactRecord>, StoreError> {
        let sql =
            format!("SELECT {COLUMNS} FROM memory_facts f WHERE f.owner = $1 AND f.fact_id = $2");
        let row: Option<Row> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(owner)
            .bind(fact_id)
            .fetch_optional(p)
            .await?);
        Ok(row.map(|r| <(FactRecord, f64)>::from(r).0))
    }

    async fn list(&self, owner: &str, q: &FactQuery) -> Result<Vec<(FactRecord, f64)>, StoreError> {
        let filters = "f.owner = $1 \
            AND (CAST($2 AS TEXT) IS NULL OR f.assistant_id IS NULL OR f.assistant_id = $2) \
            AND (CAST($3 AS TEXT) IS NULL OR f.category = $3) \
            AND ($4 OR f.active)";
        let words = q.search.as_deref().map(search_words).unwrap_or_default();
        let limit = i64::from(q.limit.clamp(1, 1000));
        let offset = i64::from(q.offset);
        // The words searched for ($7) in each engine's syntax; unused (null) without words.
        let (sql, term) = match (&self.0, words.is_empty()) {
            (_, true) => (
                format!(
                    "SELECT {COLUMNS} FROM memory_facts f WHERE CAST($7 AS TEXT) IS NULL AND {filters} \
                     ORDER BY f.updated_at DESC, f.fact_id LIMIT $5 OFFSET $6"
                ),
                None,
            ),
            (Db::Sqlite(_), false) => (
                format!(
                    "SELECT {COLUMNS}, -bm25(memory_fts) AS rank FROM memory_fts \
                     JOIN memory_facts f ON f.rowid = memory_fts.rowid \
                     WHERE memory_fts MATCH $7 AND {filters} \
                     ORDER BY rank DESC, f.fact_id LIMIT $5 OFFSET $6"
                ),
                // Quoted words: FTS5 syntax in a person's text means nothing.
                Some(
                    words
                        .iter()
                        .map(|w| format!("\"{w}\""))
                        .collect::<Vec<_>>()
                        .join(" OR "),
                ),
            ),
            (Db::Postgres(_), false) => (
                format!(
                    "SELECT {COLUMNS}, CAST(ts_rank(f.tsv, to_tsquery('simple', $7)) AS DOUBLE PRECISION) AS rank \
                     FROM memory_facts f WHERE f.tsv @@ to_tsquery('simple', $7) AND {filters} \
                     ORDER BY rank DESC, f.fact_id LIMIT $5 OFFSET $6"
                ),
                Some(words.join(" | ")),
            ),
        };
        let rows: Vec<Row> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(owner)
            .bind(&q.assistant_id)
            .bind(q.category.map(Wire))
            .bind(q.include_inactive)
            .bind(limit)
            .bind(offset)
            .bind(term)
            .fetch_all(p)
            .await?);
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn count(&self, owner: &str) -> Result<u64, StoreError> {
        let n: i64 = on!(&self.0, p => sqlx::query_scalar(
            "SELECT COUNT(*) FROM memory_facts WHERE owner = $1 AND active",
        )
        .bind(owner)
        .fetch_one(p)
        .await?);
        Ok(u64::try_from(n).unwrap_or(0))
    }

    async fn version(&self, owner: &str) -> Result<u64, StoreError> {
        let version: Option<i64> = on!(&self.0, p => sqlx::query_scalar(
            "SELECT version FROM memory_versions WHERE owner = $1",
        )
        .bind(owner)
        .fetch_optional(p)
        .await?);
        Ok(version.and_then(|v| u64::try_from(v).ok()).unwrap_or(0))
    }

    async fn version_if_enabled(&self, owner: &str) -> Result<Option<u64>, StoreError> {
        let (version, enabled): (Option<i64>, Option<bool>) = on!(&self.0, p => sqlx::query_as(
            "SELECT (SELECT version FROM memory_versions WHERE owner = $1), \
             (SELECT enabled FROM memory_settings WHERE owner = $1)",
        )
        .bind(owner)
        .fetch_one(p)
        .await?);
        let enabled = enabled.unwrap_or(MemorySettings::default().enabled);
        Ok(enabled.then(|| version.and_then(|v| u64::try_from(v).ok()).unwrap_or(0)))
    }

    async fn active(&self, owner: &str) -> Result<Vec<FactRecord>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM memory_facts f WHERE f.owner = $1 AND f.active");
        let rows: Vec<Row> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(owner)
            .fetch_all(p)
            .await?);
        Ok(rows
            .into_iter()
            .map(|r| <(FactRecord, f64)>::from(r).0)
            .collect())
    }

    async fn supersede(
        &self,
        owner: &str,
        fact_id: &str,
        next: &FactRecord,
    ) -> Result<bool, StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let changed = sqlx::query(
                "UPDATE memory_facts SET active = FALSE, updated_at = $3 \
                 WHERE owner = $1 AND fact_id = $2 AND active",
            )
            .bind(owner)
            .bind(fact_id)
            .bind(p.time(Utc::now()))
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if changed == 0 {
                return Ok(false);
            }
            insert!(p, tx, next);
            tx.commit().await?;
            Ok(true)
        })
    }

    async fn confirm(&self, owner: &str, fact_id: &str) -> Result<bool, StoreError> {
        let changed = on!(&self.0, p => sqlx::query(
            "UPDATE memory_facts SET confirmations = confirmations + 1, updated_at = $3 \
             WHERE owner = $1 AND fact_id = $2 AND active",
        )
        .bind(owner)
        .bind(fact_id)
        .bind(p.time(Utc::now()))
        .execute(p)
        .await?
        .rows_affected());
        Ok(changed > 0)
    }

    async fn delete(&self, owner: &str, fact_id: &str) -> Result<bool, StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let deleted = delete_chain!(tx, owner, fact_id);
            tx.commit().await?;
            Ok(deleted > 0)
        })
    }

    async fn import(
        &self,
        owner: &str,
        add: &[FactRecord],
        evict: &[String],
        summary: Option<&str>,
    ) -> Result<u64, StoreError> {
        on!(&self.0, p => {
            // All or nothing: a crash or a failure midway leaves the memory as it was.
            let mut tx = p.begin_write().await?;
            let mut added = 0;
            for fact in add {
                // The same fact already kept (by an import that raced this one) is not
                // added twice.
                let known: Option<i64> = sqlx::query_scalar(
                    "SELECT 1 FROM memory_facts WHERE owner = $1 AND active AND content = $2 \
                     AND (assistant_id = $3 OR (assistant_id IS NULL AND CAST($3 AS TEXT) IS NULL))",
                )
                .bind(owner)
                .bind(&fact.content)
                .bind(&fact.assistant_id)
                .fetch_optional(&mut *tx)
                .await?;
                if known.is_none() {
                    insert!(p, tx, fact);
                    added += 1;
                }
            }
            for id in evict {
                delete_chain!(tx, owner, id.as_str());
            }
            if let Some(summary) = summary {
                sqlx::query(
                    "INSERT INTO memory_settings (owner, enabled, summary, updated_at) \
                     VALUES ($1, $2, $3, $4) ON CONFLICT (owner) DO UPDATE SET \
                     summary = excluded.summary, updated_at = excluded.updated_at",
                )
                .bind(owner)
                .bind(true)
                .bind(summary)
                .bind(p.time(Utc::now()))
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
            Ok(added)
        })
    }

    async fn forget_thread(&self, owner: &str, thread_id: &str) -> Result<u64, StoreError> {
        // Corrections keep their source thread, so a fact and its versions go together.
        Ok(on!(&self.0, p => sqlx::query(
            "DELETE FROM memory_facts WHERE owner = $1 AND source_thread = $2",
        )
        .bind(owner)
        .bind(thread_id)
        .execute(p)
        .await?
        .rows_affected()))
    }

    async fn forget_all(&self, owner: &str) -> Result<u64, StoreError> {
        Ok(
            on!(&self.0, p => sqlx::query("DELETE FROM memory_facts WHERE owner = $1")
            .bind(owner)
            .execute(p)
            .await?
            .rows_affected()),
        )
    }

    async fn touch(&self, owner: &str, fact_ids: &[String]) -> Result<(), StoreError> {
        let now = Utc::now();
        on!(&self.0, p => {
            // One transaction: a run uses many facts at once.
            let mut tx = p.begin_write().await?;
            for id in fact_ids {
                sqlx::query("UPDATE memory_facts SET last_used_at = $3 WHERE owner = $1 AND fact_id = $2")
                    .bind(owner)
                    .bind(id)
                    .bind(p.time(now))
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    async fn settings(&self, owner: &str) -> Result<MemorySettings, StoreError> {
        let row: Option<(bool, Option<String>)> = on!(&self.0, p => sqlx::query_as(
            "SELECT enabled, summary FROM memory_settings WHERE owner = $1",
        )
        .bind(owner)
        .fetch_optional(p)
        .await?);
        Ok(
            row.map_or_else(MemorySettings::default, |(enabled, summary)| {
                MemorySettings { enabled, summary }
            }),
        )
    }

    async fn set_settings(&self, owner: &str, settings: &MemorySettings) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "INSERT INTO memory_settings (owner, enabled, summary, updated_at) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (owner) DO UPDATE SET enabled = excluded.enabled, \
                 summary = excluded.summary, updated_at = excluded.updated_at",
            )
            .bind(owner)
            .bind(settings.enabled)
            .bind(&settings.summary)
            .bind(p.time(Utc::now()))
            .execute(p)
            .await?;
        });
        Ok(())
    }
}

mod queue;
pub(crate) use queue::SqlMemoryQueue;
