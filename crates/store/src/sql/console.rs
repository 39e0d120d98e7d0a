//! The runs console's reads. Only the filters given become SQL (so each query can use its
//! index), with numbered placeholders bound in order; the one expression that differs between
//! the engines is a run's parent (`metadata.parent_run_id`), written exactly as the
//! `runs_parent` index of migration 0020 has it.

use std::collections::HashMap;

use antler_protocol::console::RunStep;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::rows::{RUN_COLUMNS, RunRow, count};
use super::{Db, Engine, on};
use crate::StoreError;
use crate::console::{ConsoleFilter, ConsolePage, ConsoleRecord, ConsoleRepo};
use crate::feedback::RatedFilter;
use crate::runs::RunRecord;

pub(crate) struct SqlConsole(pub(crate) Db);

/// A `runs` row with what the console reads beside it.
#[derive(sqlx::FromRow)]
struct ConsoleRow {
    #[sqlx(flatten)]
    run: RunRow,
    timeline: Option<String>,
    owner_email: Option<String>,
}

/// The selected columns of [`ConsoleRow`]: the owner's email without a join, so no column
/// name of `users` meets one of `runs`.
fn columns() -> String {
    format!(
        "{RUN_COLUMNS}, timeline, \
         (SELECT u.email FROM users u WHERE u.user_id = runs.owner) AS owner_email"
    )
}

/// A value bound to a placeholder of a filter.
enum Arg {
    Text(String),
    Time(DateTime<Utc>),
}

/// Binds `args` in order to a query built in one arm of [`on`] (`$p` is its pool).
macro_rules! bind_all {
    ($query:expr, $p:ident, $args:expr) => {{
        let mut query = $query;
        for arg in $args {
            query = match arg {
                Arg::Text(text) => query.bind(text.as_str()),
                Arg::Time(t) => query.bind($p.time(*t)),
            };
        }
        query
    }};
}

impl SqlConsole {
    /// A run's parent run id (NULL for a run a person started).
    fn parent(&self) -> &'static str {
        match &self.0 {
            Db::Sqlite(_) => "json_extract(metadata, '$.parent_run_id')",
            Db::Postgres(_) => "(metadata ->> 'parent_run_id')",
        }
    }

    /// `WHERE …` for `f` (empty when it lets everything through) and its arguments, `$1`
    /// on.
    fn filter(&self, f: &ConsoleFilter) -> (String, Vec<Arg>) {
        let mut clauses = Vec::new();
        let mut args = Vec::new();
        let mut add = |condition: &str, arg: Arg| {
            args.push(arg);
            clauses.push(format!("{condition} ${}", args.len()));
        };
        if let Some(owner) = &f.owner {
            add("owner =", Arg::Text(owner.clone()));
        }
        if let Some(assistant) = &f.assistant_id {
            add("assistant_id =", Arg::Text(assistant.clone()));
        }
        if let Some(status) = f.status {
            add("status =", Arg::Text(status.as_str().to_string()));
        }
        if let Some(from) = f.from {
            add("created_at >=", Arg::Time(from));
        }
        if let Some(to) = f.to {
            add("created_at <", Arg::Time(to));
        }
        if !f.subagents {
            clauses.push(format!("{} IS NULL", self.parent()));
        }
        // Feedback of the run (the primary key of `run_feedback` starts with `run_id`).
        let rated = "SELECT 1 FROM run_feedback f WHERE f.run_id = runs.run_id";
        match f.feedback {
            None => {}
            Some(RatedFilter::Any) => clauses.push(format!("EXISTS ({rated})")),
            Some(RatedFilter::Only(rating)) => {
                args.push(Arg::Text(rating.as_str().to_string()));
                clauses.push(format!("EXISTS ({rated} AND f.rating = ${})", args.len()));
            }
        }
        let sql = if clauses.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", clauses.join(" AND "))
        };
        (sql, args)
    }

    /// The records of `rows`, with the models each one's calls used.
    async fn records(&self, rows: Vec<ConsoleRow>) -> Result<Vec<ConsoleRecord>, StoreError> {
        let mut records = rows
            .into_iter()
            .map(|row| {
                let run = RunRecord::from(row.run);
                let timeline = row
                    .timeline
                    .map(|text| {
                        serde_json::from_str::<Vec<RunStep>>(&text).map_err(|e| {
                            StoreError::Corrupt(format!("the timeline of run {}: {e}", run.run_id))
                        })
                    })
                    .transpose()?;
                Ok(ConsoleRecord {
                    run,
                    timeline,
                    models: Vec::new(),
                    owner_email: row.owner_email,
                    feedback: Vec::new(),
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let ids: Vec<&str> = records.iter().map(|r| r.run.run_id.as_str()).collect();
        let mut models = self.models(&ids).await?;
        let mut feedback = super::feedback::of_runs(&self.0, &ids).await?;
        for record in &mut records {
            record.models = models.remove(&record.run.run_id).unwrap_or_default();
            record.feedback = feedback.remove(&record.run.run_id).unwrap_or_default();
        }
        Ok(records)
    }

    /// The distinct models of each of `run_ids`, sorted.
    async fn models(&self, run_ids: &[&str]) -> Result<HashMap<String, Vec<String>>, StoreError> {
        if run_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let placeholders: Vec<String> = (1..=run_ids.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT DISTINCT run_id, model FROM model_usage WHERE run_id IN ({}) \
             ORDER BY run_id, model",
            placeholders.join(", ")
        );
        let rows: Vec<(String, String)> = on!(&self.0, p => {
            let mut query = sqlx::query_as(&sql);
            for id in run_ids {
                query = query.bind(*id);
            }
            query.fetch_all(p).await?
        });
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        for (run_id, model) in rows {
            out.entry(run_id).or_default().push(model);
        }
        Ok(out)
    }
}

#[async_trait]
impl ConsoleRepo for SqlConsole {
    async fn list(
        &self,
        filter: &ConsoleFilter,
        limit: u32,
        offset: u32,
    ) -> Result<ConsolePage, StoreError> {
        let (wheres, args) = self.filter(filter);
        let count_sql = format!("SELECT COUNT(*) FROM runs{wheres}");
        let n = args.len();
        let page_sql = format!(
            "SELECT {} FROM runs{wheres} ORDER BY created_at DESC, run_id DESC \
             LIMIT ${} OFFSET ${}",
            columns(),
            n + 1,
            n + 2
        );
        let (total, rows): (i64, Vec<ConsoleRow>) = on!(&self.0, p => {
            let total = bind_all!(sqlx::query_scalar(&count_sql), p, &args)
                .fetch_one(p)
                .await?;
            let rows = bind_all!(sqlx::query_as(&page_sql), p, &args)
                .bind(i64::from(limit))
                .bind(i64::from(offset))
                .fetch_all(p)
                .await?;
            (total, rows)
        });
        Ok(ConsolePage {
            runs: self.records(rows).await?,
            total: count(total),
        })
    }

    async fn get(&self, run_id: &str) -> Result<Option<ConsoleRecord>, StoreError> {
        let sql = format!("SELECT {} FROM runs WHERE run_id = $1", columns());
        let row: Option<ConsoleRow> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(run_id)
            .fetch_optional(p)
            .await?);
        Ok(self.records(row.into_iter().collect()).await?.pop())
    }

    async fn children(&self, run_id: &str) -> Result<Vec<ConsoleRecord>, StoreError> {
        let sql = format!(
            "SELECT {} FROM runs WHERE {} = $1 ORDER BY created_at, run_id",
            columns(),
            self.parent()
        );
        let rows: Vec<ConsoleRow> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(run_id)
            .fetch_all(p)
            .await?);
        self.records(rows).await
    }
}
