//! `antler sandbox doctor`: which image sandboxes start from and what it holds.

use std::path::Path;
use std::process::ExitCode;

use antler_sandbox::config::{FALLBACK_IMAGE, ProviderKind};
use antler_sandbox::docker::{self, doctor};

use super::{fail, setup};

pub(crate) fn doctor(config: Option<&Path>, image: Option<&str>, json: bool) -> ExitCode {
    let (config, rt) = match setup(config) {
        Ok(setup) => setup,
        Err(code) => return code,
    };
    let cfg = &config.sandbox;
    if cfg.provider == ProviderKind::Local && image.is_none() {
        println!(
            "sandbox provider: local (no image; commands {})",
            if cfg.allow_host_bash {
                "run on the host"
            } else {
                "are disabled"
            }
        );
        return ExitCode::SUCCESS;
    }
    let result = rt.block_on(async {
        let client = docker::connect(cfg)?;
        let wanted = image.unwrap_or(&cfg.image);
        match doctor::examine(&client, wanted).await {
            // As the server does: a default image never built gives way to slim.
            Err(missing) if image.is_none() && cfg.image_is_default() => {
                let report = doctor::examine(&client, FALLBACK_IMAGE)
                    .await
                    .map_err(|_| missing.clone())?;
                anyhow::Ok((report, Some(missing.to_string())))
            }
            other => Ok((other?, None)),
        }
    });
    let (report, fallback) = match result {
        Ok(found) => found,
        Err(e) => return fail("sandbox doctor", &e),
    };
    if json {
        match serde_json::to_string_pretty(&report) {
            Ok(text) => println!("{text}"),
            Err(e) => return fail("sandbox doctor", &e.into()),
        }
        return ExitCode::SUCCESS;
    }
    print_report(&report, fallback.as_deref());
    ExitCode::SUCCESS
}

fn print_report(report: &doctor::Report, fallback: Option<&str>) {
    let image = &report.image;
    if let Some(why) = fallback {
        println!("note: {why}; the server uses {FALLBACK_IMAGE}");
    }
    println!(
        "image: {} ({}, {:.2} GB, id {})",
        image.name,
        image.variant.as_deref().unwrap_or("not an Antler image"),
        image.size_bytes as f64 / 1e9,
        image
            .id
            .trim_start_matches("sha256:")
            .get(..12)
            .unwrap_or(&image.id)
    );
    if let Some(created) = &image.created {
        println!("built: {created}");
    }
    if let Some(contents) = &image.contents {
        println!("holds (its label): {contents}");
    }
    for kind in ["program", "python", "node", "font"] {
        let of_kind: Vec<_> = report.checks.iter().filter(|c| c.kind == kind).collect();
        let present: Vec<String> = of_kind
            .iter()
            .filter(|c| c.present)
            .map(|c| match &c.detail {
                Some(detail) => format!("{} ({detail})", c.name),
                None => c.name.clone(),
            })
            .collect();
        let absent: Vec<&str> = of_kind
            .iter()
            .filter(|c| !c.present)
            .map(|c| c.name.as_str())
            .collect();
        println!("{kind:<8} {}/{}", present.len(), of_kind.len());
        if !present.is_empty() {
            println!("  has:     {}", present.join(", "));
        }
        if !absent.is_empty() {
            println!("  missing: {}", absent.join(", "));
        }
    }
    match &report.manifest {
        Some(m) => {
            println!(
                "manifest: {} of {} items present",
                m.total - m.missing.len(),
                m.total
            );
            if !m.missing.is_empty() {
                println!("  missing: {}", m.missing.join(", "));
            }
        }
        None => println!("manifest: none (not the full image)"),
    }
}
