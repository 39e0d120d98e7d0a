//! Title generation after the first exchange.

use antler_protocol::messages::Message;
use antler_protocol::stream::{CustomEvent, StreamEvent};
use async_trait::async_trait;
use serde_json::json;

use super::{Hook, Services};
use crate::agent::AgentState;
use crate::prompt::TITLE_SYSTEM;

/// After the first exchange, a short model call names the thread; the first user message
/// (shortened) is the fallback.
pub struct TitleGeneration;

/// Longest title kept.
const TITLE_CHARS: usize = 60;

fn shorten(text: &str, chars: usize) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() <= chars {
        return line.to_string();
    }
    let cut: String = line.chars().take(chars.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

#[async_trait]
impl Hook for TitleGeneration {
    fn name(&self) -> &'static str {
        "title_generation"
    }

    async fn after_run(&self, state: &mut AgentState, svc: &Services<'_>) {
        let Some(first_user) = untitled(state, svc) else {
            return;
        };
        let reply = state.values.messages.iter().rev().find_map(|m| match m {
            Message::Ai(a) if !a.content.is_empty() => Some(a.content.clone()),
            _ => None,
        });
        let mut title = None;
        if let Some(model) = svc.model {
            let prompt = format!(
                "User: {}\nAssistant: {}",
                shorten(&first_user, 500),
                reply
                    .as_deref()
                    .map(|r| shorten(r, 500))
                    .unwrap_or_default()
            );
            let request = vec![
                json!({"role": "system", "content": TITLE_SYSTEM}),
                json!({"role": "user", "content": prompt}),
            ];
            let call = model.complete(request, Some(32), svc.cancel);
            match tokio::time::timeout(std::time::Duration::from_secs(20), call).await {
                Ok(Ok(done)) => {
                    state.count_extra_call(model.config(), done.usage.as_ref());
                    let clean = shorten(
                        done.turn.content.trim().trim_matches(['"', '\'', '.', ' ']),
                        TITLE_CHARS,
                    );
                    if !clean.is_empty() {
                        title = Some(clean);
                    }
                }
                Ok(Err(e)) => {
                    tracing::info!(run.id = svc.run_id, error = %e, "title call failed; using the first message")
                }
                Err(_) => tracing::info!(
                    run.id = svc.run_id,
                    "title call timed out; using the first message"
                ),
            }
        }
        set_title(
            state,
            svc,
            title.unwrap_or_else(|| shorten(&first_user, 50)),
        );
    }

    /// A failed or stopped first run still names the conversation, after its first message.
    fn after_stop(&self, state: &mut AgentState, svc: &Services<'_>) {
        if let Some(first_user) = untitled(state, svc) {
            set_title(state, svc, shorten(&first_user, 50));
        }
    }
}

/// The first user message of a thread that should get a title and has none.
fn untitled(state: &AgentState, svc: &Services<'_>) -> Option<String> {
    if !svc.cfg.generate_titles || state.values.title.is_some() {
        return None;
    }
    state.values.messages.iter().find_map(|m| match m {
        Message::Human(h) if !h.content.trim().is_empty() => Some(h.content.clone()),
        _ => None,
    })
}

fn set_title(state: &mut AgentState, svc: &Services<'_>, title: String) {
    svc.log.emit(&StreamEvent::Custom(&CustomEvent::Title {
        title: title.clone(),
    }));
    state.values.title = Some(title);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_one_short_line() {
        assert_eq!(shorten("  \nHello world\nsecond", 50), "Hello world");
        let long = "word ".repeat(30);
        let s = shorten(&long, 20);
        assert!(s.chars().count() <= 20 && s.ends_with('…'), "{s}");
    }
}
