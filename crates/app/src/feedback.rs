//! Feedback on answers: a person rates a run of their own conversation (thumbs up or down,
//! with an optional comment), takes the rating back, and reads their ratings of a thread
//! when it opens; admins export everyone's as JSON Lines, a page at a time.

use antler_protocol::feedback::{
    Feedback, FeedbackExportLine, FeedbackList, FeedbackRequest, MAX_COMMENT_CHARS,
};
use antler_store::threads::timestamp;
use antler_store::{
    ExportCursor, ExportRange, FeedbackRecord, NewFeedback, Store, StoreError, ThreadRecord,
};

use crate::Caller;
use crate::console::ConsoleError;
use crate::threads::{ThreadError, check_id};

/// Feedback an export reads from the database at a time.
pub const EXPORT_PAGE: u32 = 500;

/// What can go wrong with feedback.
#[derive(Debug, thiserror::Error)]
pub enum FeedbackError {
    /// A field of the body is not acceptable (the message names it).
    #[error("{0}")]
    Invalid(String),
    /// A query parameter is not acceptable (the message names it).
    #[error("{0}")]
    InvalidQuery(String),
    /// The caller is not an admin (exports).
    #[error("{0}")]
    Forbidden(String),
    /// The run id is not a run id.
    #[error("run id {0:?} is not a UUID")]
    InvalidRunId(String),
    /// The thread is missing or not the caller's (or its id is not a thread id).
    #[error(transparent)]
    Thread(#[from] ThreadError),
    /// No such run in the thread.
    #[error("no run '{run_id}' in thread '{thread_id}'")]
    RunNotFound {
        /// The thread.
        thread_id: String,
        /// The run asked for.
        run_id: String,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The feedback use-cases.
#[derive(Clone)]
pub struct FeedbackService {
    store: Store,
}

impl std::fmt::Debug for FeedbackService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FeedbackService").finish_non_exhaustive()
    }
}

impl FeedbackService {
    /// The service over `store`.
    pub fn new(store: Store) -> Self {
        FeedbackService { store }
    }

    /// Rates a run of the caller's thread, replacing their earlier rating of it.
    pub async fn put(
        &self,
        caller: &Caller,
        thread_id: &str,
        run_id: &str,
        req: FeedbackRequest,
    ) -> Result<Feedback, FeedbackError> {
        let comment = comment(req.comment)?;
        let run_id = self.run(caller, thread_id, run_id).await?;
        let stored = self
            .store
            .feedback
            .put(&NewFeedback {
                owner: caller.owner().to_string(),
                thread_id: thread_id.to_string(),
                run_id: run_id.clone(),
                rating: req.rating,
                comment,
                at: chrono::Utc::now(),
            })
            .await?
            // The thread or run went away in between.
            .ok_or_else(|| not_found(thread_id, &run_id))?;
        tracing::info!(thread.id = thread_id, run.id = %run_id, rating = %req.rating, "feedback given");
        Ok(wire(stored))
    }

    /// Takes back the caller's rating of a run of their thread (none given is no error).
    pub async fn delete(
        &self,
        caller: &Caller,
        thread_id: &str,
        run_id: &str,
    ) -> Result<(), FeedbackError> {
        let run_id = self.run(caller, thread_id, run_id).await?;
        self.store
            .feedback
            .delete(caller.owner(), thread_id, &run_id)
            .await?;
        Ok(())
    }

    /// The caller's ratings of their thread's runs, oldest run first.
    pub async fn list(
        &self,
        caller: &Caller,
        thread_id: &str,
    ) -> Result<FeedbackList, FeedbackError> {
        self.thread(caller, thread_id).await?;
        let records = self
            .store
            .feedback
            .of_thread(caller.owner(), thread_id)
            .await?;
        Ok(FeedbackList {
            feedback: records.into_iter().map(wire).collect(),
        })
    }

    /// Everyone's feedback changed at or after `since` and before `until` (each a UTC day or
    /// an RFC 3339 time, as the runs console takes them), oldest change first (admins only).
    /// Nothing is read until the pages are asked for.
    pub fn export(
        &self,
        caller: &Caller,
        since: Option<&str>,
        until: Option<&str>,
    ) -> Result<FeedbackExport, FeedbackError> {
        if !caller.is_admin() {
            return Err(FeedbackError::Forbidden(
                "only admins may export everyone's feedback".into(),
            ));
        }
        let bound = |name: &str, text: Option<&str>, end: bool| {
            text.filter(|t| !t.is_empty())
                .map(|t| crate::console::params::time(name, t, end))
                .transpose()
                .map_err(|e| match e {
                    ConsoleError::Invalid(m) => FeedbackError::InvalidQuery(m),
                    other => FeedbackError::InvalidQuery(other.to_string()),
                })
        };
        let range = ExportRange {
            since: bound("since", since, false)?,
            until: bound("until", until, true)?,
        };
        Ok(FeedbackExport {
            store: self.store.clone(),
            range,
            after: None,
            done: false,
        })
    }

    async fn thread(&self, caller: &Caller, thread_id: &str) -> Result<ThreadRecord, ThreadError> {
        check_id(thread_id)?;
        self.store
            .threads
            .get(caller.owner(), thread_id)
            .await?
            .ok_or_else(|| ThreadError::NotFound(thread_id.to_string()))
    }

    /// The run's id as stored, once the thread is the caller's and the run is in it.
    async fn run(
        &self,
        caller: &Caller,
        thread_id: &str,
        run_id: &str,
    ) -> Result<String, FeedbackError> {
        let id = uuid::Uuid::parse_str(run_id)
            .map_err(|_| FeedbackError::InvalidRunId(run_id.chars().take(80).collect()))?
            .hyphenated()
            .to_string();
        self.thread(caller, thread_id).await?;
        match self.store.runs.get(thread_id, &id).await? {
            Some(_) => Ok(id),
            None => Err(not_found(thread_id, &id)),
        }
    }
}

/// An export in progress: its pages, read one at a time.
#[derive(Debug)]
pub struct FeedbackExport {
    store: Store,
    range: ExportRange,
    after: Option<ExportCursor>,
    done: bool,
}

impl FeedbackExport {
    /// The next page of lines (`None` once everything was read).
    pub async fn next_page(&mut self) -> Result<Option<Vec<FeedbackExportLine>>, StoreError> {
        if self.done {
            return Ok(None);
        }
        let page = self
            .store
            .feedback
            .export_page(&self.range, self.after.as_ref(), EXPORT_PAGE)
            .await?;
        self.done = page.len() < EXPORT_PAGE as usize;
        let Some(last) = page.last() else {
            return Ok(None);
        };
        self.after = Some(ExportCursor::after(&last.feedback));
        Ok(Some(
            page.into_iter()
                .map(|e| {
                    let f = e.feedback;
                    FeedbackExportLine {
                        run_id: f.run_id,
                        thread_id: f.thread_id,
                        user_id: f.owner,
                        user_email: f.owner_email,
                        rating: f.rating,
                        comment: f.comment,
                        created_at: timestamp(f.created_at),
                        updated_at: timestamp(f.updated_at),
                        assistant_id: e.assistant_id,
                        model: e.model,
                    }
                })
                .collect(),
        ))
    }
}

/// The comment as stored: at most [`MAX_COMMENT_CHARS`] as sent, no NUL, trimmed, blank is
/// none.
fn comment(text: Option<String>) -> Result<Option<String>, FeedbackError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let chars = text.chars().count();
    if chars > MAX_COMMENT_CHARS {
        return Err(FeedbackError::Invalid(format!(
            "comment must be at most {MAX_COMMENT_CHARS} characters, not {chars}"
        )));
    }
    if text.contains('\0') {
        return Err(FeedbackError::Invalid(
            "comment must not contain the NUL character".into(),
        ));
    }
    let trimmed = text.trim();
    Ok((!trimmed.is_empty()).then(|| trimmed.to_string()))
}

fn not_found(thread_id: &str, run_id: &str) -> FeedbackError {
    FeedbackError::RunNotFound {
        thread_id: thread_id.to_string(),
        run_id: run_id.to_string(),
    }
}

/// The wire shape of stored feedback.
fn wire(f: FeedbackRecord) -> Feedback {
    Feedback {
        run_id: f.run_id,
        thread_id: f.thread_id,
        rating: f.rating,
        comment: f.comment,
        created_at: timestamp(f.created_at),
        updated_at: timestamp(f.updated_at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_trimmed_blank_is_none_and_limits_count_characters_as_sent() {
        assert_eq!(comment(None).unwrap(), None);
        assert_eq!(comment(Some(" \n\t ".into())).unwrap(), None);
        assert_eq!(
            comment(Some("  too wordy \n".into())).unwrap().as_deref(),
            Some("too wordy")
        );
        let longest = "字".repeat(MAX_COMMENT_CHARS);
        assert_eq!(comment(Some(longest.clone())).unwrap(), Some(longest));
        for bad in ["字".repeat(MAX_COMMENT_CHARS + 1), "a\0b".into()] {
            match comment(Some(bad)) {
                Err(FeedbackError::Invalid(m)) => assert!(m.starts_with("comment"), "{m}"),
                other => panic!("{other:?}"),
            }
        }
    }
}
