//! `antler skill list|validate|install`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use antler_app::{App, SkillOpError};
use antler_protocol::skills::InstallResult;
use antler_skills::install::InstallError;
use antler_skills::validate::{Mode, inspect};
use antler_skills::{SKILL_FILE, Severity};

use super::{fail, load_config, runtime};

/// Exit code when an archive is refused.
pub(crate) const EXIT_REFUSED: u8 = 1;

/// Starts the app for a one-shot command (skills and database only).
pub(crate) fn start(
    config: Option<&Path>,
) -> Result<(tokio::runtime::Runtime, Arc<App>), ExitCode> {
    let config = load_config(config)?;
    let rt = runtime()?;
    match rt.block_on(App::start_one_shot(config)) {
        Ok(app) => Ok((rt, Arc::new(app))),
        Err(e) => Err(fail("cannot load skills", &e)),
    }
}

pub(crate) fn list(config: Option<PathBuf>, json: bool) -> ExitCode {
    let (_rt, app) = match start(config.as_deref()) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let snapshot = app.skills.snapshot();
    if json {
        println!("{}", String::from_utf8_lossy(snapshot.json()));
        return ExitCode::SUCCESS;
    }
    println!("{:<8} {:<32} {:<8} NOTES", "CATEGORY", "NAME", "ENABLED");
    for s in &snapshot.list.skills {
        let mut notes = Vec::new();
        if s.shadowed {
            notes.push("shadowed by custom".to_string());
        }
        if !s.warning_details.is_empty() {
            let codes: Vec<&str> = s.warning_details.iter().map(|w| w.code.as_str()).collect();
            notes.push(format!("warnings: {}", codes.join(", ")));
        }
        println!(
            "{:<8} {:<32} {:<8} {}",
            s.category.as_str(),
            s.name,
            if s.enabled { "yes" } else { "no" },
            notes.join(", ")
        );
    }
    for e in &snapshot.list.errors {
        println!("error    {}: {}", e.path, e.message);
    }
    ExitCode::SUCCESS
}

pub(crate) fn validate(dir: &Path, strict: bool) -> ExitCode {
    let file = dir.join(SKILL_FILE);
    let text = match std::fs::read(&file) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(_) => {
                println!("error: [encoding] {} is not UTF-8", file.display());
                return ExitCode::FAILURE;
            }
        },
        Err(e) => {
            println!("error: [skill-file] cannot read {}: {e}", file.display());
            return ExitCode::FAILURE;
        }
    };
    // As the reference validator: the folder is named by the path given, so a symlinked
    // `skills/docx` is `docx` whatever its target is called; only a path without a last
    // name (`.`, `..`) is resolved to find one.
    let dir_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(|| {
            dir.canonicalize()
                .ok()
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        });
    let mode = if strict { Mode::Spec } else { Mode::Reference };
    let inspection = inspect(&text, dir_name.as_deref(), mode);
    for f in &inspection.findings {
        let level = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        println!("{level}: [{}] {}", f.rule, f.message);
    }
    if inspection.is_valid() {
        let name = inspection
            .parsed
            .and_then(|p| p.frontmatter.name)
            .unwrap_or_default();
        println!("ok: {name} is a valid skill");
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

pub(crate) fn install(
    config: Option<&Path>,
    file: &Path,
    overwrite: bool,
    enable: bool,
) -> ExitCode {
    let archive = match std::fs::File::open(file) {
        Ok(f) => f,
        Err(e) => {
            println!("error: cannot open {}: {e}", file.display());
            return ExitCode::from(EXIT_REFUSED);
        }
    };
    let (rt, app) = match start(config) {
        Ok(v) => v,
        Err(code) => return code,
    };
    match rt.block_on(app.skills.install(archive, overwrite, enable)) {
        Ok(result) => {
            print_installed(&result);
            ExitCode::SUCCESS
        }
        Err(e) => refused(e),
    }
}

/// `installed: NAME (enabled) at LOCATION`, after the install's warnings.
pub(crate) fn print_installed(result: &InstallResult) {
    for w in &result.warnings {
        println!("warning: {w}");
    }
    let verb = if result.replaced {
        "replaced"
    } else {
        "installed"
    };
    let state = if result.skill.enabled {
        "enabled"
    } else {
        "disabled"
    };
    println!(
        "{verb}: {} ({state}) at {}",
        result.skill.name, result.skill.location
    );
}

/// Prints why a skill operation failed, with every finding of a refused archive.
pub(crate) fn refused(error: SkillOpError) -> ExitCode {
    match error {
        SkillOpError::Install(InstallError::Refused { findings, .. }) => {
            println!(
                "error: the archive was refused ({} problem(s))",
                findings.len()
            );
            for f in findings {
                println!("  [{}] {}: {}", f.rule, f.path, f.message);
            }
            ExitCode::from(EXIT_REFUSED)
        }
        SkillOpError::Install(InstallError::NotAZip(why)) => {
            println!("error: the file is not a zip archive");
            println!("  [not-a-zip] : {why}");
            ExitCode::from(EXIT_REFUSED)
        }
        SkillOpError::Install(InstallError::Exists(name)) => {
            println!(
                "error: a custom skill named '{name}' is already installed; pass --overwrite to replace it"
            );
            ExitCode::from(EXIT_REFUSED)
        }
        e => {
            println!("error: {e}");
            ExitCode::from(EXIT_REFUSED)
        }
    }
}
