//! `antler skill add|update`: importing skills from Git repositories.

use std::path::Path;
use std::process::ExitCode;

use antler_app::{ImportOptions, UpdateOutcome};
use antler_protocol::skills::ImportResult;
use antler_skills::import::parse_source;

use super::skill::{EXIT_REFUSED, print_installed, refused, start};

pub(crate) fn add(config: Option<&Path>, source: &str, options: ImportOptions) -> ExitCode {
    let source = match parse_source(source, true) {
        Ok(s) => s,
        Err(e) => {
            println!("error: {e}");
            return ExitCode::from(EXIT_REFUSED);
        }
    };
    let (rt, app) = match start(config) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let preview = options.skills.is_empty() && !options.all;
    match rt.block_on(app.skills.import(source, options)) {
        Ok(result) => {
            print_found(&result);
            for installed in &result.installed {
                print_installed(installed);
            }
            if preview {
                println!(
                    "nothing installed: choose skills with --skill NAME (repeatable) or --all"
                );
            } else if result.installed.is_empty() {
                println!("nothing installed: no installable skill was found");
            }
            ExitCode::SUCCESS
        }
        Err(e) => refused(e),
    }
}

/// The repository's skills, one line each, with what would refuse them.
fn print_found(result: &ImportResult) {
    let at = result.commit.as_deref().map(|c| &c[..c.len().min(12)]);
    println!(
        "{}{}: {} skill(s)",
        result.url,
        at.map(|c| format!(" @ {c}")).unwrap_or_default(),
        result.skills.len()
    );
    for s in &result.skills {
        let mut notes = Vec::new();
        if !s.installable {
            notes.push(format!("refused ({} problem(s))", s.findings.len()));
        }
        if s.exists {
            notes.push("installed already".to_string());
        }
        let path = if s.path.is_empty() { "." } else { &s.path };
        println!("  {:<32} {:<40} {}", s.name, path, notes.join(", "));
        for f in &s.findings {
            println!("      [{}] {}: {}", f.rule, f.path, f.message);
        }
    }
    if !result.hidden_skipped.is_empty() {
        println!(
            "not searched (pass --include-hidden): {}",
            result.hidden_skipped.join(", ")
        );
    }
    if result.truncated {
        println!("warning: the search stopped at its limit; some skills may be missing");
    }
}

pub(crate) fn update(config: Option<&Path>, names: &[String]) -> ExitCode {
    let (rt, app) = match start(config) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let reports = match rt.block_on(app.skills.update_imported(names)) {
        Ok(r) => r,
        Err(e) => return refused(e),
    };
    if reports.is_empty() {
        println!("no skill was imported from Git; nothing to update");
        return ExitCode::SUCCESS;
    }
    let short = |c: &Option<String>| {
        c.as_deref()
            .map_or("(none)".to_string(), |c| c[..c.len().min(12)].to_string())
    };
    let mut failed = false;
    for r in &reports {
        match &r.outcome {
            UpdateOutcome::Updated { from, to } => {
                println!("updated: {} {} -> {}", r.name, short(from), short(to));
            }
            UpdateOutcome::UpToDate => println!("up to date: {}", r.name),
            UpdateOutcome::Failed(why) => {
                failed = true;
                println!("error: {}: {why}", r.name);
            }
        }
    }
    if failed {
        ExitCode::from(EXIT_REFUSED)
    } else {
        ExitCode::SUCCESS
    }
}
