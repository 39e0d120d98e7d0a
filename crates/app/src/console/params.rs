//! The query of `GET /api/admin/runs`: what each parameter may be (the patterns the OpenAPI
//! document publishes, checked here with the same text) and what it means for the store.

use std::sync::LazyLock;

use antler_protocol::assistants::GRAPH_ID;
use antler_protocol::runs::RunStatus;
use antler_sandbox::paths::LOCAL_OWNER;
use antler_store::{ConsoleFilter, RatedFilter};
use chrono::{DateTime, Days, NaiveDate, Utc};
use regex::Regex;

use super::ConsoleError;

/// Runs a page holds when `limit` is not given.
pub const DEFAULT_LIMIT: u32 = 50;
/// The largest page.
pub const MAX_LIMIT: u32 = 200;
/// The largest `offset` (nine digits: what [`OFFSET_PATTERN`] lets through).
pub const MAX_OFFSET: u32 = 999_999_999;
/// `user`: an account's id (a UUID) or `local`; empty is no filter.
pub const USER_PATTERN: &str =
    "^(local|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$";
/// `status`: a run status; empty is no filter.
pub const STATUS_PATTERN: &str = "^(pending|running|success|error|timeout|interrupted)?$";
/// `from` and `to`: a UTC day or an RFC 3339 time; empty is no bound. Only days that exist
/// (February 29th of leap years; 30 days hath September), so every value it lets through is
/// one the service takes.
pub const TIME_PATTERN: &str = concat!(
    "^(([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])",
    "|[0-9]{4}-(0[13-9]|1[0-2])-(29|30)",
    "|[0-9]{4}-(0[13578]|1[02])-31",
    "|([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[048]|[2468][048]|[13579][26])00)-02-29)",
    "(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?",
    "(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?)?$"
);
/// `feedback`: runs rated `up`, `down`, or either (`any`); empty is no filter.
pub const FEEDBACK_PATTERN: &str = "^(up|down|any)?$";
/// `subagents`: `true` or `false`; empty is the default (`false`).
pub const BOOL_PATTERN: &str = "^(true|false)?$";
/// `limit`: 1 to [`MAX_LIMIT`], no leading zero; empty is [`DEFAULT_LIMIT`].
pub const LIMIT_PATTERN: &str = "^([1-9]|[1-9][0-9]|1[0-9][0-9]|200)?$";
/// `offset`: 0 to [`MAX_OFFSET`], no leading zero; empty is 0.
pub const OFFSET_PATTERN: &str = "^(0|[1-9][0-9]{0,8})?$";

/// The query of `GET /api/admin/runs` as the client sent it (checked here; `None` and an
/// empty value alike mean "not given").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsoleParams {
    /// Only this person's runs ([`USER_PATTERN`]).
    pub user: Option<String>,
    /// Only this agent's runs (`agent` or `lead_agent`: the built-in assistant's).
    pub assistant_id: Option<String>,
    /// Only runs in this status ([`STATUS_PATTERN`]).
    pub status: Option<String>,
    /// Runs created at or after this time; a day means its start (UTC).
    pub from: Option<String>,
    /// Runs created before this time; a day means its end (the whole day is included).
    pub to: Option<String>,
    /// `true`: subagents' runs too.
    pub subagents: Option<String>,
    /// Only runs rated this way ([`FEEDBACK_PATTERN`]).
    pub feedback: Option<String>,
    /// Page size.
    pub limit: Option<String>,
    /// Runs to skip.
    pub offset: Option<String>,
}

/// The start of a value a client sent, for an error message.
pub(super) fn shown(text: &str) -> String {
    text.chars().take(80).collect()
}

/// `text` unless it is `None` or empty.
fn given(text: &Option<String>) -> Option<&str> {
    text.as_deref().filter(|t| !t.is_empty())
}

/// A pattern of this module, compiled once (`None` never happens: they are constants).
type Compiled = LazyLock<Option<Regex>>;

static USER: Compiled = LazyLock::new(|| Regex::new(USER_PATTERN).ok());
static TIME: Compiled = LazyLock::new(|| Regex::new(TIME_PATTERN).ok());
static LIMIT: Compiled = LazyLock::new(|| Regex::new(LIMIT_PATTERN).ok());
static OFFSET: Compiled = LazyLock::new(|| Regex::new(OFFSET_PATTERN).ok());

fn matches(pattern: &Compiled, text: &str) -> bool {
    pattern.as_ref().is_some_and(|re| re.is_match(text))
}

fn invalid(name: &str, what: &str, text: &str) -> ConsoleError {
    ConsoleError::Invalid(format!("{name} must be {what}, not {:?}", shown(text)))
}

/// The store's filter, page size and offset for `p`.
pub(super) fn parse(p: &ConsoleParams) -> Result<(ConsoleFilter, u32, u32), ConsoleError> {
    let owner = match given(&p.user) {
        None => None,
        Some(u) if matches(&USER, u) => Some(if u == LOCAL_OWNER {
            u.to_string()
        } else {
            u.to_lowercase()
        }),
        Some(u) => {
            return Err(invalid(
                "user",
                "a user id (an account's UUID, or `local`)",
                u,
            ));
        }
    };
    let status = match given(&p.status) {
        None => None,
        Some(s) => Some(s.parse::<RunStatus>().map_err(|_| {
            let names: Vec<&str> = RunStatus::ALL.iter().map(|s| s.as_str()).collect();
            invalid("status", &format!("one of {}", names.join(", ")), s)
        })?),
    };
    let from = given(&p.from).map(|t| time("from", t, false)).transpose()?;
    let to = given(&p.to).map(|t| time("to", t, true)).transpose()?;
    let subagents = match given(&p.subagents) {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => return Err(invalid("subagents", "true or false", other)),
    };
    let limit = match given(&p.limit) {
        None => DEFAULT_LIMIT,
        Some(l) => number(l, &LIMIT)
            .ok_or_else(|| invalid("limit", &format!("a whole number from 1 to {MAX_LIMIT}"), l))?,
    };
    let offset = match given(&p.offset) {
        None => 0,
        Some(o) => number(o, &OFFSET).ok_or_else(|| {
            invalid(
                "offset",
                &format!("a whole number from 0 to {MAX_OFFSET}"),
                o,
            )
        })?,
    };
    let feedback = match given(&p.feedback) {
        None => None,
        Some("any") => Some(RatedFilter::Any),
        Some(f) => Some(RatedFilter::Only(
            f.parse()
                .map_err(|_| invalid("feedback", "up, down or any", f))?,
        )),
    };
    let filter = ConsoleFilter {
        owner,
        assistant_id: given(&p.assistant_id).map(assistant_id),
        status,
        from,
        to,
        subagents,
        feedback,
    };
    Ok((filter, limit, offset))
}

/// An assistant id as runs store it: the built-in assistant's for its graph names (what
/// people start runs with), a UUID in its stored spelling, anything else as given.
fn assistant_id(id: &str) -> String {
    if id == GRAPH_ID || id == "lead_agent" {
        return crate::assistants::built_in_id();
    }
    uuid::Uuid::parse_str(id).map_or_else(|_| id.to_string(), |u| u.to_string())
}

/// `text` as a number when it matches `pattern`.
fn number(text: &str, pattern: &Compiled) -> Option<u32> {
    matches(pattern, text).then(|| text.parse().ok()).flatten()
}

/// A time bound: an RFC 3339 time as it is, a day (`YYYY-MM-DD`, UTC) as its start, or for
/// `end` the next day's start (so `to=2025-03-01` includes all of that day). The feedback
/// export takes its bounds the same way.
pub(crate) fn time(name: &str, text: &str, end: bool) -> Result<DateTime<Utc>, ConsoleError> {
    let bad = || {
        invalid(
            name,
            "a day (YYYY-MM-DD, UTC) or an RFC 3339 time (2025-03-01T09:30:00Z)",
            text,
        )
    };
    if !matches(&TIME, text) {
        return Err(bad());
    }
    if text.len() == 10 {
        let day = NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| bad())?;
        let day = if end {
            day.checked_add_days(Days::new(1)).ok_or_else(bad)?
        } else {
            day
        };
        return day
            .and_hms_opt(0, 0, 0)
            .map(|t| clamp(t.and_utc()))
            .ok_or_else(bad);
    }
    DateTime::parse_from_rfc3339(text)
        .map(|t| clamp(t.to_utc()))
        .map_err(|_| bad())
}

/// `t` within years 0 to 9999, which SQLite's stored times (text) order rightly: an offset
/// or the day after 9999-12-31 would reach year 10000, whose text sorts before year 2000's.
/// No run was created outside them, so no answer changes.
fn clamp(t: DateTime<Utc>) -> DateTime<Utc> {
    let first = NaiveDate::from_ymd_opt(0, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc());
    let last = NaiveDate::from_ymd_opt(9999, 12, 31)
        .and_then(|d| d.and_hms_micro_opt(23, 59, 59, 999_999))
        .map(|t| t.and_utc());
    match (first, last) {
        (Some(first), _) if t < first => first,
        (_, Some(last)) if t > last => last,
        _ => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> ConsoleParams {
        let mut p = ConsoleParams::default();
        for (k, v) in pairs {
            let v = Some(v.to_string());
            match *k {
                "user" => p.user = v,
                "status" => p.status = v,
                "from" => p.from = v,
                "to" => p.to = v,
                "subagents" => p.subagents = v,
                "feedback" => p.feedback = v,
                "limit" => p.limit = v,
                "offset" => p.offset = v,
                _ => p.assistant_id = v,
            }
        }
        p
    }

    #[test]
    fn empty_values_are_absent_and_days_cover_whole_days() {
        let empty = params(&[
            ("user", ""),
            ("status", ""),
            ("from", ""),
            ("to", ""),
            ("subagents", ""),
            ("limit", ""),
            ("offset", ""),
            ("assistant_id", ""),
        ]);
        assert_eq!(
            parse(&empty).unwrap(),
            (ConsoleFilter::default(), DEFAULT_LIMIT, 0)
        );
        let (f, limit, offset) = parse(&params(&[
            ("user", "0A1B2C3D-0000-4000-8000-000000000000"),
            ("status", "timeout"),
            ("from", "2025-03-01"),
            ("to", "2025-03-01"),
            ("subagents", "true"),
            ("limit", "200"),
            ("offset", "999999999"),
        ]))
        .unwrap();
        assert_eq!(
            f.owner.as_deref(),
            Some("0a1b2c3d-0000-4000-8000-000000000000")
        );
        assert_eq!(f.status, Some(RunStatus::Timeout));
        assert_eq!(f.from.unwrap().to_rfc3339(), "2025-03-01T00:00:00+00:00");
        assert_eq!(f.to.unwrap().to_rfc3339(), "2025-03-02T00:00:00+00:00");
        assert!(f.subagents);
        assert_eq!((limit, offset), (200, MAX_OFFSET));
        let (f, _, _) = parse(&params(&[("feedback", "any")])).unwrap();
        assert_eq!(f.feedback, Some(RatedFilter::Any));
        let (f, _, _) = parse(&params(&[("feedback", "down")])).unwrap();
        assert_eq!(
            f.feedback,
            Some(RatedFilter::Only(antler_protocol::feedback::Rating::Down))
        );
        let (f, _, _) = parse(&params(&[("assistant_id", "lead_agent")])).unwrap();
        assert_eq!(f.assistant_id, Some(crate::assistants::built_in_id()));
        let (f, _, _) = parse(&params(&[("to", "2025-03-01T10:30:00.5+02:00")])).unwrap();
        assert_eq!(f.to.unwrap().to_rfc3339(), "2025-03-01T08:30:00.500+00:00");
    }

    #[test]
    fn the_time_pattern_lets_through_exactly_the_days_that_exist() {
        for year in [0, 4, 100, 1900, 2000, 2023, 2024, 2100, 2400, 9999] {
            for month in 1..=12 {
                for day in 1..=31 {
                    let text = format!("{year:04}-{month:02}-{day:02}");
                    let exists = NaiveDate::from_ymd_opt(year, month, day).is_some();
                    assert_eq!(matches(&TIME, &text), exists, "{text}");
                    assert_eq!(time("from", &text, false).is_ok(), exists, "{text}");
                }
            }
        }
    }

    #[test]
    fn times_beyond_year_9999_are_held_within_it() {
        let end = time("to", "9999-12-31", true).unwrap();
        assert_eq!(end.to_rfc3339(), "9999-12-31T23:59:59.999999+00:00");
        let late = time("from", "9999-12-31T23:00:00-14:00", false).unwrap();
        assert_eq!(late, end);
        let early = time("from", "0000-01-01T00:00:00+01:00", false).unwrap();
        assert_eq!(early.to_rfc3339(), "0000-01-01T00:00:00+00:00");
    }

    #[test]
    fn bad_values_are_refused_naming_the_parameter() {
        for (name, value) in [
            ("user", "bob"),
            ("status", "done"),
            ("from", "2025-3-01"),
            ("from", "2025-02-30"),
            ("to", "2025-03-01T25:00:00Z"),
            ("to", "2025-03-01t10:00:00z"),
            ("to", "2025-03-01T10:00:00"),
            ("subagents", "yes"),
            ("feedback", "UP"),
            ("feedback", "sideways"),
            ("limit", "0"),
            ("limit", "201"),
            ("limit", "07"),
            ("offset", "-1"),
            ("offset", "1000000000"),
        ] {
            match parse(&params(&[(name, value)])) {
                Err(ConsoleError::Invalid(m)) => assert!(m.starts_with(name), "{m}"),
                other => panic!("{name}={value}: {other:?}"),
            }
        }
    }
}
