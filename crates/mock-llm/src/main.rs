//! `antler-mock-llm --script FILE --bind ADDR`; the first stdout line is `listening on …`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// A scripted OpenAI-compatible model server.
#[derive(Debug, Parser)]
#[command(name = "antler-mock-llm", version, about)]
struct Args {
    /// The YAML script.
    #[arg(long)]
    script: PathBuf,
    /// Listen address (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    bind: String,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .try_init();
    let script = match std::fs::read_to_string(&args.script)
        .map_err(anyhow::Error::from)
        .and_then(|t| antler_mock_llm::Script::parse(&t))
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("antler-mock-llm: {}: {e:#}", args.script.display());
            return ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind(&args.bind).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("antler-mock-llm: cannot listen on {}: {e}", args.bind);
            return ExitCode::FAILURE;
        }
    };
    if let Ok(addr) = listener.local_addr() {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "listening on http://{addr}");
        let _ = out.flush();
    }
    match antler_mock_llm::serve(script, listener).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("antler-mock-llm: {e}");
            ExitCode::FAILURE
        }
    }
}
