//! Feedback on answers. A write checks in the same statement that the run is in a thread of
//! the giver (so a thread deleted meanwhile never meets a foreign key); an export pages by
//! `(updated_at, run_id, owner)`, which the `run_feedback_updated` index of migration 0021
//! orders, so a large export reads one page at a time.

use std::collections::HashMap;

use antler_protocol::feedback::Rating;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::wire::Wire;
use super::{Db, Engine, on};
use crate::StoreError;
use crate::feedback::{
    ExportCursor, ExportRange, ExportedFeedback, FeedbackRecord, FeedbackRepo, NewFeedback,
};

pub(crate) struct SqlFeedback(pub(crate) Db);

/// The columns of [`FeedbackRow`] from `run_feedback f`, the giver's email included.
const COLUMNS: &str = "f.run_id, f.thread_id, f.owner, \
    (SELECT u.email FROM users u WHERE u.user_id = f.owner) AS owner_email, \
    f.rating, f.comment, f.created_at, f.updated_at";

/// A `run_feedback` row.
#[derive(sqlx::FromRow)]
struct FeedbackRow {
    run_id: String,
    thread_id: String,
    owner: String,
    owner_email: Option<String>,
    rating: Wire<Rating>,
    comment: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl From<FeedbackRow> for FeedbackRecord {
    fn from(r: FeedbackRow) -> Self {
        FeedbackRecord {
            run_id: r.run_id,
            thread_id: r.thread_id,
            owner: r.owner,
            owner_email: r.owner_email,
            rating: r.rating.0,
            comment: r.comment,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// An exported row: the feedback and what its run says.
#[derive(sqlx::FromRow)]
struct ExportRow {
    #[sqlx(flatten)]
    feedback: FeedbackRow,
    assistant_id: String,
    model: Option<String>,
}

/// Every person's feedback on each of `run_ids` (for the runs console), oldest first.
pub(crate) async fn of_runs(
    db: &Db,
    run_ids: &[&str],
) -> Result<HashMap<String, Vec<FeedbackRecord>>, StoreError> {
    if run_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let placeholders: Vec<String> = (1..=run_ids.len()).map(|i| format!("${i}")).collect();
    let sql = format!(
        "SELECT {COLUMNS} FROM run_feedback f WHERE f.run_id IN ({}) \
         ORDER BY f.created_at, f.owner",
        placeholders.join(", ")
    );
    let rows: Vec<FeedbackRow> = on!(db, p => {
        let mut query = sqlx::query_as(&sql);
        for id in run_ids {
            query = query.bind(*id);
        }
        query.fetch_all(p).await?
    });
    let mut out: HashMap<String, Vec<FeedbackRecord>> = HashMap::new();
    for row in rows {
        let record = FeedbackRecord::from(row);
        out.entry(record.run_id.clone()).or_default().push(record);
    }
    Ok(out)
}

#[async_trait]
impl FeedbackRepo for SqlFeedback {
    async fn put(&self, f: &NewFeedback) -> Result<Option<FeedbackRecord>, StoreError> {
        // The WHERE clause also keeps SQLite from reading `ON CONFLICT` as a join constraint.
        let sql = "INSERT INTO run_feedback \
             (run_id, owner, thread_id, rating, comment, created_at, updated_at) \
             SELECT r.run_id, t.owner, r.thread_id, $4, $5, $6, $6 \
             FROM runs r JOIN threads t ON t.thread_id = r.thread_id \
             WHERE r.run_id = $1 AND r.thread_id = $2 AND t.owner = $3 \
             ON CONFLICT (run_id, owner) DO UPDATE SET rating = excluded.rating, \
             comment = excluded.comment, updated_at = excluded.updated_at \
             RETURNING run_id, thread_id, owner, CAST(NULL AS TEXT) AS owner_email, rating, \
             comment, created_at, updated_at";
        let row: Option<FeedbackRow> = on!(&self.0, p => sqlx::query_as(sql)
            .bind(&f.run_id)
            .bind(&f.thread_id)
            .bind(&f.owner)
            .bind(Wire(f.rating))
            .bind(f.comment.as_deref())
            .bind(p.time(f.at))
            .fetch_optional(p)
            .await?);
        Ok(row.map(Into::into))
    }

    async fn delete(&self, owner: &str, thread_id: &str, run_id: &str) -> Result<bool, StoreError> {
        let done = on!(&self.0, p => sqlx::query(
            "DELETE FROM run_feedback WHERE run_id = $1 AND thread_id = $2 AND owner = $3",
        )
        .bind(run_id)
        .bind(thread_id)
        .bind(owner)
        .execute(p)
        .await?
        .rows_affected());
        Ok(done > 0)
    }

    async fn of_thread(
        &self,
        owner: &str,
        thread_id: &str,
    ) -> Result<Vec<FeedbackRecord>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM run_feedback f JOIN runs r ON r.run_id = f.run_id \
             WHERE f.thread_id = $1 AND f.owner = $2 ORDER BY r.created_at, f.run_id"
        );
        let rows: Vec<FeedbackRow> = on!(&self.0, p => sqlx::query_as(&sql)
            .bind(thread_id)
            .bind(owner)
            .fetch_all(p)
            .await?);
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn export_page(
        &self,
        range: &ExportRange,
        after: Option<&ExportCursor>,
        limit: u32,
    ) -> Result<Vec<ExportedFeedback>, StoreError> {
        // Placeholders are numbered in the order the arguments are bound below.
        let mut clauses = Vec::new();
        let mut n = 0;
        let mut next = || {
            n += 1;
            n
        };
        if range.since.is_some() {
            clauses.push(format!("f.updated_at >= ${}", next()));
        }
        if range.until.is_some() {
            clauses.push(format!("f.updated_at < ${}", next()));
        }
        if after.is_some() {
            let (a, b, c) = (next(), next(), next());
            clauses.push(format!(
                "(f.updated_at, f.run_id, f.owner) > (${a}, ${b}, ${c})"
            ));
        }
        let wheres = if clauses.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", clauses.join(" AND "))
        };
        let sql = format!(
            "SELECT {COLUMNS}, r.assistant_id, \
             (SELECT m.model FROM model_usage m WHERE m.run_id = f.run_id GROUP BY m.model \
              ORDER BY SUM(m.model_calls) DESC, m.model LIMIT 1) AS model \
             FROM run_feedback f JOIN runs r ON r.run_id = f.run_id{wheres} \
             ORDER BY f.updated_at, f.run_id, f.owner LIMIT ${}",
            next()
        );
        let rows: Vec<ExportRow> = on!(&self.0, p => {
            let mut query = sqlx::query_as(&sql);
            if let Some(since) = range.since {
                query = query.bind(p.time(since));
            }
            if let Some(until) = range.until {
                query = query.bind(p.time(until));
            }
            if let Some(after) = after {
                query = query
                    .bind(p.time(after.updated_at))
                    .bind(after.run_id.as_str())
                    .bind(after.owner.as_str());
            }
            query.bind(i64::from(limit)).fetch_all(p).await?
        });
        Ok(rows
            .into_iter()
            .map(|r| ExportedFeedback {
                feedback: r.feedback.into(),
                assistant_id: r.assistant_id,
                model: r.model,
            })
            .collect())
    }
}
