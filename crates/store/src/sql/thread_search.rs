//! Conversation search: FTS5 (trigram) on SQLite, `tsvector` and ILIKE on PostgreSQL, both
//! over the `thread_search` table the triggers of migration 0022 keep.

use async_trait::async_trait;
use sqlx::types::Json;

use super::Db;
use super::rows::{THREAD_COLUMNS, ThreadRow};
use super::threads::{PG_FILTERS, ids_param, sqlite_filters};
use super::wire::Wire;
use crate::StoreError;
use crate::thread_search::{
    EXCERPT_CHARS, MAX_TERMS, TextHit, ThreadSearchRepo, fts_phrase, like_pattern,
};
use crate::threads::ThreadQuery;

pub(crate) struct SqlThreadSearch(pub(crate) Db);

/// Characters of context the excerpt keeps before the first match.
const LEAD: usize = 60;

/// Shortest term the trigram index can find (shorter ones are matched with LIKE).
const TRIGRAM: usize = 3;

/// A matching thread with its title and excerpt.
#[derive(sqlx::FromRow)]
struct HitRow {
    #[sqlx(flatten)]
    thread: ThreadRow,
    hit_title: String,
    hit_excerpt: String,
    cut_before: bool,
    cut_after: bool,
}

impl From<HitRow> for TextHit {
    fn from(r: HitRow) -> Self {
        TextHit {
            thread: r.thread.into(),
            title: r.hit_title,
            excerpt: r.hit_excerpt,
            cut_before: r.cut_before,
            cut_after: r.cut_after,
        }
    }
}

/// The outer query shared by both engines: the filtered threads joined to their hits, with
/// an excerpt starting [`LEAD`] characters before `hit_at` (a 1-based character position).
fn outer(hits: &str, greatest: &str, filters: &str, page: usize) -> String {
    format!(
        "WITH hits AS ({hits}), \
         placed AS (SELECT hits.*, {greatest}(1, hit_at - {LEAD}) AS hit_start FROM hits) \
         SELECT {THREAD_COLUMNS}, hit_title, \
           substr(hit_body, hit_start, {EXCERPT_CHARS}) AS hit_excerpt, \
           hit_start > 1 AS cut_before, \
           length(hit_body) >= hit_start + {EXCERPT_CHARS} AS cut_after \
         FROM threads JOIN placed ON placed.hit_id = threads.thread_id \
         WHERE owner = $1{filters} \
         ORDER BY hit_rank DESC, updated_at DESC, thread_id DESC LIMIT ${} OFFSET ${}",
        page,
        page + 1
    )
}

/// `COALESCE(NULLIF(strpos(…, $n), 0), …, 1)`: where the first of the terms that occurs
/// in `body` starts (1 when none does), `find` being the engine's position function.
fn first_at(find: &str, lower_body: &str, params: std::ops::Range<usize>) -> String {
    let mut parts: Vec<String> = params
        .map(|n| format!("NULLIF({find}({lower_body}, ${n}), 0)"))
        .collect();
    parts.push("1".into());
    format!("COALESCE({})", parts.join(", "))
}

#[async_trait]
impl ThreadSearchRepo for SqlThreadSearch {
    async fn search_text(
        &self,
        owner: &str,
        terms: &[String],
        query: &ThreadQuery,
    ) -> Result<Vec<TextHit>, StoreError> {
        let terms = &terms[..terms.len().min(MAX_TERMS)];
        let rows: Vec<HitRow> = match &self.0 {
            Db::Sqlite(p) => {
                let (filters, mut n) = sqlite_filters(query);
                let (long, short): (Vec<&String>, Vec<&String>) =
                    terms.iter().partition(|t| t.chars().count() >= TRIGRAM);
                let mut hits = String::from(
                    "SELECT s.thread_id AS hit_id, s.title AS hit_title, s.body AS hit_body, ",
                );
                let fts = if long.is_empty() {
                    hits.push_str("0.0 AS hit_rank");
                    None
                } else {
                    n += 1;
                    // Title matches weigh more; bm25 is smaller for better matches.
                    hits.push_str("-bm25(thread_search_fts, 5.0, 1.0) AS hit_rank");
                    let phrases: Vec<String> = long.iter().map(|t| fts_phrase(t)).collect();
                    Some((n, phrases.join(" ")))
                };
                let likes = n + 1..n + 1 + short.len();
                n += short.len();
                // SQLite's lower() folds ASCII only: the terms are folded alike.
                let anchors = n + 1..n + 1 + terms.len();
                n += terms.len();
                hits.push_str(&format!(
                    ", {} AS hit_at FROM thread_search s",
                    first_at("instr", "lower(s.body)", anchors)
                ));
                if let Some((param, _)) = &fts {
                    hits.push_str(&format!(
                        " JOIN thread_search_fts ON thread_search_fts.rowid = s.id \
                         WHERE s.owner = $1 AND thread_search_fts MATCH ${param}"
                    ));
                } else {
                    hits.push_str(" WHERE s.owner = $1");
                }
                for param in likes {
                    hits.push_str(&format!(
                        " AND (s.title LIKE ${param} ESCAPE '\\' OR s.body LIKE ${param} ESCAPE '\\')"
                    ));
                }
                let sql = outer(&hits, "max", &filters, n + 1);
                let mut q = sqlx::query_as(&sql).bind(owner);
                for (key, value) in query.metadata.iter().chain(&query.values) {
                    q = q.bind(key).bind(Json(value));
                }
                q = q.bind(query.status.map(Wire)).bind(ids_param(query));
                if let Some((_, expression)) = fts {
                    q = q.bind(expression);
                }
                for term in &short {
                    q = q.bind(like_pattern(term));
                }
                for term in terms {
                    q = q.bind(term.to_ascii_lowercase());
                }
                q.bind(i64::from(query.limit))
                    .bind(i64::from(query.offset))
                    .fetch_all(p)
                    .await?
            }
            Db::Postgres(p) => {
                // $2-$5 are the filters; $6 the words for the tsvector.
                let likes = 7..7 + terms.len();
                let anchors = likes.end..likes.end + terms.len();
                let page = anchors.end;
                let mut substrings: Vec<String> = likes
                    .map(|n| format!("(s.title ILIKE ${n} OR s.body ILIKE ${n})"))
                    .collect();
                if substrings.is_empty() {
                    substrings.push("TRUE".into());
                }
                let hits = format!(
                    "SELECT s.thread_id AS hit_id, s.title AS hit_title, s.body AS hit_body, \
                     ts_rank(s.document, plainto_tsquery('simple', $6)) AS hit_rank, \
                     {} AS hit_at FROM thread_search s \
                     WHERE s.owner = $1 AND (s.document @@ plainto_tsquery('simple', $6) \
                     OR ({}))",
                    first_at("strpos", "lower(s.body)", anchors),
                    substrings.join(" AND ")
                );
                let sql = outer(&hits, "GREATEST", PG_FILTERS, page);
                let mut q = sqlx::query_as(&sql)
                    .bind(owner)
                    .bind(Json(&query.metadata))
                    .bind(Json(&query.values))
                    .bind(query.status.map(Wire))
                    .bind(ids_param(query))
                    .bind(terms.join(" "));
                for term in terms {
                    q = q.bind(like_pattern(term));
                }
                for term in terms {
                    q = q.bind(term.to_lowercase());
                }
                q.bind(i64::from(query.limit))
                    .bind(i64::from(query.offset))
                    .fetch_all(p)
                    .await?
            }
        };
        Ok(rows.into_iter().map(Into::into).collect())
    }
}
