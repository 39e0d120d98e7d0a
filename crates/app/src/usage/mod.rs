//! Model usage people can see and cap: reports per day, model and person (`GET /api/usage`),
//! daily limits (configured defaults, per-person overrides admins set), and the check every
//! run passes before it starts. What runs used is stored by the run manager when they end
//! (`antler_agent_runtime::usage`); a run over a limit already going is not cut off.

mod limits;
mod report;

use antler_store::Store;
use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

pub use limits::{LimitKind, LimitReached};
pub use report::{ALL_USERS, DEFAULT_DAYS, ReportParams};

/// `usage.*`: the daily limits everyone has unless an admin set their own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UsageConfig {
    /// Prompt plus completion tokens one person's runs may use per UTC day (none: unlimited).
    #[serde(deserialize_with = "number_or_text")]
    pub daily_token_limit: Option<u64>,
    /// US dollars one person's runs may cost per UTC day, from the models' `pricing` (none:
    /// unlimited).
    #[serde(deserialize_with = "number_or_text")]
    pub daily_cost_limit_usd: Option<f64>,
}

/// A number as YAML gives it, or as text (an `ANTLER_…` variable overriding a key whose
/// default is empty arrives as text).
fn number_or_text<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned + std::str::FromStr,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw<T> {
        Number(T),
        Text(String),
    }
    match Option::<Raw<T>>::deserialize(d)? {
        None => Ok(None),
        Some(Raw::Number(n)) => Ok(Some(n)),
        Some(Raw::Text(t)) if t.trim().is_empty() => Ok(None),
        Some(Raw::Text(t)) => t
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| serde::de::Error::custom(format!("{t:?} is not a number"))),
    }
}

impl UsageConfig {
    /// Checks values that parse but make no sense.
    pub fn validate(&self) -> Result<(), String> {
        match self.daily_cost_limit_usd {
            Some(c) if !c.is_finite() || c < 0.0 => {
                Err("must be a number of dollars, 0 or more".into())
            }
            _ => Ok(()),
        }
    }
}

/// What can go wrong with usage and limits.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// A query parameter or body field is not acceptable.
    #[error("{0}")]
    Invalid(String),
    /// The caller may not see or change this.
    #[error("{0}")]
    Forbidden(String),
    /// No such user.
    #[error("no user '{0}'")]
    UnknownUser(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] antler_store::StoreError),
}

/// The usage use-cases.
#[derive(Clone)]
pub struct UsageService {
    store: Store,
    cfg: UsageConfig,
}

impl std::fmt::Debug for UsageService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UsageService")
            .field("cfg", &self.cfg)
            .finish_non_exhaustive()
    }
}

impl UsageService {
    /// The service over `store` with the configured defaults.
    pub fn new(store: Store, cfg: UsageConfig) -> Self {
        UsageService { store, cfg }
    }
}

/// Today's UTC day.
fn today() -> NaiveDate {
    Utc::now().date_naive()
}

/// A time as the usage API shows it (`2025-01-02T00:00:00Z`).
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The next UTC midnight: when today's usage stops counting.
fn resets_at(now: DateTime<Utc>) -> DateTime<Utc> {
    let tomorrow = now.date_naive() + Duration::days(1);
    tomorrow.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc()
}
