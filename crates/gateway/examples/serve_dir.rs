//! Benchmark floor: tower-http's `ServeDir` serving one directory, for comparison with the
//! artifact endpoint in `make bench`. Usage: `serve_dir <dir>`; prints `listening on …`.

use std::io::Write;

use axum::Router;
use tower_http::services::ServeDir;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: serve_dir <dir>"))?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening on http://{}", listener.local_addr()?)?;
    stdout.flush()?;
    axum::serve(listener, Router::new().fallback_service(ServeDir::new(dir))).await?;
    Ok(())
}
