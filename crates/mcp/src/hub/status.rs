//! What the hub says of its servers: state, last error, offered tools, counters.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{McpHub, Server};
use crate::names::model_names;
use crate::slot::lock;
use crate::types::{ServerState, ServerStatus, ToolInfo, ToolView};

impl McpHub {
    /// Every server's status (it starts none).
    pub fn status(&self) -> Vec<ServerStatus> {
        let servers: Vec<Arc<Server>> = lock(&self.servers).values().cloned().collect();
        let mut taken = HashSet::new();
        servers
            .iter()
            .map(|s| {
                let (state, last_error, tools, threads) = status_of(s);
                // A sandboxed server's lists are each person's: only the shared one's shown.
                let warnings = if s.config.enabled && !s.config.sandboxed {
                    s.shared.warnings()
                } else {
                    Vec::new()
                };
                let names: Vec<&str> = tools.iter().map(|t: &ToolInfo| t.name.as_str()).collect();
                let model = model_names(&s.name, &names, &taken);
                taken.extend(model.iter().cloned());
                ServerStatus {
                    name: s.name.clone(),
                    transport: s.config.transport,
                    description: s.config.description.clone(),
                    state,
                    last_error,
                    sandboxed: s.config.sandboxed,
                    running_in_threads: threads,
                    tools: tools
                        .iter()
                        .zip(model)
                        .map(|(t, model_name)| ToolView {
                            name: t.name.clone(),
                            model_name,
                            description: t.description.clone(),
                            input_schema: t.input_schema.clone(),
                        })
                        .collect(),
                    warnings,
                    calls: s.calls.load(Ordering::Relaxed),
                    failed_calls: s.failed_calls.load(Ordering::Relaxed),
                }
            })
            .collect()
    }
}

/// A server's state, last error, offered tools and (sandboxed) the threads it runs in. A
/// `sandboxed` server is connected while it runs in some thread; its tools are each
/// person's own (listed in their sandbox), so none are shown here.
fn status_of(s: &Server) -> (ServerState, Option<String>, Vec<ToolInfo>, usize) {
    if !s.config.enabled {
        return (ServerState::Disabled, None, Vec::new(), 0);
    }
    if !s.config.sandboxed {
        let (state, error) = s.shared.view();
        let tools = s
            .shared
            .tools()
            .unwrap_or_default()
            .into_iter()
            .filter(|t| s.config.offers(&t.name))
            .collect();
        return (state, error, tools, 0);
    }
    let views: Vec<(ServerState, Option<String>)> =
        lock(&s.threads).values().map(|slot| slot.view()).collect();
    let running = views
        .iter()
        .filter(|(state, _)| *state == ServerState::Connected)
        .count();
    if running > 0 {
        return (ServerState::Connected, None, Vec::new(), running);
    }
    // A thread's error may come from that person's sandbox: it is not shown to everyone.
    if views.iter().any(|(state, _)| *state == ServerState::Failed) {
        let why = "it failed in a conversation's sandbox (the server log says why)";
        return (ServerState::Failed, Some(why.into()), Vec::new(), 0);
    }
    (ServerState::Idle, None, Vec::new(), 0)
}
