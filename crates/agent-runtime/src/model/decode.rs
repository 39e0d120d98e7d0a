//! Turning a stream of chunks into deltas and, at the end, complete assistant turns.
//! Tool calls are assembled from fragments by `index`; choices are kept apart by `index`.

use std::collections::BTreeMap;

use super::wire::{ChatChunk, Usage};

/// Something the model added to choice 0, as it arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delta {
    /// Text.
    Content(String),
    /// Reasoning text.
    Reasoning(String),
    /// Refusal text.
    Refusal(String),
    /// A tool-call fragment.
    ToolCall {
        /// Which call.
        index: u32,
        /// Call id (first fragment).
        id: Option<String>,
        /// Tool name (first fragment).
        name: Option<String>,
        /// Argument text fragment.
        arguments: String,
    },
}

/// A tool call assembled from its fragments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssembledCall {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// The complete arguments text (JSON, unless the model erred).
    pub arguments: String,
}

/// One complete assistant answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Turn {
    /// Text.
    pub content: String,
    /// Reasoning.
    pub reasoning: String,
    /// Refusal.
    pub refusal: String,
    /// Tool calls in index order.
    pub tool_calls: Vec<AssembledCall>,
    /// Why the model stopped (`stop`, `tool_calls`, `length`, …).
    pub finish_reason: String,
    /// Anthropic's signed thinking blocks, unchanged and in order (sent back on the next
    /// request).
    pub thinking_blocks: Vec<serde_json::Value>,
}

#[derive(Debug, Default)]
struct Choice {
    turn: Turn,
    calls: BTreeMap<u32, AssembledCall>,
    finished: bool,
}

/// Accumulates a stream.
#[derive(Debug, Default)]
pub struct Accumulator {
    choices: BTreeMap<u32, Choice>,
    /// Token counts, when the stream reported them.
    pub usage: Option<Usage>,
    /// The model that answered.
    pub model: Option<String>,
}

/// The stream ended without every choice finishing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the model stream closed before the answer was complete (no finish_reason)")]
pub struct Incomplete;

impl Accumulator {
    /// Adds a chunk; returns what it added to choice 0.
    pub fn push(&mut self, chunk: ChatChunk) -> Vec<Delta> {
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        if chunk.model.is_some() {
            self.model = chunk.model;
        }
        let mut out = Vec::new();
        for c in chunk.choices {
            let first = c.index == 0;
            let choice = self.choices.entry(c.index).or_default();
            if let Some(text) = c.delta.content.filter(|t| !t.is_empty()) {
                choice.turn.content.push_str(&text);
                if first {
                    out.push(Delta::Content(text));
                }
            }
            if let Some(text) = c.delta.reasoning_content.filter(|t| !t.is_empty()) {
                choice.turn.reasoning.push_str(&text);
                if first {
                    out.push(Delta::Reasoning(text));
                }
            }
            if let Some(text) = c.delta.refusal.filter(|t| !t.is_empty()) {
                choice.turn.refusal.push_str(&text);
                if first {
                    out.push(Delta::Refusal(text));
                }
            }
            for call in c.delta.tool_calls.unwrap_or_default() {
                let slot = choice.calls.entry(call.index).or_default();
                if let Some(id) = &call.id {
                    slot.id.clone_from(id);
                }
                let (name, arguments) = call
                    .function
                    .map(|f| (f.name, f.arguments.unwrap_or_default()))
                    .unwrap_or_default();
                if let Some(n) = &name {
                    slot.name.push_str(n);
                }
                slot.arguments.push_str(&arguments);
                if first {
                    out.push(Delta::ToolCall {
                        index: call.index,
                        id: call.id,
                        name,
                        arguments,
                    });
                }
            }
            if let Some(reason) = c.finish_reason {
                choice.turn.finish_reason = reason;
                choice.finished = true;
            }
        }
        out
    }

    /// Every choice's turn, in index order; fails unless each finished.
    pub fn finish(self) -> Result<Vec<Turn>, Incomplete> {
        if self.choices.is_empty() || self.choices.values().any(|c| !c.finished) {
            return Err(Incomplete);
        }
        Ok(self
            .choices
            .into_values()
            .map(|mut c| {
                c.turn.tool_calls = c.calls.into_values().collect();
                c.turn
            })
            .collect())
    }
}
