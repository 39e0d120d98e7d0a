//! The `antler` command.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod alloc;
mod commands;
mod telemetry;

/// Antler: a skills-driven agent backend.
#[derive(Debug, Parser)]
#[command(name = "antler", version, about)]
struct Cli {
    /// Log at the configured level (`log.level`); one-shot commands log only warnings
    /// otherwise, so their own output stays readable.
    #[arg(short, long, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Start the HTTP server.
    Serve {
        /// Configuration file (default: config/antler.yaml when present).
        #[arg(long, short)]
        config: Option<PathBuf>,
        /// Listen address, overriding the configuration (port 0 picks a free port).
        #[arg(long)]
        bind: Option<String>,
    },
    /// Apply pending database migrations and exit.
    Migrate {
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
    /// Work with skills.
    Skill {
        #[command(subcommand)]
        command: SkillCommand,
    },
    /// Manage accounts.
    User {
        #[command(subcommand)]
        command: UserCommand,
    },
    /// Manage personal access tokens.
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
    /// Operate the sandboxes.
    Sandbox {
        #[command(subcommand)]
        command: SandboxCommand,
    },
}

#[derive(Debug, Subcommand)]
enum SandboxCommand {
    /// Run a command in a thread's sandbox (its running container, or a temporary one).
    Exec {
        /// The thread.
        #[arg(long)]
        thread: String,
        /// Kill the command after this many seconds.
        #[arg(long, default_value_t = 600)]
        timeout: u64,
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
        /// The command (after `--`).
        #[arg(last = true, required = true)]
        command: Vec<String>,
    },
    /// List sandbox containers on the Docker engine.
    Ls {
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
    /// Which sandbox image is in use and what it holds (programs, Python and Node packages,
    /// fonts), checked in a throwaway container.
    Doctor {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Examine this image instead of the configured one.
        #[arg(long)]
        image: Option<String>,
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
    /// Remove the sandbox containers and unused slots of servers that are not running.
    Prune {
        /// Remove every Antler sandbox container on the engine, of any instance.
        #[arg(long)]
        all: bool,
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum UserCommand {
    /// Create an account; without --password-stdin a password is generated and shown once.
    Create {
        /// The account's email address.
        email: String,
        /// Make it an admin.
        #[arg(long)]
        admin: bool,
        /// Read the password from the first line of stdin.
        #[arg(long)]
        password_stdin: bool,
        /// Write the generated password to this new file (mode 0600) instead of the terminal.
        #[arg(long)]
        password_file: Option<PathBuf>,
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
    /// Set a new random password (shown once) and end the account's sessions.
    ResetPassword {
        /// The account's email address.
        email: String,
        /// Write the new password to this new file (mode 0600) instead of the terminal.
        #[arg(long)]
        password_file: Option<PathBuf>,
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
    /// List the accounts.
    List {
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum TokenCommand {
    /// Create a personal access token for an account and print it (once).
    Create {
        /// The account's email address.
        #[arg(long)]
        user: String,
        /// A name to recognise the token by.
        #[arg(long)]
        name: String,
        /// Days until it stops working (default: never).
        #[arg(long)]
        expires_in_days: Option<u32>,
        /// Write the token to this new file (mode 0600) instead of stdout.
        #[arg(long)]
        file: Option<PathBuf>,
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum SkillCommand {
    /// List every skill with its state.
    List {
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
        /// Print the same JSON as GET /api/skills.
        #[arg(long)]
        json: bool,
    },
    /// Check a skill directory against the Agent Skills specification.
    /// As the reference validator (`skills-ref`) judges; Antler's extension fields
    /// (`disable-model-invocation`, `user-invocable`, `argument-hint`) are accepted and named.
    Validate {
        /// The skill directory (holding SKILL.md).
        dir: PathBuf,
        /// Accept exactly the specification's fields (extension fields are errors too).
        #[arg(long)]
        strict: bool,
    },
    /// Install a .skill archive as a custom skill (same checks as the API).
    Install {
        /// The archive.
        file: PathBuf,
        /// Replace an installed custom skill of the same name.
        #[arg(long)]
        overwrite: bool,
        /// Install it disabled.
        #[arg(long)]
        disable: bool,
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
    /// Import skills from a Git repository (or a local directory) as custom skills. Without
    /// --skill or --all it only lists what the repository holds.
    Add {
        /// https://, ssh://, git://, file:// URL, user@host:path, or a local path.
        source: String,
        /// Branch, tag or commit (the default branch when absent).
        #[arg(long = "ref", value_name = "REF")]
        git_ref: Option<String>,
        /// A skill to install, by name or folder path (repeatable).
        #[arg(long = "skill", value_name = "NAME")]
        skills: Vec<String>,
        /// Install every installable skill found.
        #[arg(long, conflicts_with = "skills")]
        all: bool,
        /// Also search dot-folders such as .curated/.
        #[arg(long)]
        include_hidden: bool,
        /// Replace installed custom skills of the same names.
        #[arg(long)]
        overwrite: bool,
        /// Install them disabled.
        #[arg(long)]
        disable: bool,
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
    /// Bring skills imported from Git up to the newest commit of the ref they came from.
    Update {
        /// The skills to update (default: every imported skill).
        names: Vec<String>,
        /// Configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    alloc::return_free_memory_at_once();
    let cli = Cli::parse();
    commands::set_verbose(cli.verbose);
    match cli.command {
        Command::Serve { config, bind } => commands::serve::run(config, bind),
        Command::Migrate { config } => commands::migrate::run(config),
        Command::Sandbox { command } => match command {
            SandboxCommand::Exec {
                thread,
                timeout,
                config,
                command,
            } => commands::sandbox::exec(config.as_deref(), &thread, timeout, &command),
            SandboxCommand::Ls { config } => commands::sandbox::ls(config.as_deref()),
            SandboxCommand::Doctor {
                json,
                image,
                config,
            } => commands::sandbox_doctor::doctor(config.as_deref(), image.as_deref(), json),
            SandboxCommand::Prune { all, config } => {
                commands::sandbox::prune(config.as_deref(), all)
            }
        },
        Command::User { command } => match command {
            UserCommand::Create {
                email,
                admin,
                password_stdin,
                password_file,
                config,
            } => commands::user::create(
                config.as_deref(),
                &email,
                admin,
                password_stdin,
                password_file,
            ),
            UserCommand::ResetPassword {
                email,
                password_file,
                config,
            } => commands::user::reset_password(config.as_deref(), &email, password_file),
            UserCommand::List { config } => commands::user::list(config.as_deref()),
        },
        Command::Token { command } => match command {
            TokenCommand::Create {
                user,
                name,
                expires_in_days,
                file,
                config,
            } => {
                commands::user::create_token(config.as_deref(), &user, &name, expires_in_days, file)
            }
        },
        Command::Skill { command } => match command {
            SkillCommand::List { config, json } => commands::skill::list(config, json),
            SkillCommand::Validate { dir, strict } => commands::skill::validate(&dir, strict),
            SkillCommand::Install {
                file,
                overwrite,
                disable,
                config,
            } => commands::skill::install(config.as_deref(), &file, overwrite, !disable),
            SkillCommand::Add {
                source,
                git_ref,
                skills,
                all,
                include_hidden,
                overwrite,
                disable,
                config,
            } => commands::skill_import::add(
                config.as_deref(),
                &source,
                antler_app::ImportOptions {
                    git_ref,
                    skills,
                    all,
                    include_hidden,
                    overwrite,
                    enable: !disable,
                },
            ),
            SkillCommand::Update { names, config } => {
                commands::skill_import::update(config.as_deref(), &names)
            }
        },
    }
}
