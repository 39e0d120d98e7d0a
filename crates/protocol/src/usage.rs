//! Model usage and daily limits: `GET /api/usage`, `GET /api/usage/limits`,
//! `PUT /api/usage/limits/{user_id}`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Summed model use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UsageTotals {
    /// Model calls answered.
    pub model_calls: u64,
    /// Prompt tokens, cached ones included.
    pub input_tokens: u64,
    /// Of `input_tokens`, read from the provider's prompt cache.
    pub cached_input_tokens: u64,
    /// Completion tokens, reasoning included.
    pub output_tokens: u64,
    /// Of `output_tokens`, spent reasoning.
    pub reasoning_tokens: u64,
    /// US dollars, from the models' `pricing` (unpriced models count 0).
    pub cost_usd: f64,
}

/// One group of usage; a key is present when the report is grouped by it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UsageRow {
    /// The UTC day (`YYYY-MM-DD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day: Option<String>,
    /// The configured model's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The person's user id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Model calls answered.
    pub model_calls: u64,
    /// Prompt tokens, cached ones included.
    pub input_tokens: u64,
    /// Of `input_tokens`, read from the provider's prompt cache.
    pub cached_input_tokens: u64,
    /// Completion tokens, reasoning included.
    pub output_tokens: u64,
    /// Of `output_tokens`, spent reasoning.
    pub reasoning_tokens: u64,
    /// US dollars.
    pub cost_usd: f64,
}

/// A person's daily limits today and what they used of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UsageLimitStatus {
    /// Prompt plus completion tokens allowed per UTC day (`null`: unlimited).
    pub tokens_per_day: Option<u64>,
    /// US dollars allowed per UTC day (`null`: unlimited).
    pub cost_usd_per_day: Option<f64>,
    /// Prompt plus completion tokens used today (UTC).
    pub used_tokens_today: u64,
    /// US dollars used today (UTC).
    pub used_cost_usd_today: f64,
    /// When today's usage resets: the next UTC midnight (RFC 3339).
    pub resets_at: String,
}

/// `GET /api/usage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UsageReport {
    /// First UTC day included (`YYYY-MM-DD`).
    pub from: String,
    /// Last UTC day included (`YYYY-MM-DD`).
    pub to: String,
    /// The groups, ordered by day, model and user.
    pub rows: Vec<UsageRow>,
    /// Every row summed.
    pub totals: UsageTotals,
    /// The daily limits of the person reported on (the caller, or the named user).
    pub limit: UsageLimitStatus,
}

/// A person's daily limits as an admin sets them; `null` (or left out) uses the configured
/// default (`usage.daily_token_limit`, `usage.daily_cost_limit_usd`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UsageLimits {
    /// Prompt plus completion tokens per UTC day (at most 2^63 − 1, as the database keeps
    /// it).
    #[serde(default, deserialize_with = "crate::de::opt_u64")]
    #[schema(minimum = 0, maximum = 9_223_372_036_854_775_807_i64)]
    pub tokens_per_day: Option<u64>,
    /// US dollars per UTC day.
    #[serde(default)]
    #[schema(minimum = 0)]
    pub cost_usd_per_day: Option<f64>,
}

/// One person's limits as an admin set them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UserUsageLimits {
    /// The person.
    pub user_id: String,
    /// Prompt plus completion tokens per UTC day (`null`: the default).
    pub tokens_per_day: Option<u64>,
    /// US dollars per UTC day (`null`: the default).
    pub cost_usd_per_day: Option<f64>,
    /// When it was set (RFC 3339); `null` when nothing is set.
    pub updated_at: Option<String>,
}

/// `GET /api/usage/limits`: the configured defaults and every person's own limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UsageLimitList {
    /// The defaults from the configuration (`null`: unlimited).
    pub defaults: UsageLimits,
    /// Every person an admin set limits for, by user id.
    pub users: Vec<UserUsageLimits>,
}
