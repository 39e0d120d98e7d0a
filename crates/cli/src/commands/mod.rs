//! One module per subcommand, plus what they share.

use std::path::Path;
use std::process::ExitCode;

use antler_app::Config;
use antler_app::config::LogFormat;
use tracing_subscriber::util::SubscriberInitExt as _;

pub(crate) mod migrate;
pub(crate) mod sandbox;
pub(crate) mod sandbox_doctor;
pub(crate) mod serve;
pub(crate) mod skill;
pub(crate) mod skill_import;
pub(crate) mod user;

/// Exit code for configuration errors.
pub(crate) const EXIT_CONFIG: u8 = 2;

/// Loads the configuration or explains why not (exit code 2).
pub(crate) fn load_config(file: Option<&Path>) -> Result<Config, ExitCode> {
    Config::load(file).map_err(|e| {
        eprintln!("antler: {e}");
        ExitCode::from(EXIT_CONFIG)
    })
}

/// `-v` was given.
static VERBOSE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Records the global `-v` flag.
pub(crate) fn set_verbose(verbose: bool) {
    VERBOSE.store(verbose, std::sync::atomic::Ordering::Relaxed);
}

/// Logs go to stderr so stdout stays machine-readable. A server logs at `log.level`; a
/// one-shot command only warns unless `-v` asks for more (its stderr is the command's own).
pub(crate) fn init_logging(config: &Config, one_shot: bool) {
    let _ = subscriber(config, one_shot, None).try_init();
}

/// [`init_logging`] for the server, plus its traces when `telemetry.otlp` (or the
/// `OTEL_EXPORTER_OTLP_*` variables) name a collector. Call it inside the server's runtime;
/// keep the answer until the server has stopped (dropping it flushes the traces).
pub(crate) fn init_server_logging(config: &Config) -> Option<crate::telemetry::Traces> {
    use tracing_subscriber::Layer as _;
    match crate::telemetry::layer(&config.telemetry) {
        Ok(Some((layer, traces))) => {
            let only_runs = tracing_subscriber::filter::Targets::new()
                .with_target(
                    antler_agent_runtime::telemetry::TARGET,
                    tracing::Level::INFO,
                )
                .with_target("antler::http", tracing::Level::INFO);
            let otel: BoxedLayer = Box::new(layer.with_filter(only_runs));
            let _ = subscriber(config, false, Some(otel)).try_init();
            tracing::info!("traces are exported over OTLP/HTTP");
            Some(traces)
        }
        Ok(None) => {
            init_logging(config, false);
            None
        }
        Err(e) => {
            init_logging(config, false);
            tracing::warn!(error = %e, "traces could not be set up; the server runs without them");
            None
        }
    }
}

type BoxedLayer = Box<dyn tracing_subscriber::Layer<tracing_subscriber::Registry> + Send + Sync>;

/// The log output (without the spans of traces, which would prefix every line), plus
/// `extra`.
fn subscriber(
    config: &Config,
    one_shot: bool,
    extra: Option<BoxedLayer>,
) -> impl tracing::Subscriber + Send + Sync + 'static {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::filter::FilterExt as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    let configured = if one_shot && !VERBOSE.load(std::sync::atomic::Ordering::Relaxed) {
        "warn"
    } else {
        config.log.level.as_str()
    };
    // notify reports routine inotify bookkeeping at info level; keep it out unless asked for.
    let level = if configured.contains("notify") {
        configured.to_string()
    } else {
        format!("{configured},notify=warn")
    };
    let filter = tracing_subscriber::EnvFilter::try_new(&level)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let not_traces = tracing_subscriber::filter::filter_fn(|meta| {
        !meta.is_span()
            || !matches!(
                meta.target(),
                antler_agent_runtime::telemetry::TARGET | "antler::http"
            )
    });
    let fmt = tracing_subscriber::fmt::layer().with_writer(|| RedactedStderr(Vec::new()));
    let fmt: BoxedLayer = match config.log.format {
        LogFormat::Json => Box::new(fmt.json().with_filter(filter.and(not_traces))),
        LogFormat::Text => Box::new(fmt.with_filter(filter.and(not_traces))),
    };
    let mut layers = vec![fmt];
    layers.extend(extra);
    tracing_subscriber::registry().with(layers)
}

/// One log event's bytes, written to stderr when the event is complete with every secret
/// value replaced by its name (a library's debug output may quote a request that holds one).
struct RedactedStderr(Vec<u8>);

impl std::io::Write for RedactedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for RedactedStderr {
    fn drop(&mut self) {
        if self.0.is_empty() {
            return;
        }
        let line = antler_app::secrets::redact_log_line(&self.0);
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), &line);
    }
}

/// A multi-threaded runtime, or an explanation.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("antler: cannot start the async runtime: {e}");
            ExitCode::FAILURE
        })
}

/// The start of every one-shot command: the configuration, logging, and a runtime to block on.
pub(crate) fn setup(file: Option<&Path>) -> Result<(Config, tokio::runtime::Runtime), ExitCode> {
    let config = load_config(file)?;
    init_logging(&config, true);
    Ok((config, runtime()?))
}

/// Prints an error chain and returns failure.
pub(crate) fn fail(context: &str, error: &anyhow::Error) -> ExitCode {
    eprintln!("antler: {context}: {error:#}");
    ExitCode::FAILURE
}
