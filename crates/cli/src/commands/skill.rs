//! `antler skill list|validate`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use antler_gateway::App;
use antler_skills::validate::{Mode, inspect};
use antler_skills::{SKILL_FILE, Severity};

use super::{fail, load_config, runtime};

pub(crate) fn list(config: Option<PathBuf>, json: bool) -> ExitCode {
    let mut config = match load_config(config.as_deref()) {
        Ok(c) => c,
        Err(code) => return code,
    };
    config.skills.watch = false;
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let app = match rt.block_on(App::start(config)) {
        Ok(app) => app,
        Err(e) => return fail("cannot load skills", &e),
    };
    let snapshot = app.skills.snapshot();
    if json {
        println!("{}", String::from_utf8_lossy(&snapshot.json));
        return ExitCode::SUCCESS;
    }
    println!("{:<8} {:<32} {:<8} NOTES", "CATEGORY", "NAME", "ENABLED");
    for s in &snapshot.list.skills {
        let mut notes = Vec::new();
        if s.shadowed {
            notes.push("shadowed by custom".to_string());
        }
        if !s.warnings.is_empty() {
            notes.push(format!("{} warning(s)", s.warnings.len()));
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

pub(crate) fn validate(dir: &Path) -> ExitCode {
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
    let dir_name = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()));
    let inspection = inspect(&text, dir_name.as_deref(), Mode::Strict);
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
