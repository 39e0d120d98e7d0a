//! What one call asks of the model beyond the conversation: an output limit and thinking.

use serde::{Deserialize, Serialize};

/// How hard a model thinks before answering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    /// A little.
    Low,
    /// Some.
    Medium,
    /// A lot.
    High,
}

impl Effort {
    /// The wire name (`low`, `medium`, `high`).
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
        }
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<Effort> {
        match s {
            "low" => Some(Effort::Low),
            "medium" => Some(Effort::Medium),
            "high" => Some(Effort::High),
            _ => None,
        }
    }
}

/// Thinking asked of a call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Thinking {
    /// The model answers straight away (or as it always does).
    #[default]
    Off,
    /// Thinking on, at the provider's usual effort.
    On,
    /// Thinking on, at this effort.
    Effort(Effort),
}

impl Thinking {
    /// From a run's choice: effort implies thinking on, `thinking: false` wins over effort.
    pub fn choose(thinking: Option<bool>, effort: Option<Effort>) -> Thinking {
        match (thinking, effort) {
            (Some(false), _) => Thinking::Off,
            (_, Some(e)) => Thinking::Effort(e),
            (Some(true), None) => Thinking::On,
            (None, None) => Thinking::Off,
        }
    }

    /// Whether thinking is on.
    pub fn is_on(self) -> bool {
        self != Thinking::Off
    }

    /// The effort, when one was asked.
    pub fn effort(self) -> Option<Effort> {
        match self {
            Thinking::Effort(e) => Some(e),
            _ => None,
        }
    }
}

/// Options of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// Output limit (the model's configured one when `None`).
    pub max_tokens: Option<u32>,
    /// Thinking (ignored by a model without `supports_thinking`).
    pub thinking: Thinking,
}

impl CallOptions {
    /// Just an output limit, no thinking (titles, summaries, memory).
    pub fn limit(max_tokens: Option<u32>) -> CallOptions {
        CallOptions {
            max_tokens,
            thinking: Thinking::Off,
        }
    }
}
