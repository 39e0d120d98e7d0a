//! `antler serve`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use antler_app::App;

use super::{EXIT_CONFIG, fail, init_server_logging, load_config, runtime};

pub(crate) fn run(config: Option<PathBuf>, bind: Option<String>) -> ExitCode {
    let mut config = match load_config(config.as_deref()) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if let Some(bind) = bind {
        config.bind = bind;
        if let Err(e) = config.validate() {
            eprintln!("antler: {e} (from --bind)");
            return ExitCode::from(EXIT_CONFIG);
        }
    }
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    // Inside the runtime: traces are sent from it. Kept until the server stopped, then
    // flushed.
    let traces = {
        let _inside = rt.enter();
        init_server_logging(&config)
    };
    let served = rt.block_on(serve(config));
    drop(traces);
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail("server failed", &e),
    }
}

async fn serve(config: antler_app::Config) -> anyhow::Result<()> {
    // Handlers go in before anything can be started, so an early SIGTERM still shuts down
    // cleanly (sandbox containers removed) instead of killing the process.
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let interrupt = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    let bind = config.bind.clone();
    let app = App::start(config).await?;
    admin_from_environment(&app).await?;
    let listener = tokio::net::TcpListener::bind(&bind)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {bind}: {e}"))?;
    let addr = listener.local_addr()?;
    // Scripts read this first line to find the port.
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening on http://{addr}")?;
    stdout.flush()?;
    tracing::info!(%addr, "server started");
    if let Some(token) = app.accounts.prepare_setup().await? {
        // On stdout only (the log may be shipped elsewhere); a closed stdout is not fatal.
        let _ = writeln!(
            stdout,
            "no admin yet: create the first one at http://{addr}/setup?token={token}"
        );
        let _ = stdout.flush();
    }
    antler_gateway::serve(app, listener, shutdown_signal(term, interrupt)).await?;
    tracing::info!("server stopped");
    Ok(())
}

/// `ANTLER_ADMIN_EMAIL` + `ANTLER_ADMIN_PASSWORD` create that admin (unattended
/// deployments); an account with the email is left as it is.
async fn admin_from_environment(app: &App) -> anyhow::Result<()> {
    let email = std::env::var("ANTLER_ADMIN_EMAIL").unwrap_or_default();
    let password = std::env::var("ANTLER_ADMIN_PASSWORD").unwrap_or_default();
    match (email.is_empty(), password.is_empty()) {
        (true, true) => Ok(()),
        (false, false) => {
            if app.accounts.ensure_admin(&email, &password).await? {
                tracing::info!("admin account created from ANTLER_ADMIN_EMAIL");
            }
            Ok(())
        }
        _ => anyhow::bail!("set both ANTLER_ADMIN_EMAIL and ANTLER_ADMIN_PASSWORD, or neither"),
    }
}

async fn shutdown_signal(
    mut term: tokio::signal::unix::Signal,
    mut interrupt: tokio::signal::unix::Signal,
) {
    tokio::select! {
        _ = term.recv() => {},
        _ = interrupt.recv() => {},
    }
    tracing::info!("shutdown requested");
}
