//! `antler-mock-llm`: an OpenAI-compatible Chat Completions server driven by a YAML script.
//!
//! A scenario is chosen by a substring of the last user message (first match wins; an empty
//! match is a fallback); the k-th model call after that message gets the scenario's k-th turn,
//! counted from the assistant messages in the request, so the server keeps no conversation
//! state and serves concurrent conversations safely. Streams are shaped like OpenAI's recorded
//! streams: a role chunk, content and `index`-keyed tool-call fragments, a finish chunk, a
//! usage chunk with empty choices, then `[DONE]`.

pub mod script;
pub mod server;

pub use script::Script;
pub use server::router;

/// Serves `script` on `listener` until the process ends.
pub async fn serve(script: Script, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    axum::serve(listener, router(script)).await
}
