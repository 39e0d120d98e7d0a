//! `antler sandbox exec|ls|prune`: operator access to the sandboxes.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use antler_app::Config;
use antler_sandbox::api::{ExecRequest, SandboxProvider};
use antler_sandbox::config::ProviderKind;
use antler_sandbox::docker::{self, DockerProvider, admin};
use antler_sandbox::local::LocalProvider;
use antler_sandbox::{instance, storage};

use super::{fail, setup};

/// Exit code of a command that ran past its timeout (as `timeout(1)`).
const EXIT_TIMED_OUT: u8 = 124;

pub(crate) fn exec(
    config: Option<&Path>,
    thread: &str,
    timeout_secs: u64,
    command: &[String],
) -> ExitCode {
    let (config, rt) = match setup(config) {
        Ok(setup) => setup,
        Err(code) => return code,
    };
    if let Err(e) = antler_protocol::paths::check_thread_id(thread) {
        eprintln!("antler: {e}");
        return ExitCode::from(2);
    }
    let Some(line) = command_line(command) else {
        eprintln!("antler: the command holds a NUL byte");
        return ExitCode::from(2);
    };
    let request = ExecRequest::new(line, Duration::from_secs(timeout_secs));
    match rt.block_on(run(&config, thread, &request)) {
        Ok(out) => {
            let _ = std::io::stdout().write_all(out.stdout.as_bytes());
            let _ = std::io::stderr().write_all(out.stderr.as_bytes());
            if out.timed_out {
                eprintln!("antler: the command ran past {timeout_secs}s and was killed");
                return ExitCode::from(EXIT_TIMED_OUT);
            }
            ExitCode::from(out.exit_code.map(|c| (c & 0xff) as u8).unwrap_or(1))
        }
        Err(e) => fail("sandbox exec failed", &e),
    }
}

/// One argument is a shell command line (`-- 'ls | wc -l'`); several are quoted one by one
/// (`-- python3 -c 'print(1)'`) so they arrive as given.
fn command_line(args: &[String]) -> Option<String> {
    match args {
        [line] => Some(line.clone()),
        _ => shlex::try_join(args.iter().map(String::as_str)).ok(),
    }
}

/// Runs in the thread's running container when a server has one; otherwise in a
/// temporary one that is removed afterwards.
async fn run(
    config: &Config,
    thread: &str,
    request: &ExecRequest,
) -> anyhow::Result<antler_sandbox::ExecOutput> {
    let cfg = &config.sandbox;
    let instances = instance::list(&config.data_dir)?;
    // Act for the server of this data dir (the configured one, else a running one): its view
    // of the enabled skills, and its label on a temporary container, so that a restart of
    // that server removes the container if this command dies.
    let known = cfg
        .instance_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .or_else(|| {
            let (id, _) = instances
                .iter()
                .find(|(_, live)| *live)
                .or(instances.first())?;
            Some(id.clone())
        });
    // A data dir no server has used yet: hold a new id for as long as this command runs.
    let (owner, _claim) = match known {
        Some(id) => (id, None),
        None => {
            let claim = instance::claim(None, &config.data_dir)?;
            (claim.id().to_string(), Some(claim))
        }
    };
    let view = config.data_dir.join("skills-view").join(&owner);
    std::fs::create_dir_all(&view)?;
    let use_docker = match cfg.provider {
        ProviderKind::Local => false,
        ProviderKind::Docker => true,
        ProviderKind::Auto => match docker::connect(cfg) {
            Ok(client) => docker::check(&client, &cfg.image).await.is_ok(),
            Err(_) => false,
        },
    };
    if !use_docker {
        let provider = LocalProvider::new(
            &config.data_dir,
            &view,
            cfg.allow_host_bash,
            cfg.max_output_bytes,
        );
        let sandbox = provider.acquire(thread).await?;
        return Ok(sandbox.exec(request.clone()).await?);
    }
    let client = docker::connect(cfg)?;
    let live = instances.iter().filter(|(_, live)| *live).map(|(id, _)| id);
    for id in std::iter::once(&owner).chain(live) {
        if let Some(container) = admin::find_thread_container(&client, id, thread).await? {
            return Ok(admin::exec_in(&client, &container, request, cfg.max_output_bytes).await?);
        }
    }
    let mut temporary = cfg.clone();
    temporary.docker.warm_pool = 0;
    let provider =
        DockerProvider::start_with(temporary, &config.data_dir, &view, &owner, false, None).await?;
    let result = match provider.acquire(thread).await {
        Ok(sandbox) => sandbox
            .exec(request.clone())
            .await
            .map_err(anyhow::Error::from),
        Err(e) => Err(e.into()),
    };
    provider.shutdown().await;
    result
}

pub(crate) fn ls(config: Option<&Path>) -> ExitCode {
    let (config, rt) = match setup(config) {
        Ok(setup) => setup,
        Err(code) => return code,
    };
    let rows = rt.block_on(async {
        let client = docker::connect(&config.sandbox)?;
        anyhow::Ok(admin::list(&client, None).await?)
    });
    match rows {
        Ok(rows) => {
            println!(
                "{:<12}  {:<34}  {:<24}  {:<9}  STATUS",
                "CONTAINER", "INSTANCE", "THREAD", "STATE"
            );
            for r in rows {
                let thread = if r.thread.is_empty() {
                    "(warm)"
                } else {
                    r.thread.as_str()
                };
                println!(
                    "{:<12}  {:<34}  {:<24}  {:<9}  {}",
                    &r.id[..r.id.len().min(12)],
                    r.instance,
                    thread,
                    r.state,
                    r.status
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail("cannot list sandboxes", &e),
    }
}

pub(crate) fn prune(config: Option<&Path>, all: bool) -> ExitCode {
    let (config, rt) = match setup(config) {
        Ok(setup) => setup,
        Err(code) => return code,
    };
    let result = rt.block_on(async {
        let client = docker::connect(&config.sandbox)?;
        let stopped: Vec<String> = instance::list(&config.data_dir)?
            .into_iter()
            .filter_map(|(id, live)| (!live).then_some(id))
            .collect();
        let ids: Vec<String> = admin::list(&client, None)
            .await?
            .into_iter()
            .filter(|r| all || stopped.contains(&r.instance))
            .map(|r| r.id)
            .collect();
        let removed = admin::remove(&client, &ids).await;
        let mut slots = 0;
        for id in &stopped {
            slots += storage::collect_garbage(&config.data_dir, id)?;
        }
        anyhow::Ok((removed, slots))
    });
    match result {
        Ok((removed, slots)) => {
            println!("removed {removed} container(s) and {slots} unused slot(s)");
            ExitCode::SUCCESS
        }
        Err(e) => fail("prune failed", &e),
    }
}
