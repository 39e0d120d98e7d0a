//! Daily limits: the configured defaults, per-person overrides admins set, and the check a
//! run passes before it starts.

use antler_protocol::usage::{UsageLimitList, UsageLimitStatus, UsageLimits, UserUsageLimits};
use antler_sandbox::paths::LOCAL_OWNER;
use antler_store::threads::timestamp;
use antler_store::{StoreError, UsageLimitRecord};
use chrono::{DateTime, Utc};

use super::{UsageError, UsageService, resets_at, today};
use crate::Caller;

/// Which daily limit a person reached, with the limit and what they used.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LimitKind {
    /// Prompt plus completion tokens.
    Tokens {
        /// Allowed per day.
        limit: u64,
        /// Used today.
        used: u64,
    },
    /// US dollars.
    Cost {
        /// Allowed per day.
        limit: f64,
        /// Used today.
        used: f64,
    },
}

/// A run refused because its person reached a daily limit.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct LimitReached {
    /// Which limit.
    pub kind: LimitKind,
    /// When it resets (the next UTC midnight).
    pub resets_at: DateTime<Utc>,
}

impl std::fmt::Display for LimitReached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            LimitKind::Tokens { limit, used } => {
                format!("your daily token limit ({used} of {limit} tokens used today)")
            }
            LimitKind::Cost { limit, used } => {
                format!("your daily cost limit (${used:.4} of ${limit:.4} used today)")
            }
        };
        write!(
            f,
            "you have reached {what}; new runs are refused until it resets at {} (midnight UTC)",
            super::rfc3339(self.resets_at)
        )
    }
}

impl LimitReached {
    /// The limit's name as the API shows it (`tokens_per_day`, `cost_usd_per_day`).
    pub fn limit_name(&self) -> &'static str {
        match self.kind {
            LimitKind::Tokens { .. } => "tokens_per_day",
            LimitKind::Cost { .. } => "cost_usd_per_day",
        }
    }

    /// Seconds until it resets (at least 1), for `Retry-After`.
    pub fn retry_after_secs(&self) -> u64 {
        let left = (self.resets_at - Utc::now()).num_seconds();
        u64::try_from(left).unwrap_or(0).max(1)
    }
}

impl UsageService {
    /// The limits that apply to `owner`: their own where an admin set one, else the defaults.
    async fn effective(&self, owner: &str) -> Result<UsageLimits, StoreError> {
        let own = self.store.usage.limit(owner).await?;
        Ok(UsageLimits {
            tokens_per_day: own
                .as_ref()
                .and_then(|l| l.tokens_per_day)
                .or(self.cfg.daily_token_limit),
            cost_usd_per_day: own
                .as_ref()
                .and_then(|l| l.cost_usd_per_day)
                .or(self.cfg.daily_cost_limit_usd),
        })
    }

    /// Whether `owner` may start a run now: `Some` names the limit they reached today.
    pub async fn check(&self, owner: &str) -> Result<Option<LimitReached>, StoreError> {
        let limits = self.effective(owner).await?;
        if limits.tokens_per_day.is_none() && limits.cost_usd_per_day.is_none() {
            return Ok(None);
        }
        let used = self.store.usage.day_total(owner, today()).await?;
        let resets_at = resets_at(Utc::now());
        if let Some(limit) = limits.tokens_per_day
            && used.tokens() >= limit
        {
            let used = used.tokens();
            return Ok(Some(LimitReached {
                kind: LimitKind::Tokens { limit, used },
                resets_at,
            }));
        }
        if let Some(limit) = limits.cost_usd_per_day
            && used.cost_usd >= limit
        {
            return Ok(Some(LimitReached {
                kind: LimitKind::Cost {
                    limit,
                    used: used.cost_usd,
                },
                resets_at,
            }));
        }
        Ok(None)
    }

    /// `owner`'s limits and what they used of them today.
    pub async fn status(&self, owner: &str) -> Result<UsageLimitStatus, StoreError> {
        let limits = self.effective(owner).await?;
        let used = self.store.usage.day_total(owner, today()).await?;
        Ok(UsageLimitStatus {
            tokens_per_day: limits.tokens_per_day,
            cost_usd_per_day: limits.cost_usd_per_day,
            used_tokens_today: used.tokens(),
            used_cost_usd_today: used.cost_usd,
            resets_at: super::rfc3339(resets_at(Utc::now())),
        })
    }

    /// The defaults and every person's own limits (admins only).
    pub async fn limits(&self, caller: &Caller) -> Result<UsageLimitList, UsageError> {
        admin(caller)?;
        let users = self.store.usage.limits().await?;
        Ok(UsageLimitList {
            defaults: UsageLimits {
                tokens_per_day: self.cfg.daily_token_limit,
                cost_usd_per_day: self.cfg.daily_cost_limit_usd,
            },
            users: users.into_iter().map(wire).collect(),
        })
    }

    /// Sets `user_id`'s own limits (admins only); `null` limits fall back to the defaults.
    pub async fn set_limits(
        &self,
        caller: &Caller,
        user_id: &str,
        limits: UsageLimits,
    ) -> Result<UserUsageLimits, UsageError> {
        admin(caller)?;
        if limits
            .tokens_per_day
            .is_some_and(|t| i64::try_from(t).is_err())
        {
            return Err(UsageError::Invalid(format!(
                "tokens_per_day must be at most {} (or null)",
                i64::MAX
            )));
        }
        if let Some(cost) = limits.cost_usd_per_day
            && (!cost.is_finite() || cost < 0.0)
        {
            return Err(UsageError::Invalid(
                "cost_usd_per_day must be a number of dollars, 0 or more, or null".into(),
            ));
        }
        self.known_user(user_id).await?;
        let record = UsageLimitRecord {
            owner: user_id.to_string(),
            tokens_per_day: limits.tokens_per_day,
            cost_usd_per_day: limits.cost_usd_per_day,
            updated_at: Utc::now(),
        };
        self.store.usage.set_limit(&record).await?;
        tracing::info!(user.id = user_id, by = caller.owner(), tokens_per_day = ?limits.tokens_per_day, cost_usd_per_day = ?limits.cost_usd_per_day, "usage limits set");
        let cleared = limits.tokens_per_day.is_none() && limits.cost_usd_per_day.is_none();
        let mut out = wire(record);
        if cleared {
            out.updated_at = None;
        }
        Ok(out)
    }

    /// Refuses a user id that names nobody (the local user of `auth.mode: none` exists).
    pub(super) async fn known_user(&self, user_id: &str) -> Result<(), UsageError> {
        if user_id == LOCAL_OWNER || self.store.accounts.user(user_id).await?.is_some() {
            Ok(())
        } else {
            Err(UsageError::UnknownUser(user_id.to_string()))
        }
    }
}

fn admin(caller: &Caller) -> Result<(), UsageError> {
    if caller.is_admin() {
        Ok(())
    } else {
        Err(UsageError::Forbidden(
            "only admins may see or set other people's limits".into(),
        ))
    }
}

fn wire(r: UsageLimitRecord) -> UserUsageLimits {
    UserUsageLimits {
        user_id: r.owner,
        tokens_per_day: r.tokens_per_day,
        cost_usd_per_day: r.cost_usd_per_day,
        updated_at: Some(timestamp(r.updated_at)),
    }
}
