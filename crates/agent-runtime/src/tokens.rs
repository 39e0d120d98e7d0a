//! Counting tokens the way the model will: tiktoken's encodings for the OpenAI model
//! families, an estimate (about 4 characters a token) for models it does not know.

use antler_protocol::messages::Message;
use tiktoken_rs::CoreBPE;
use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};

/// Counts tokens with one encoding.
#[derive(Clone, Copy)]
pub struct TokenCounter {
    bpe: Option<&'static CoreBPE>,
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCounter")
            .field("exact", &self.bpe.is_some())
            .finish()
    }
}

impl TokenCounter {
    /// The counter for `encoding` (`auto`: by `model`'s name; `o200k_base`, `cl100k_base`;
    /// anything else: the estimate).
    pub fn new(encoding: &str, model: &str) -> Self {
        let bpe = match encoding {
            "o200k_base" => Some(tiktoken_rs::o200k_base_singleton()),
            "cl100k_base" => Some(tiktoken_rs::cl100k_base_singleton()),
            "auto" => match get_tokenizer(model) {
                Some(Tokenizer::O200kBase | Tokenizer::O200kHarmony) => {
                    Some(tiktoken_rs::o200k_base_singleton())
                }
                Some(Tokenizer::Cl100kBase) => Some(tiktoken_rs::cl100k_base_singleton()),
                _ => None,
            },
            _ => None,
        };
        TokenCounter { bpe }
    }

    /// Whether counts are exact (a known encoding) rather than estimated.
    pub fn is_exact(&self) -> bool {
        self.bpe.is_some()
    }

    /// Tokens of `text`.
    pub fn count(&self, text: &str) -> usize {
        match self.bpe {
            Some(bpe) => bpe.encode_ordinary(text).len(),
            None => text.chars().count().div_ceil(4),
        }
    }
}

/// What of a message the model reads as text: its content, and a call's name and arguments.
pub fn message_text(m: &Message) -> String {
    match m {
        Message::Ai(a) => {
            let mut text = a.content.clone();
            for call in &a.tool_calls {
                text.push('\n');
                text.push_str(&call.name);
                text.push_str(&call.args.to_string());
            }
            text
        }
        Message::Human(h) => h.content.clone(),
        Message::Tool(t) => t.content.clone(),
        Message::System(s) => s.content.clone(),
    }
}

/// A rough count without encoding, to skip exact counting of inputs far below a threshold.
pub fn estimate(system: &str, messages: &[Message]) -> usize {
    (system.len()
        + messages
            .iter()
            .map(|m| message_text(m).len())
            .sum::<usize>())
        / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_models_are_counted_exactly_and_others_estimated() {
        let gpt = TokenCounter::new("auto", "gpt-4o-mini");
        assert!(gpt.is_exact());
        assert_eq!(gpt.count("hello world"), 2);
        assert!(TokenCounter::new("cl100k_base", "anything").is_exact());
        let other = TokenCounter::new("auto", "llama-3-8b");
        assert!(!other.is_exact());
        assert_eq!(other.count("abcdefgh"), 2);
        assert!(!TokenCounter::new("estimate", "gpt-4o").is_exact());
    }
}
