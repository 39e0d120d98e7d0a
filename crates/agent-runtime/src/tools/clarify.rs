//! `ask_clarification`: one question to the person; the run stops until they answer.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{Effect, ToolContext, ToolError, ToolOutput, TypedTool, args};

/// Asks the person one question and ends the run.
pub(crate) struct AskClarification;

/// `ask_clarification` arguments. The type is required for the model (it makes it say what
/// kind of question this is) but read leniently.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("required" = ["question", "clarification_type"]))]
pub(crate) struct ClarifyArgs {
    question: String,
    // Any other value is taken as given; absent means `missing_info`.
    #[serde(default, deserialize_with = "args::opt_text")]
    #[schemars(extend("enum" = ["missing_info", "ambiguous_requirement", "approach_choice", "risk_confirmation", "suggestion"]))]
    clarification_type: Option<String>,
    #[serde(default, deserialize_with = "args::opt_text")]
    context: Option<String>,
    #[serde(default)]
    options: Vec<String>,
}

#[async_trait]
impl TypedTool for AskClarification {
    type Args = ClarifyArgs;
    const NAME: &'static str = "ask_clarification";
    const DESCRIPTION: &'static str = "Ask the person one question and stop until they answer. Use only when the request \
         cannot be done well without the answer.";

    async fn run(&self, a: ClarifyArgs, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        Ok(ask(a))
    }
}

fn ask(a: ClarifyArgs) -> ToolOutput {
    let mut text = String::new();
    if let Some(c) = &a.context {
        text.push_str(c);
        text.push_str("\n\n");
    }
    text.push_str(&a.question);
    for (i, o) in a.options.iter().enumerate() {
        text.push_str(&format!("\n{}. {o}", i + 1));
    }
    ToolOutput {
        content: text,
        is_error: false,
        artifact: Some(json!({
            "question": a.question,
            "clarification_type": a.clarification_type.as_deref().unwrap_or("missing_info"),
            "context": a.context,
            "options": a.options,
        })),
        effect: Effect::Clarify,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clarification_lists_options() {
        let args: ClarifyArgs = serde_json::from_value(json!({"question": "Which format?", "clarification_type": "approach_choice", "options": ["CSV", "JSON"]})).unwrap();
        let out = ask(args);
        assert_eq!(out.content, "Which format?\n1. CSV\n2. JSON");
        assert_eq!(out.effect, Effect::Clarify);
        assert_eq!(
            out.artifact.unwrap()["clarification_type"],
            "approach_choice"
        );
        assert!(serde_json::from_value::<ClarifyArgs>(json!({})).is_err());
    }
}
