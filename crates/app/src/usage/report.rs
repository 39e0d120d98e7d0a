//! `GET /api/usage`: usage summed per UTC day, model and person over a range of days.

use antler_protocol::usage::{UsageReport, UsageRow, UsageTotals};
use antler_store::{UsageCounts, UsageGrouping, UsageQuery};
use chrono::{Duration, NaiveDate};

use super::{UsageError, UsageService, today};
use crate::Caller;

/// Days a report covers when `from` is not given.
pub const DEFAULT_DAYS: i64 = 30;
/// What `user` takes to report on everyone (admins).
pub const ALL_USERS: &str = "all";

/// The query of a report, as the client sent it (checked here).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReportParams {
    /// First UTC day (`YYYY-MM-DD`); default: 29 days before `to`.
    pub from: Option<String>,
    /// Last UTC day (`YYYY-MM-DD`); default: today.
    pub to: Option<String>,
    /// A user id, or `all` (admins only, for someone else).
    pub user: Option<String>,
    /// `day`, `model`, `user`, comma-separated; default `day,model`.
    pub group_by: Option<String>,
}

fn day(name: &str, text: &str) -> Result<NaiveDate, UsageError> {
    let shown: String = text.chars().take(40).collect();
    let bad = || UsageError::Invalid(format!("{name} must be a day as YYYY-MM-DD, not {shown:?}"));
    let well_formed = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if !well_formed {
        return Err(bad());
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| bad())
}

fn grouping(text: Option<&str>) -> Result<UsageGrouping, UsageError> {
    let Some(text) = text else {
        return Ok(UsageGrouping {
            day: true,
            model: true,
            user: false,
        });
    };
    let mut g = UsageGrouping::default();
    for key in text.split(',').map(str::trim) {
        match key {
            "day" => g.day = true,
            "model" => g.model = true,
            "user" => g.user = true,
            other => {
                let shown: String = other.chars().take(40).collect();
                return Err(UsageError::Invalid(format!(
                    "group_by takes day, model and user, comma-separated; not {shown:?}"
                )));
            }
        }
    }
    Ok(g)
}

impl UsageService {
    /// The usage `params` ask for: the caller's own, or (admins) someone's or everyone's.
    pub async fn report(
        &self,
        caller: &Caller,
        params: &ReportParams,
    ) -> Result<UsageReport, UsageError> {
        let to = match params.to.as_deref() {
            Some(t) => day("to", t)?,
            None => today(),
        };
        let from = match params.from.as_deref() {
            Some(f) => day("from", f)?,
            None => to - Duration::days(DEFAULT_DAYS - 1),
        };
        // Any range is answered: rows exist only for days something was used, so a long one
        // costs no more than its data, and one that ends before it starts is simply empty.
        let group = grouping(params.group_by.as_deref())?;
        // Whose usage: `None` is everyone's.
        let owner = match params.user.as_deref() {
            None => Some(caller.owner().to_string()),
            Some(u) if u == caller.owner() => Some(u.to_string()),
            Some(_) if !caller.is_admin() => {
                return Err(UsageError::Forbidden(
                    "only admins may see other people's usage".into(),
                ));
            }
            Some(ALL_USERS) => None,
            Some(u) => {
                self.known_user(u).await?;
                Some(u.to_string())
            }
        };
        let rows = self
            .store
            .usage
            .summary(&UsageQuery {
                owner: owner.clone(),
                from,
                to,
                group,
            })
            .await?;
        let mut total = UsageCounts::default();
        let rows = rows
            .into_iter()
            .map(|r| {
                total.add(&r.counts);
                let t = totals(&r.counts);
                UsageRow {
                    day: r.day.map(|d| d.to_string()),
                    model: r.model,
                    user: r.owner,
                    model_calls: t.model_calls,
                    input_tokens: t.input_tokens,
                    cached_input_tokens: t.cached_input_tokens,
                    output_tokens: t.output_tokens,
                    reasoning_tokens: t.reasoning_tokens,
                    cost_usd: t.cost_usd,
                }
            })
            .collect();
        let limit_of = owner.as_deref().unwrap_or(caller.owner());
        Ok(UsageReport {
            from: from.to_string(),
            to: to.to_string(),
            rows,
            totals: totals(&total),
            limit: self.status(limit_of).await?,
        })
    }
}

fn totals(c: &UsageCounts) -> UsageTotals {
    UsageTotals {
        model_calls: c.model_calls,
        input_tokens: c.input_tokens,
        cached_input_tokens: c.cached_input_tokens,
        output_tokens: c.output_tokens,
        reasoning_tokens: c.reasoning_tokens,
        cost_usd: c.cost_usd,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_must_be_written_in_full() {
        assert!(day("from", "2025-03-01").is_ok());
        for bad in [
            "2025-3-01",
            "2025-02-30",
            "20250301",
            "2025-03-01T00:00",
            "",
        ] {
            assert!(day("from", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn group_by_names_known_keys_only() {
        let g = grouping(Some("user, day")).unwrap();
        assert!(g.user && g.day && !g.model);
        assert!(grouping(Some("day,")).is_err());
        assert!(grouping(Some("thread")).is_err());
    }
}
