//! The `antler` command line: configuration errors, migrate, skill list and validate.

use std::path::Path;

use crate::common::{Env, antler};

fn run(cmd: &mut std::process::Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_invalid_config_file_exits_2_naming_the_key() {
    let env = Env::new();
    let file = env.root.path().join("bad.yaml");
    std::fs::write(&file, "database:\n  max_connections: many\n").unwrap();
    let (code, _, stderr) = run(env
        .command(&["serve", "--config", file.to_str().unwrap()])
        .env_remove("ANTLER_LOG_LEVEL"));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("database.max_connections"), "{stderr}");
}

#[test]
fn an_invalid_environment_override_exits_2_naming_key_and_variable() {
    let env = Env::new();
    let (code, _, stderr) = run(env.command(&["serve"]).env("ANTLER_BIND", "not-an-address"));
    assert_eq!(code, 2);
    assert!(stderr.contains("bind"), "{stderr}");
    let (code, _, stderr) = run(env
        .command(&["serve"])
        .env("ANTLER_SKILLS_WATCH", "perhaps"));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("skills.watch") && stderr.contains("ANTLER_SKILLS_WATCH"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&mut env.command(&["serve", "--bind", "nonsense"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("bind"), "{stderr}");
}

#[test]
fn an_unknown_key_in_the_file_is_refused_by_name() {
    let env = Env::new();
    let file = env.root.path().join("typo.yaml");
    std::fs::write(&file, "skills:\n  wach: false\n").unwrap();
    let (code, _, stderr) = run(&mut env.command(&["serve", "--config", file.to_str().unwrap()]));
    assert_eq!(code, 2);
    assert!(stderr.contains("wach"), "{stderr}");
}

#[test]
fn the_default_config_file_is_used_when_present() {
    let env = Env::new();
    std::fs::create_dir_all(env.root.path().join("config")).unwrap();
    std::fs::write(
        env.root.path().join("config/antler.yaml"),
        "log:\n  format: jsonish\n",
    )
    .unwrap();
    let (code, _, stderr) = run(&mut env.command(&["migrate"]));
    assert_eq!(code, 2, "config/antler.yaml was read: {stderr}");
    assert!(stderr.contains("log.format"), "{stderr}");
}

#[test]
fn migrate_creates_the_database_in_the_data_dir() {
    let env = Env::new();
    let (code, stdout, stderr) = run(&mut env.command(&["migrate"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("up to date"));
    assert!(env.data_dir().join("antler.db").is_file());
    // Running it again is a no-op.
    let (code, _, _) = run(&mut env.command(&["migrate"]));
    assert_eq!(code, 0);
}

#[test]
fn skill_list_prints_state_and_errors() {
    let env = Env::new();
    env.write_skill("public", "pdf", "pdf", "PDF.");
    env.write_skill("custom", "pdf", "pdf", "Custom PDF.");
    env.write_raw("custom", "broken", "no frontmatter\n");
    env.write_raw(
        "custom",
        "odd",
        "---\nname: Odd One\ndescription: O.\nauthor: me\n---\n",
    );
    let (code, stdout, stderr) = run(&mut env.command(&["skill", "list"]));
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("CATEGORY"));
    assert!(lines[1].starts_with("public") && lines[1].contains("shadowed by custom"));
    assert!(
        lines[2].starts_with("custom") && lines[2].contains("Odd One"),
        "{stdout}"
    );
    assert!(
        lines[2].contains("warnings: name-format, unknown-key"),
        "{stdout}"
    );
    assert!(lines[3].starts_with("custom"));
    assert!(lines[4].contains("custom/broken/SKILL.md"));
    let (code, stdout, _) = run(&mut env.command(&["skill", "list", "--json"]));
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["skills"].as_array().unwrap().len(), 3);
}

#[test]
fn skill_validate_judges_as_the_reference_validator_and_strict_takes_only_the_spec() {
    let env = Env::new();
    env.write_raw(
        "public",
        "good",
        "---\nname: good\ndescription: Good.\nargument-hint: '[file]'\nmetadata:\n  tags: [a, b]\n---\nbody\n",
    );
    env.write_raw(
        "public",
        "extra",
        "---\nname: extra\ndescription: Extra.\nauthor: me\n---\nbody\n",
    );
    let validate = |dir: &str, strict: bool| {
        let mut cmd = antler();
        cmd.args(["skill", "validate"]);
        if strict {
            cmd.arg("--strict");
        }
        run(cmd.arg(env.skills_dir().join(dir)))
    };
    let (code, stdout, _) = validate("public/good", false);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("warning: [extension-field] 'argument-hint'"),
        "{stdout}"
    );
    assert!(
        stdout.contains("warning: [metadata-value-not-string]"),
        "{stdout}"
    );
    assert!(stdout.contains("ok: good is a valid skill"));
    let (code, stdout, _) = validate("public/good", true);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("error: [unknown-key] 'argument-hint'"),
        "{stdout}"
    );
    let (code, stdout, _) = validate("public/extra", false);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("error: [unknown-key] 'author'"), "{stdout}");
}

#[test]
fn skill_validate_fails_with_one_line_per_problem() {
    let env = Env::new();
    let long = "d".repeat(1100);
    env.write_raw(
        "public",
        "dir-name",
        &format!(
            "---\nname: other\ndescription: {long}\ncompatibility: {}\n---\n",
            "c".repeat(600)
        ),
    );
    let (code, stdout, _) = run(antler()
        .args(["skill", "validate"])
        .arg(env.skills_dir().join("public/dir-name")));
    assert_eq!(code, 1);
    let errors: Vec<&str> = stdout.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 3, "{stdout}");
    assert!(stdout.contains("[name-dir-mismatch]"));
    assert!(stdout.contains("[description-too-long]"));
    assert!(stdout.contains("[compatibility-too-long]"));
    let (code, stdout, _) = run(antler()
        .args(["skill", "validate"])
        .arg(env.root.path().join("missing")));
    assert_eq!(code, 1);
    assert!(stdout.contains("cannot read"));
}

#[test]
fn skill_validate_names_a_symlinked_folder_by_the_path_given_not_its_target() {
    let env = Env::new();
    env.write_raw(
        "public",
        "docx-official",
        "---\nname: docx\ndescription: Word documents.\n---\nbody\n",
    );
    let link = env.root.path().join("docx");
    std::os::unix::fs::symlink(env.skills_dir().join("public/docx-official"), &link).unwrap();
    let (code, stdout, _) = run(antler().args(["skill", "validate"]).arg(&link));
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("ok: docx is a valid skill"), "{stdout}");
    let (code, stdout, _) = run(antler()
        .args(["skill", "validate"])
        .arg(env.skills_dir().join("public/docx-official")));
    assert_eq!(code, 1, "the target itself is misnamed: {stdout}");
    assert!(
        stdout.contains(
            "error: [name-dir-mismatch] name 'docx' does not match its directory 'docx-official'"
        ),
        "{stdout}"
    );
    // A path without a last name is the folder it stands for.
    let (code, stdout, _) = run(antler()
        .args(["skill", "validate", "."])
        .current_dir(env.skills_dir().join("public/docx-official")));
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("directory 'docx-official'"), "{stdout}");
}

#[test]
fn every_built_in_skill_validates() {
    let public =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../../skills/public");
    let mut count = 0;
    for entry in std::fs::read_dir(&public).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.join("SKILL.md").is_file() {
            continue;
        }
        let (code, stdout, _) = run(antler().args(["skill", "validate"]).arg(&dir));
        assert_eq!(code, 0, "{}: {stdout}", dir.display());
        assert!(!stdout.contains("warning"), "{}: {stdout}", dir.display());
        count += 1;
    }
    assert!(count >= 3, "at least three built-in skills, found {count}");
}

#[test]
fn servers_sharing_a_data_dir_never_share_an_instance_id() {
    let env = Env::new();
    let (a, b) = (env.start(), env.start());
    let mut locks: Vec<String> = std::fs::read_dir(env.data_dir().join("instances"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    locks.sort();
    assert_eq!(locks.len(), 2, "each server claims its own id: {locks:?}");
    drop((a, b));

    let _one = env.start_with(&[("ANTLER_SANDBOX_INSTANCE_ID", "replica-1")]);
    let mut clash = env
        .command(&["serve", "--bind", "127.0.0.1:0"])
        .env("ANTLER_SANDBOX_INSTANCE_ID", "replica-1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(status) = clash.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = clash.kill();
            panic!("a second server with the same instance id kept running");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut clash.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success());
    assert!(
        stderr.contains("replica-1") && stderr.contains("ANTLER_SANDBOX_INSTANCE_ID"),
        "{stderr}"
    );
}

#[test]
fn skill_commands_next_to_a_running_server_leave_it_alone() {
    let env = Env::new();
    env.write_skill("public", "alpha", "alpha", "First.");
    let _server = env.start_with(&[("ANTLER_SANDBOX_INSTANCE_ID", "replica-1")]);
    // Same configuration as the server, instance id included.
    let (code, stdout, stderr) = run(env
        .command(&["skill", "list"])
        .env("ANTLER_SANDBOX_INSTANCE_ID", "replica-1"));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("alpha"), "{stdout}");
    let locks: Vec<String> = std::fs::read_dir(env.data_dir().join("instances"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(locks, ["replica-1.lock"], "the command claimed no id");
    let scratch: Vec<String> = std::fs::read_dir(env.data_dir().join("tmp"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        scratch,
        ["replica-1"],
        "only the server's own scratch; the command left nothing behind"
    );
}
