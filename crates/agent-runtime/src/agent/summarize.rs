//! Long conversations: when what the model would read passes the configured threshold (in
//! tokens, counted with the model's tokenizer, or in messages), the earliest messages are
//! summarized by the model into `values.summary`, which it reads in their place. The messages
//! stay in the history; the cut never falls between a tool call and its result.

use antler_protocol::messages::Message;
use antler_protocol::prompt_text::{Lines, escape};
use antler_protocol::threads::Summary;
use serde_json::json;

use super::{AgentRun, AgentState};
use crate::checkpoints::Source;
use crate::tokens::{TokenCounter, estimate, message_text};

/// Built-in instructions for the summarizing model.
const PROMPT: &str = "You compress the earlier part of a conversation between a person and an AI agent \
that works with tools in a sandbox, so the agent can go on without it. Write a concise summary \
that keeps everything needed to continue: the person's goals, requests and preferences, decisions \
made, facts learned, files created or changed (with their paths), commands run and their outcomes, \
and open questions or next steps. Keep names, numbers and paths exact. Answer with the summary only.";

/// Characters of one message given to the summarizer (long tool output is cut).
const MAX_MESSAGE_CHARS: usize = 4000;

/// Where the messages the model reads begin: after the summary's last message.
pub(super) fn unsummarized(state: &AgentState) -> usize {
    let Some(s) = &state.values.summary else {
        return 0;
    };
    let messages = &state.values.messages;
    // Where it says it ends, unless the history changed since (ids may repeat: clients
    // choose them).
    if s.summarized > 0
        && messages
            .get(s.summarized - 1)
            .is_some_and(|m| m.id() == s.up_to)
    {
        return s.summarized;
    }
    // Never starting at a tool result, which must follow its call.
    messages
        .iter()
        .position(|m| m.id() == s.up_to)
        .map_or(0, |i| back_to_call(messages, i + 1))
}

/// The system prompt with the summary, when there is one.
pub(super) fn with_summary(system: &str, state: &AgentState) -> String {
    match &state.values.summary {
        // A summary whose last message is gone (the history was edited) no longer applies.
        Some(s) if unsummarized(state) > 0 => format!(
            "{system}\n\n<conversation_summary>\nThe earlier part of this conversation, summarized:\n{}\n</conversation_summary>",
            escape(&s.content, Lines::Many)
        ),
        _ => system.to_string(),
    }
}

/// Where to cut `messages` keeping the latest `keep`: moved earlier until the kept part
/// starts with something other than a tool result (which must follow its call).
fn cut(messages: &[Message], keep: usize) -> usize {
    back_to_call(messages, messages.len().saturating_sub(keep))
}

/// `at`, moved earlier while it points at a tool result.
fn back_to_call(messages: &[Message], mut at: usize) -> usize {
    while at > 0 && matches!(messages.get(at), Some(Message::Tool(_))) {
        at -= 1;
    }
    at
}

fn transcript(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        let who = match m {
            Message::Human(_) => "Person",
            Message::Ai(_) => "Agent",
            Message::Tool(t) => {
                out.push_str(&format!(
                    "Tool result ({}): ",
                    t.name.as_deref().unwrap_or("tool")
                ));
                ""
            }
            Message::System(_) => "System",
        };
        if !who.is_empty() {
            out.push_str(who);
            out.push_str(": ");
        }
        let text = message_text(m);
        let count = text.chars().count();
        if count > MAX_MESSAGE_CHARS {
            let head: String = text.chars().take(MAX_MESSAGE_CHARS).collect();
            out.push_str(&format!(
                "{head} […{} more characters]",
                count - MAX_MESSAGE_CHARS
            ));
        } else {
            out.push_str(&text);
        }
        out.push('\n');
    }
    out
}

impl AgentRun<'_> {
    /// Summarizes the earliest messages when the model's input passed the threshold. A
    /// summarizer that fails leaves the conversation as it was (the run goes on).
    pub(super) async fn summarize_if_needed(&self, state: &mut AgentState, system: &str) {
        let cfg = &self.cfg.summarization;
        let Some(model) = self.summary_model.or(self.model) else {
            return;
        };
        if !cfg.enabled || (cfg.trigger_tokens == 0 && cfg.trigger_messages == 0) {
            return;
        }
        let start = unsummarized(state);
        let visible = &state.values.messages[start..];
        let system = with_summary(system, state);
        let by_count = cfg.trigger_messages > 0 && visible.len() > cfg.trigger_messages;
        // Exact counting only near the threshold: far below it the estimate is enough.
        // The input measured is the run's model's, whatever model summarizes.
        let counted = self.model.unwrap_or(model);
        let counter = TokenCounter::new(&cfg.encoding, &counted.config().model);
        let near = cfg.trigger_tokens > 0 && estimate(&system, visible) * 2 >= cfg.trigger_tokens;
        // Each message is encoded once per run: later steps count only the new ones.
        let sizes: Vec<usize> = if near {
            let counts = &mut state.token_counts;
            visible
                .iter()
                .map(|m| {
                    let text = message_text(m);
                    *counts
                        .entry(format!("{}:{}", m.id(), text.len()))
                        .or_insert_with(|| 4 + counter.count(&text))
                })
                .collect()
        } else {
            Vec::new()
        };
        let by_tokens =
            near && counter.count(&system) + sizes.iter().sum::<usize>() > cfg.trigger_tokens;
        if !(by_count || by_tokens) {
            return;
        }
        let mut at = cut(visible, cfg.keep_messages);
        if by_tokens {
            // The kept messages alone may pass the threshold (long tool output): fold more,
            // down to half of it, so the next step does not summarize again at once.
            let mut kept: usize = sizes[at..].iter().sum();
            while kept > cfg.trigger_tokens / 2 && at + 1 < visible.len() {
                kept -= sizes[at];
                at += 1;
            }
            at = back_to_call(visible, at);
        }
        if at == 0 {
            return;
        }
        let folded = &visible[..at];
        let previous = state
            .values
            .summary
            .as_ref()
            .map(|s| format!("Summary of what came before:\n{}\n\n", s.content))
            .unwrap_or_default();
        let request = vec![
            json!({"role": "system", "content": cfg.prompt.as_deref().filter(|p| !p.trim().is_empty()).unwrap_or(PROMPT)}),
            json!({"role": "user", "content": format!("{previous}Conversation to summarize:\n{}", transcript(folded))}),
        ];
        let done = match model.complete(request, Some(2000), self.cancel).await {
            Ok(done) if !done.turn.content.trim().is_empty() => done,
            Ok(_) => {
                tracing::warn!(
                    run.id = self.run_id,
                    "the summary came back empty; not summarizing"
                );
                return;
            }
            Err(e) => {
                tracing::warn!(run.id = self.run_id, error = %e, "the conversation could not be summarized");
                return;
            }
        };
        // Field by field: `folded` still borrows the messages.
        let call = state.ledger.add(model.config(), done.usage.as_ref());
        state.extra.add(&call);
        let Some(last) = folded.last() else { return };
        let summary = Summary {
            content: done.turn.content.trim().to_string(),
            up_to: last.id().to_string(),
            summarized: start + at,
        };
        tracing::info!(
            run.id = self.run_id,
            summarized = summary.summarized,
            "earlier messages summarized"
        );
        let writes = json!({"summarize": {"summary": &summary}});
        state.values.summary = Some(summary);
        if self.save(state, Source::Loop, writes).await.is_ok() {
            self.emit_values(state);
        }
    }
}

#[cfg(test)]
mod tests {
    use antler_protocol::messages::{AiMessage, HumanMessage, ToolCall, ToolMessage};

    use super::*;

    fn human(id: &str) -> Message {
        Message::Human(HumanMessage {
            id: id.into(),
            content: "hi".into(),
            ..Default::default()
        })
    }

    fn call(id: &str) -> Message {
        Message::Ai(AiMessage {
            id: id.into(),
            tool_calls: vec![ToolCall {
                id: format!("c-{id}"),
                name: "bash".into(),
                args: json!({"command": "ls"}),
                kind: "tool_call".into(),
            }],
            ..Default::default()
        })
    }

    fn result(id: &str) -> Message {
        Message::Tool(ToolMessage {
            id: id.into(),
            tool_call_id: format!("c-{id}"),
            content: "out".into(),
            ..Default::default()
        })
    }

    #[test]
    fn the_cut_never_separates_a_call_from_its_results() {
        let messages = vec![human("1"), call("2"), result("3"), result("4"), human("5")];
        // Keeping 3 would start at a tool result: the cut moves to the call before it.
        assert_eq!(cut(&messages, 3), 1);
        assert_eq!(cut(&messages, 1), 4);
        assert_eq!(cut(&messages, 10), 0);
    }
}
