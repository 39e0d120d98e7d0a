//! What model calls use and cost: one call's tokens priced by its model's `pricing`, and a
//! run's calls summed per model and UTC day, stored after each of the run's own model calls
//! (one small additive write, off the streaming path) and at its end: a run whose server is
//! killed keeps what its finished calls used, so a crash cannot reset anyone's daily limit.
//!
//! Cost of one call, in US dollars: `(prompt − cached − cache_write) · input + cached ·
//! cached_input + cache_write · input · 1.25 + completion · output`, over a million. Cache
//! writes are billed at Anthropic's five-minute price, 1.25 times the input price.

use std::collections::BTreeMap;

use antler_protocol::messages::UsageMetadata;
use antler_protocol::runs::RunUsage;
use antler_store::{UsageCounts, UsageEntry};
use chrono::{NaiveDate, Utc};

use crate::config::{ModelConfig, Pricing};
use crate::model::wire::Usage;

/// What writing a prompt-cache entry costs, times the input price (Anthropic's five-minute
/// cache).
pub const CACHE_WRITE_PRICE_FACTOR: f64 = 1.25;

/// What one call with `usage` costs at `pricing`, in US dollars.
pub fn cost_usd(usage: &Usage, pricing: &Pricing) -> f64 {
    let cached = usage.cached_tokens;
    let written = usage.cache_write_tokens;
    let fresh = usage
        .prompt_tokens
        .saturating_sub(cached)
        .saturating_sub(written);
    let cached_price = pricing.cached_input.unwrap_or(pricing.input);
    (fresh as f64 * pricing.input
        + cached as f64 * cached_price
        + written as f64 * pricing.input * CACHE_WRITE_PRICE_FACTOR
        + usage.completion_tokens as f64 * pricing.output)
        / 1_000_000.0
}

/// What one call of `model` cost, when the model has prices.
pub fn call_cost(model: &ModelConfig, usage: &Usage) -> Option<f64> {
    model.pricing.as_ref().map(|p| cost_usd(usage, p))
}

/// One call's counts as LangChain's `usage_metadata` (details only when not zero).
pub fn usage_metadata(u: &Usage) -> UsageMetadata {
    use antler_protocol::messages::{InputTokenDetails, OutputTokenDetails};
    let nonzero = |n: u64| (n > 0).then_some(n);
    let input = InputTokenDetails {
        cache_read: nonzero(u.cached_tokens),
        cache_creation: nonzero(u.cache_write_tokens),
    };
    let output = OutputTokenDetails {
        reasoning: nonzero(u.reasoning_tokens),
    };
    UsageMetadata {
        input_tokens: u.prompt_tokens,
        output_tokens: u.completion_tokens,
        total_tokens: u.total_tokens,
        input_token_details: (input != InputTokenDetails::default()).then_some(input),
        output_token_details: (output != OutputTokenDetails::default()).then_some(output),
    }
}

/// A call's counts read back from its message's `usage_metadata`.
pub fn from_metadata(m: &UsageMetadata) -> Usage {
    let input = m.input_token_details.unwrap_or_default();
    let output = m.output_token_details.unwrap_or_default();
    Usage {
        prompt_tokens: m.input_tokens,
        completion_tokens: m.output_tokens,
        total_tokens: m.total_tokens,
        cached_tokens: input.cache_read.unwrap_or(0),
        cache_write_tokens: input.cache_creation.unwrap_or(0),
        reasoning_tokens: output.reasoning.unwrap_or(0),
    }
}

/// A run's own model calls not stored yet (not its subagents', which are runs of their own),
/// per model name and the UTC day each call ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageLedger {
    unsaved: BTreeMap<(String, NaiveDate), UsageCounts>,
}

impl UsageLedger {
    /// Counts one answered call of `model` (`usage` as reported; none counts the call
    /// only) and answers it as run counters (one call, its tokens and cost).
    pub fn add(&mut self, model: &ModelConfig, usage: Option<&Usage>) -> RunUsage {
        let u = usage.copied().unwrap_or_default();
        let cost = call_cost(model, &u).unwrap_or(0.0);
        let counts = UsageCounts {
            model_calls: 1,
            input_tokens: u.prompt_tokens,
            cached_input_tokens: u.cached_tokens,
            cache_write_tokens: u.cache_write_tokens,
            output_tokens: u.completion_tokens,
            reasoning_tokens: u.reasoning_tokens,
            cost_usd: cost,
        };
        self.unsaved
            .entry((model.name.clone(), Utc::now().date_naive()))
            .or_default()
            .add(&counts);
        RunUsage {
            input_tokens: u.prompt_tokens,
            cached_input_tokens: u.cached_tokens,
            output_tokens: u.completion_tokens,
            reasoning_tokens: u.reasoning_tokens,
            model_calls: 1,
            cost_usd: cost,
        }
    }

    /// Whether every counted call is stored.
    pub fn is_empty(&self) -> bool {
        self.unsaved.is_empty()
    }

    /// The entries to store for the run `run_id` of `owner` in `thread_id`.
    pub fn entries(&self, owner: &str, run_id: &str, thread_id: &str) -> Vec<UsageEntry> {
        self.unsaved
            .iter()
            .map(|((model, day), counts)| UsageEntry {
                owner: owner.to_string(),
                run_id: run_id.to_string(),
                thread_id: thread_id.to_string(),
                model: model.clone(),
                day: *day,
                counts: *counts,
            })
            .collect()
    }

    /// Stores the calls counted since the last store (added to what the run stored before),
    /// retried a few times: a lost write would let a person past their daily limit. Calls
    /// that could not be stored stay for the next try.
    pub async fn store(
        &mut self,
        store: &antler_store::Store,
        owner: &str,
        run_id: &str,
        thread_id: &str,
    ) {
        if self.is_empty() {
            return;
        }
        let entries = self.entries(owner, run_id, thread_id);
        for attempt in 1..=3u64 {
            match store.usage.record(&entries).await {
                Ok(()) => {
                    self.unsaved.clear();
                    return;
                }
                Err(e) if attempt == 3 => {
                    tracing::error!(run.id = run_id, error = %e, "the run's model usage could not be saved");
                }
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(100 * attempt)).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_and_written_prompt_tokens_are_priced_apart() {
        let pricing = Pricing {
            input: 3.0,
            cached_input: Some(0.3),
            output: 15.0,
        };
        let usage = Usage {
            prompt_tokens: 1_000_000,
            cached_tokens: 500_000,
            cache_write_tokens: 100_000,
            completion_tokens: 200_000,
            ..Usage::default()
        };
        // 400k fresh · 3 + 500k cached · 0.3 + 100k written · 3.75 + 200k out · 15, per 1M.
        let expected = 1.2 + 0.15 + 0.375 + 3.0;
        assert!((cost_usd(&usage, &pricing) - expected).abs() < 1e-9);
        let no_cache_price = Pricing {
            cached_input: None,
            ..pricing
        };
        assert!((cost_usd(&usage, &no_cache_price) - (1.2 + 1.5 + 0.375 + 3.0)).abs() < 1e-9);
    }

    #[test]
    fn usage_metadata_round_trips_and_omits_zero_details() {
        let usage = Usage {
            prompt_tokens: 10,
            completion_tokens: 5,
            total_tokens: 15,
            cached_tokens: 4,
            reasoning_tokens: 2,
            ..Usage::default()
        };
        let m = usage_metadata(&usage);
        assert_eq!(from_metadata(&m), usage);
        let json = serde_json::to_value(m).unwrap();
        assert_eq!(
            json["input_token_details"],
            serde_json::json!({"cache_read": 4})
        );
        assert_eq!(
            json["output_token_details"],
            serde_json::json!({"reasoning": 2})
        );
        let plain = serde_json::to_value(usage_metadata(&Usage::default())).unwrap();
        assert!(plain.get("input_token_details").is_none());
    }
}
