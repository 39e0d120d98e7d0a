//! `antler-mock-llm`: a model server driven by a YAML script, speaking OpenAI Chat
//! Completions (`/v1/chat/completions`) and Anthropic Messages (`/v1/messages`, see
//! [`anthropic`]) from the same script.
//!
//! A scenario is chosen by a substring of the last user message (first match wins; an empty
//! match is a fallback); the k-th model call after that message gets the scenario's k-th turn,
//! counted from the assistant messages in the request, so the server keeps no conversation
//! state and serves concurrent conversations safely. Streams are shaped like OpenAI's recorded
//! streams: a role chunk, content and `index`-keyed tool-call fragments, a finish chunk, a
//! usage chunk with empty choices, then `[DONE]`.

pub mod anthropic;
pub mod cache;
pub mod script;
pub mod server;

pub use script::Script;
pub use server::router;

use axum::serve::{Listener, ListenerExt};
use tokio::net::{TcpListener, TcpStream};

/// Serves `script` on `listener` until the process ends.
pub async fn serve(script: Script, listener: TcpListener) -> std::io::Result<()> {
    axum::serve(accepting(listener), router(script)).await
}

/// The listener as served: Nagle's algorithm off on every connection, so a streamed chunk
/// goes out at once instead of waiting for the client to acknowledge the previous one (a
/// delayed ACK holds it ~40 ms on a reused connection).
fn accepting(listener: TcpListener) -> impl Listener<Io = TcpStream, Addr = std::net::SocketAddr> {
    listener.tap_io(|stream: &mut TcpStream| {
        let _ = stream.set_nodelay(true);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accepted_connections_have_nagles_algorithm_off() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::spawn(TcpStream::connect(addr));
        let (server_side, _) = accepting(listener).accept().await;
        assert!(server_side.nodelay().unwrap());
        drop(client.await.unwrap().unwrap());
    }
}
