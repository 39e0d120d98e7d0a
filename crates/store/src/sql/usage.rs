//! Model usage and daily limits. A run's entries are added in one write transaction (an
//! upsert per run, model and day, so concurrent runs never lose each other's counts); sums
//! are cast per engine-neutral SQL (`SUM` of a `BIGINT` is `NUMERIC` in PostgreSQL).

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

use super::rows::{count, stored};
use super::{Db, Engine, on};
use crate::StoreError;
use crate::usage::{UsageCounts, UsageEntry, UsageLimitRecord, UsageQuery, UsageRepo, UsageRow};

pub(crate) struct SqlUsage(pub(crate) Db);

/// How a day is stored (the same text in both engines).
const DAY_FORMAT: &str = "%Y-%m-%d";

fn day_text(day: NaiveDate) -> String {
    day.format(DAY_FORMAT).to_string()
}

fn parse_day(text: &str) -> Result<NaiveDate, StoreError> {
    NaiveDate::parse_from_str(text, DAY_FORMAT)
        .map_err(|e| StoreError::Corrupt(format!("usage day {text:?}: {e}")))
}

/// The summed columns, in [`SumRow`] order.
const SUMS: &str = "COALESCE(CAST(SUM(model_calls) AS BIGINT), 0) AS model_calls, \
    COALESCE(CAST(SUM(input_tokens) AS BIGINT), 0) AS input_tokens, \
    COALESCE(CAST(SUM(cached_input_tokens) AS BIGINT), 0) AS cached_input_tokens, \
    COALESCE(CAST(SUM(cache_write_tokens) AS BIGINT), 0) AS cache_write_tokens, \
    COALESCE(CAST(SUM(output_tokens) AS BIGINT), 0) AS output_tokens, \
    COALESCE(CAST(SUM(reasoning_tokens) AS BIGINT), 0) AS reasoning_tokens, \
    CAST(COALESCE(SUM(cost_usd), 0) AS DOUBLE PRECISION) AS cost_usd";

#[derive(sqlx::FromRow)]
struct SumRow {
    day: Option<String>,
    model: Option<String>,
    owner: Option<String>,
    model_calls: i64,
    input_tokens: i64,
    cached_input_tokens: i64,
    cache_write_tokens: i64,
    output_tokens: i64,
    reasoning_tokens: i64,
    cost_usd: f64,
}

impl SumRow {
    fn counts(&self) -> UsageCounts {
        UsageCounts {
            model_calls: count(self.model_calls),
            input_tokens: count(self.input_tokens),
            cached_input_tokens: count(self.cached_input_tokens),
            cache_write_tokens: count(self.cache_write_tokens),
            output_tokens: count(self.output_tokens),
            reasoning_tokens: count(self.reasoning_tokens),
            cost_usd: self.cost_usd,
        }
    }
}

#[derive(sqlx::FromRow)]
struct LimitRow {
    owner: String,
    tokens_per_day: Option<i64>,
    cost_usd_per_day: Option<f64>,
    updated_at: DateTime<Utc>,
}

impl From<LimitRow> for UsageLimitRecord {
    fn from(r: LimitRow) -> Self {
        UsageLimitRecord {
            owner: r.owner,
            tokens_per_day: r.tokens_per_day.map(count),
            cost_usd_per_day: r.cost_usd_per_day,
            updated_at: r.updated_at,
        }
    }
}

const LIMIT_COLUMNS: &str = "owner, tokens_per_day, cost_usd_per_day, updated_at";

const UPSERT: &str = "INSERT INTO model_usage (owner, run_id, thread_id, model, day, \
    model_calls, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, \
    reasoning_tokens, cost_usd) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
    ON CONFLICT (run_id, model, day) DO UPDATE SET \
    model_calls = model_usage.model_calls + excluded.model_calls, \
    input_tokens = model_usage.input_tokens + excluded.input_tokens, \
    cached_input_tokens = model_usage.cached_input_tokens + excluded.cached_input_tokens, \
    cache_write_tokens = model_usage.cache_write_tokens + excluded.cache_write_tokens, \
    output_tokens = model_usage.output_tokens + excluded.output_tokens, \
    reasoning_tokens = model_usage.reasoning_tokens + excluded.reasoning_tokens, \
    cost_usd = model_usage.cost_usd + excluded.cost_usd";

/// The statement adding `e` to its row (the engine follows from where it is executed).
fn upsert<'q, DB: sqlx::Database>(
    e: &'q UsageEntry,
) -> sqlx::query::Query<'q, DB, <DB as sqlx::Database>::Arguments<'q>>
where
    String: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    &'q str: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    f64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    let c = &e.counts;
    sqlx::query(UPSERT)
        .bind(e.owner.as_str())
        .bind(e.run_id.as_str())
        .bind(e.thread_id.as_str())
        .bind(e.model.as_str())
        .bind(day_text(e.day))
        .bind(stored(c.model_calls))
        .bind(stored(c.input_tokens))
        .bind(stored(c.cached_input_tokens))
        .bind(stored(c.cache_write_tokens))
        .bind(stored(c.output_tokens))
        .bind(stored(c.reasoning_tokens))
        .bind(c.cost_usd)
}

#[async_trait]
impl UsageRepo for SqlUsage {
    async fn record(&self, entries: &[UsageEntry]) -> Result<(), StoreError> {
        if entries.is_empty() {
            return Ok(());
        }
        if let [e] = entries {
            // One row: one statement, no transaction around it.
            on!(&self.0, p => {
                upsert(e).execute(p).await?;
            });
            return Ok(());
        }
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            for e in entries {
                upsert(e).execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    async fn summary(&self, q: &UsageQuery) -> Result<Vec<UsageRow>, StoreError> {
        let g = q.group;
        let mut keys = Vec::new();
        let pick = |on: bool, column: &str, keys: &mut Vec<String>| {
            if on {
                keys.push(column.to_string());
                column.to_string()
            } else {
                format!("CAST(NULL AS TEXT) AS {column}")
            }
        };
        let select = [
            pick(g.day, "day", &mut keys),
            pick(g.model, "model", &mut keys),
            pick(g.user, "owner", &mut keys),
        ]
        .join(", ");
        let mut sql =
            format!("SELECT {select}, {SUMS} FROM model_usage WHERE day >= $1 AND day <= $2");
        if q.owner.is_some() {
            sql.push_str(" AND owner = $3");
        }
        if !keys.is_empty() {
            let keys = keys.join(", ");
            sql.push_str(&format!(" GROUP BY {keys} ORDER BY {keys}"));
        }
        let rows: Vec<SumRow> = on!(&self.0, p => {
            let mut query = sqlx::query_as(&sql)
                .bind(day_text(q.from))
                .bind(day_text(q.to));
            if let Some(owner) = &q.owner {
                query = query.bind(owner);
            }
            query.fetch_all(p).await?
        });
        rows.into_iter()
            .map(|r| {
                Ok(UsageRow {
                    day: r.day.as_deref().map(parse_day).transpose()?,
                    counts: r.counts(),
                    model: r.model,
                    owner: r.owner,
                })
            })
            .collect()
    }

    async fn day_total(&self, owner: &str, day: NaiveDate) -> Result<UsageCounts, StoreError> {
        let sql = format!(
            "SELECT CAST(NULL AS TEXT) AS day, CAST(NULL AS TEXT) AS model, \
             CAST(NULL AS TEXT) AS owner, {SUMS} FROM model_usage WHERE owner = $1 AND day = $2"
        );
        let row: SumRow = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(owner)
            .bind(day_text(day))
            .fetch_one(p)
            .await?);
        Ok(row.counts())
    }

    async fn limit(&self, owner: &str) -> Result<Option<UsageLimitRecord>, StoreError> {
        let sql = format!("SELECT {LIMIT_COLUMNS} FROM usage_limits WHERE owner = $1");
        let row: Option<LimitRow> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(owner)
            .fetch_optional(p)
            .await?);
        Ok(row.map(Into::into))
    }

    async fn limits(&self) -> Result<Vec<UsageLimitRecord>, StoreError> {
        let sql = format!("SELECT {LIMIT_COLUMNS} FROM usage_limits ORDER BY owner");
        let rows: Vec<LimitRow> = on!(&self.0, p => sqlx::query_as(&sql).fetch_all(p).await?);
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn set_limit(&self, l: &UsageLimitRecord) -> Result<(), StoreError> {
        if l.tokens_per_day.is_none() && l.cost_usd_per_day.is_none() {
            on!(&self.0, p => sqlx::query("DELETE FROM usage_limits WHERE owner = $1")
                .bind(&l.owner)
                .execute(p)
                .await?
                .rows_affected());
            return Ok(());
        }
        on!(&self.0, p => sqlx::query(&format!(
            "INSERT INTO usage_limits ({LIMIT_COLUMNS}) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (owner) DO UPDATE SET tokens_per_day = excluded.tokens_per_day, \
             cost_usd_per_day = excluded.cost_usd_per_day, updated_at = excluded.updated_at"
        ))
        .bind(&l.owner)
        .bind(l.tokens_per_day.map(stored))
        .bind(l.cost_usd_per_day)
        .bind(p.time(l.updated_at))
        .execute(p)
        .await?
        .rows_affected());
        Ok(())
    }
}
