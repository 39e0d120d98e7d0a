//! `antler user create|reset-password|list` and `antler token create`: account work for
//! operators, next to (or without) a running server. Passwords and tokens go to the
//! terminal or a 0600 file, never to the log.

use std::io::{BufRead, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use antler_app::{AccountError, App};
use antler_protocol::auth::Role;

use super::{fail, setup};

/// Starts the app for an account command.
fn start(config: Option<&Path>) -> Result<(tokio::runtime::Runtime, App), ExitCode> {
    let (config, rt) = setup(config)?;
    match rt.block_on(App::start_one_shot(config)) {
        Ok(app) => Ok((rt, app)),
        Err(e) => Err(fail("cannot open the database", &e)),
    }
}

fn refused(e: &AccountError) -> ExitCode {
    eprintln!("antler: {e}");
    ExitCode::FAILURE
}

/// Shows a secret: into `file` (created 0600, never overwritten) or on stdout.
fn reveal(label: &str, secret: &str, file: Option<&Path>) -> ExitCode {
    let Some(file) = file else {
        println!("{label}: {secret}");
        return ExitCode::SUCCESS;
    };
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(file)
        .and_then(|mut f| writeln!(f, "{secret}"));
    match written {
        Ok(()) => {
            println!("{label} written to {} (mode 0600)", file.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("antler: cannot write {}: {e}", file.display());
            ExitCode::FAILURE
        }
    }
}

/// `antler user create [--admin] EMAIL`.
pub(crate) fn create(
    config: Option<&Path>,
    email: &str,
    admin: bool,
    password_stdin: bool,
    password_file: Option<PathBuf>,
) -> ExitCode {
    let (password, generated) = if password_stdin {
        let mut line = String::new();
        if let Err(e) = std::io::stdin().lock().read_line(&mut line) {
            eprintln!("antler: cannot read the password from stdin: {e}");
            return ExitCode::FAILURE;
        }
        (line.trim_end_matches(['\r', '\n']).to_string(), false)
    } else {
        (antler_app::accounts::generated_password(), true)
    };
    let (rt, app) = match start(config) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let role = if admin { Role::Admin } else { Role::User };
    match rt.block_on(app.accounts.create_user(email, &password, role)) {
        Ok(user) => {
            println!("created {} {} ({})", role, user.email, user.user_id);
            if generated {
                reveal("password", &password, password_file.as_deref())
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => refused(&e),
    }
}

/// `antler user reset-password EMAIL`.
pub(crate) fn reset_password(
    config: Option<&Path>,
    email: &str,
    password_file: Option<PathBuf>,
) -> ExitCode {
    let (rt, app) = match start(config) {
        Ok(v) => v,
        Err(code) => return code,
    };
    match rt.block_on(app.accounts.reset_password(email)) {
        Ok(password) => {
            println!("the password of {email} was reset; its sessions ended");
            reveal("new password", &password, password_file.as_deref())
        }
        Err(e) => refused(&e),
    }
}

/// `antler user list`.
pub(crate) fn list(config: Option<&Path>) -> ExitCode {
    let (rt, app) = match start(config) {
        Ok(v) => v,
        Err(code) => return code,
    };
    match rt.block_on(app.accounts.users()) {
        Ok(users) => {
            println!("{:<36} {:<6} {:<9} EMAIL", "ID", "ROLE", "STATE");
            for u in users {
                println!(
                    "{:<36} {:<6} {:<9} {}",
                    u.id,
                    u.role,
                    if u.disabled { "disabled" } else { "active" },
                    u.email
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => refused(&e),
    }
}

/// `antler token create --user EMAIL --name NAME`.
pub(crate) fn create_token(
    config: Option<&Path>,
    email: &str,
    name: &str,
    expires_in_days: Option<u32>,
    file: Option<PathBuf>,
) -> ExitCode {
    let (rt, app) = match start(config) {
        Ok(v) => v,
        Err(code) => return code,
    };
    match rt.block_on(app.accounts.create_token_for(email, name, expires_in_days)) {
        Ok(token) => match file {
            Some(file) => reveal("token", &token.token, Some(&file)),
            // Alone on stdout, so scripts can capture it.
            None => {
                println!("{}", token.token);
                ExitCode::SUCCESS
            }
        },
        Err(e) => refused(&e),
    }
}
