//! A run's model choice: the model and thinking it asks for (`context.model_name`,
//! `thinking`/`thinking_enabled`, `reasoning_effort`), or the one remembered on the thread
//! (`metadata.model_choice`) when it names none of them.

use antler_protocol::runs::RunOptions;
use serde_json::{Map, Value, json};

use super::active::RunError;
use crate::model::{Effort, Thinking};

/// The thread metadata key holding the last choice.
pub const MODEL_CHOICE_KEY: &str = "model_choice";

/// What a run chose, or inherited.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelChoice {
    /// The model the run asked for.
    pub model_name: Option<String>,
    /// The model remembered on the thread (used when the run names none and it is still
    /// configured).
    pub remembered_model: Option<String>,
    /// Thinking asked for (the remembered one when the run names neither thinking nor an
    /// effort).
    pub thinking: Thinking,
    /// Whether the run named any of the choice's fields (then it is remembered).
    pub named: bool,
}

/// The effort a value names; another value is refused naming the allowed ones.
fn effort(value: &Value) -> Result<Effort, RunError> {
    value.as_str().and_then(Effort::parse).ok_or_else(|| {
        let shown: String = value.to_string().chars().take(40).collect();
        RunError::Invalid(format!(
            "reasoning_effort must be one of low, medium, high (got {shown})"
        ))
    })
}

impl ModelChoice {
    /// The run's choice from its options, field by field over the thread's remembered one.
    pub fn of(options: &RunOptions, remembered: Option<&Value>) -> Result<Self, RunError> {
        let effort = options.reasoning_effort.as_ref().map(effort).transpose()?;
        let asks_thinking = options.thinking.is_some() || effort.is_some();
        // Remembered by this server, but read leniently: a value it cannot use is no choice.
        let r = remembered.filter(|r| r.is_object()).unwrap_or(&Value::Null);
        let thinking = match asks_thinking {
            true => Thinking::choose(options.thinking, effort),
            false => Thinking::choose(
                r["thinking"].as_bool(),
                r["reasoning_effort"].as_str().and_then(Effort::parse),
            ),
        };
        Ok(ModelChoice {
            model_name: options.model_name.clone(),
            remembered_model: r["model_name"].as_str().map(str::to_owned),
            thinking,
            named: options.model_name.is_some() || asks_thinking,
        })
    }

    /// The metadata patch remembering this choice for the model `model_name` the run uses.
    pub fn remember(&self, model_name: Option<&str>) -> Map<String, Value> {
        let mut patch = Map::new();
        patch.insert(
            MODEL_CHOICE_KEY.into(),
            json!({
                "model_name": model_name,
                "thinking": self.thinking.is_on(),
                "reasoning_effort": self.thinking.effort().map(Effort::as_str),
            }),
        );
        patch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(v: Value) -> RunOptions {
        serde_json::from_value(v).unwrap_or_default()
    }

    #[test]
    fn effort_implies_thinking_and_thinking_off_wins() {
        let c = ModelChoice::of(&options(json!({"reasoning_effort": "high"})), None);
        assert_eq!(
            c.map(|c| c.thinking).ok(),
            Some(Thinking::Effort(Effort::High))
        );
        let c = ModelChoice::of(
            &options(json!({"thinking_enabled": false, "reasoning_effort": "low"})),
            None,
        );
        assert_eq!(c.map(|c| c.thinking).ok(), Some(Thinking::Off));
        let bad = ModelChoice::of(&options(json!({"reasoning_effort": "max"})), None);
        assert!(matches!(bad, Err(RunError::Invalid(m)) if m.contains("low, medium, high")));
    }

    #[test]
    fn a_run_naming_nothing_inherits_the_remembered_choice() {
        let remembered =
            json!({"model_name": "smart", "thinking": true, "reasoning_effort": "medium"});
        let c = ModelChoice::of(&RunOptions::default(), Some(&remembered)).ok();
        assert_eq!(
            c,
            Some(ModelChoice {
                model_name: None,
                remembered_model: Some("smart".into()),
                thinking: Thinking::Effort(Effort::Medium),
                named: false
            })
        );
        let own = ModelChoice::of(&options(json!({"thinking": true})), Some(&remembered))
            .ok()
            .unwrap_or_default();
        assert_eq!(own.thinking, Thinking::On);
        assert!(own.named);
        let model_only =
            ModelChoice::of(&options(json!({"model_name": "fast"})), Some(&remembered))
                .ok()
                .unwrap_or_default();
        assert_eq!(model_only.thinking, Thinking::Effort(Effort::Medium));
    }
}
