//! Importing skills from Git repositories made with `git` in temporary directories and
//! fetched over `file://` (no network): preview, selective install, refusals, update.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::auth::user;
use crate::common::{Env, client_with, error_code, write_skill_dir};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.email=t@antler.test", "-c", "user.name=t"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn commit_all(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// A collection as people publish them: nested namespaces, a name with capitals and spaces,
/// a dot-folder, an executable script, and two skills an install must refuse.
fn collection() -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    git(root, &["init", "-q", "-b", "main"]);
    write_skill_dir(
        &root.join("skills/alpha"),
        "alpha",
        "Alpha does alpha things.",
    );
    std::fs::create_dir_all(root.join("skills/alpha/scripts")).unwrap();
    std::fs::write(
        root.join("skills/alpha/scripts/run.sh"),
        "#!/bin/sh\necho alpha\n",
    )
    .unwrap();
    std::fs::set_permissions(
        root.join("skills/alpha/scripts/run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    write_skill_dir(
        &root.join("skills/team/beta"),
        "Beta Tool",
        "Beta, written by a team.",
    );
    write_skill_dir(&root.join(".curated/gamma"), "gamma", "Curated gamma.");
    write_skill_dir(&root.join("skills/linky"), "linky", "Links out of itself.");
    std::os::unix::fs::symlink("/etc/passwd", root.join("skills/linky/passwd")).unwrap();
    write_skill_dir(&root.join("skills/bulky"), "bulky", "Carries a large file.");
    std::fs::write(root.join("skills/bulky/data.bin"), vec![7u8; 300_000]).unwrap();
    std::fs::write(root.join("README.md"), "# A collection\n").unwrap();
    let head = commit_all(root, "collection");
    (tmp, head)
}

fn url(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn admins_preview_and_import_chosen_skills_and_hostile_ones_are_refused() {
    let (repo, head) = collection();
    let env = Env::new();
    let root = repo.path().to_str().unwrap();
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_SKILLS_INSTALL_MAX_FILE_BYTES", "100000"),
        ("ANTLER_SKILLS_IMPORT_ALLOWED_FILE_ROOTS", root),
    ]);
    let repo_url = url(repo.path());

    // A preview installs nothing and says what would happen to each skill.
    let (status, preview) = server
        .post_json("/api/skills/import", json!({ "url": repo_url }))
        .await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["commit"], head.as_str());
    assert_eq!(
        names(&preview["skills"]),
        ["alpha", "bulky", "linky", "Beta Tool"]
    );
    assert_eq!(preview["hidden_skipped"], json!([".curated"]));
    assert_eq!(preview["installed"], json!([]));
    let by_name = |name: &str| {
        preview["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(by_name("alpha")["installable"], true);
    assert_eq!(by_name("Beta Tool")["path"], "skills/team/beta");
    let linky = by_name("linky");
    assert_eq!(linky["installable"], false);
    assert_eq!(linky["findings"][0]["rule"], "symlink");
    assert_eq!(linky["findings"][0]["path"], "skills/linky/passwd");
    assert_eq!(by_name("bulky")["findings"][0]["rule"], "file-too-large");
    assert!(!env.skills_dir().join("custom/alpha").exists());

    let (status, hidden) = server
        .post_json(
            "/api/skills/import",
            json!({ "url": repo_url, "include_hidden": true }),
        )
        .await;
    assert_eq!(status, 200);
    assert!(names(&hidden["skills"]).contains(&"gamma".to_string()));

    // Chosen skills, by name and by path, at the previewed commit.
    let (status, done) = server
        .post_json(
            "/api/skills/import",
            json!({ "url": repo_url, "ref": head, "skills": ["alpha", "skills/team/beta"] }),
        )
        .await;
    assert_eq!(status, 200, "{done}");
    let installed: Vec<_> = done["installed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["skill"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(installed, ["alpha", "Beta Tool"]);
    let (_, listed) = server.get_json("/api/skills/alpha").await;
    assert_eq!(
        (listed["category"].as_str(), listed["enabled"].as_bool()),
        (Some("custom"), Some(true))
    );
    let script = env.skills_dir().join("custom/alpha/scripts/run.sh");
    assert_ne!(script.metadata().unwrap().permissions().mode() & 0o111, 0);
    let origin: Value = serde_json::from_slice(
        &std::fs::read(env.skills_dir().join("custom/.history/alpha/origin.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(origin["url"], repo_url.as_str());
    assert_eq!(origin["commit"], head.as_str());
    assert_eq!(origin["path"], "skills/alpha");

    // Refusals name every problem and install nothing.
    let (status, body) = server
        .post_json(
            "/api/skills/import",
            json!({ "url": repo_url, "skills": ["linky"] }),
        )
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (400, "invalid_archive"),
        "{body}"
    );
    assert_eq!(body["error"]["details"]["findings"][0]["rule"], "symlink");
    assert!(!env.skills_dir().join("custom/linky").exists());
    let (status, body) = server
        .post_json(
            "/api/skills/import",
            json!({ "url": repo_url, "skills": ["bulky"] }),
        )
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (413, "archive_too_large"),
        "{body}"
    );
    let (status, body) = server
        .post_json(
            "/api/skills/import",
            json!({ "url": repo_url, "skills": ["nope"] }),
        )
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (400, "unknown_skill"),
        "{body}"
    );
    assert_eq!(body["error"]["details"]["unknown"], json!(["nope"]));
    let (status, body) = server
        .post_json(
            "/api/skills/import",
            json!({ "url": repo_url, "skills": ["alpha"] }),
        )
        .await;
    assert_eq!((status, error_code(&body)), (409, "skill_exists"), "{body}");

    // `all` takes every installable skill and skips the refused ones.
    let (status, body) = server
        .post_json(
            "/api/skills/import",
            json!({ "url": repo_url, "all": true, "overwrite": true, "enable": false }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["installed"].as_array().unwrap().len(), 2);
    let (_, alpha) = server.get_json("/api/skills/alpha").await;
    assert_eq!(alpha["enabled"], false);

    // Sources and refs that must not reach git, and ones git cannot fetch.
    for bad in [
        "ext::sh -c touch% /tmp/x",
        "/etc",
        "ftp://example.com/x",
        "--help",
    ] {
        let (status, body) = server
            .post_json("/api/skills/import", json!({ "url": bad }))
            .await;
        assert_eq!(
            (status, error_code(&body)),
            (400, "invalid_source"),
            "{bad}: {body}"
        );
    }
    let (status, body) = server
        .post_json(
            "/api/skills/import",
            json!({ "url": repo_url, "ref": "-x" }),
        )
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (400, "invalid_source"),
        "{body}"
    );
    let (status, body) = server
        .post_json(
            "/api/skills/import",
            json!({ "url": url(&repo.path().join("missing")) }),
        )
        .await;
    // A missing path reads like any path outside the allowed roots.
    assert_eq!(
        (status, error_code(&body)),
        (400, "invalid_source"),
        "{body}"
    );
    let (status, body) = server
        .post_json(
            "/api/skills/import",
            json!({ "url": repo_url, "ref": "no-such-branch" }),
        )
        .await;
    assert_eq!((status, error_code(&body)), (422, "fetch_failed"), "{body}");

    // Only admins import.
    let member = client_with(Some(&user(&server, "member@antler.test").await));
    let r = member
        .post(server.url("/api/skills/import"))
        .json(&json!({ "url": repo_url }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
}

#[tokio::test]
async fn a_repository_over_the_size_limit_is_refused() {
    let (repo, _) = collection();
    let noise: Vec<u8> = (0..3_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    std::fs::write(repo.path().join("noise.bin"), noise).unwrap();
    commit_all(repo.path(), "noise");
    let env = Env::new();
    let root = repo.path().to_str().unwrap();
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_SKILLS_IMPORT_MAX_REPO_BYTES", "1000000"),
        ("ANTLER_SKILLS_IMPORT_ALLOWED_FILE_ROOTS", root),
    ]);
    let (status, body) = server
        .post_json("/api/skills/import", json!({ "url": url(repo.path()) }))
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (413, "repository_too_large"),
        "{body}"
    );
    // Nothing is left behind in the scratch space.
    let leftovers: Vec<_> = walk(&env.data_dir().join("tmp"))
        .into_iter()
        .filter(|p| p.contains("import-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            out.push(e.path().display().to_string());
            out.extend(walk(&e.path()));
        }
    }
    out
}

fn cli(env: &Env, args: &[&str]) -> (bool, String) {
    let out = env.command(args).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn the_command_line_adds_from_a_path_and_updates_to_a_new_commit() {
    let (repo, first) = collection();
    let env = Env::new();
    let path = repo.path().to_str().unwrap();

    let (ok, out) = cli(&env, &["skill", "add", path]);
    assert!(ok, "{out}");
    assert!(
        out.contains("alpha") && out.contains("skills/team/beta"),
        "{out}"
    );
    assert!(out.contains("[symlink] skills/linky/passwd"), "{out}");
    assert!(
        out.contains("not searched (pass --include-hidden): .curated"),
        "{out}"
    );
    assert!(out.contains("nothing installed"), "{out}");
    assert!(!env.skills_dir().join("custom/alpha").exists());

    let (ok, out) = cli(&env, &["skill", "add", path, "--skill", "alpha"]);
    assert!(ok, "{out}");
    assert!(out.contains("installed: alpha (enabled)"), "{out}");
    let (ok, out) = cli(&env, &["skill", "add", path, "--skill", "linky"]);
    assert!(!ok);
    assert!(out.contains("[symlink]"), "{out}");

    let (ok, out) = cli(&env, &["skill", "update"]);
    assert!(ok, "{out}");
    assert!(out.contains("up to date: alpha"), "{out}");

    write_skill_dir(
        &repo.path().join("skills/alpha"),
        "alpha",
        "Alpha, second edition.",
    );
    let second = commit_all(repo.path(), "alpha 2");
    let (ok, out) = cli(&env, &["skill", "update", "alpha"]);
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!(
            "updated: alpha {} -> {}",
            &first[..12],
            &second[..12]
        )),
        "{out}"
    );
    let text = std::fs::read_to_string(env.skills_dir().join("custom/alpha/SKILL.md")).unwrap();
    assert!(text.contains("second edition"), "{text}");
    // The first version is kept in history, next to the origin record.
    let history = env.skills_dir().join("custom/.history/alpha");
    let versions = std::fs::read_dir(&history)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_type().unwrap().is_dir())
        .count();
    assert_eq!(versions, 1);
    let origin = std::fs::read_to_string(history.join("origin.json")).unwrap();
    assert!(origin.contains(&second), "{origin}");

    // A skill that left the repository is reported, and the command fails.
    std::fs::remove_dir_all(repo.path().join("skills/alpha")).unwrap();
    commit_all(repo.path(), "alpha moved away");
    let (ok, out) = cli(&env, &["skill", "update"]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("no longer holds a skill at 'skills/alpha'"),
        "{out}"
    );
    assert!(env.skills_dir().join("custom/alpha/SKILL.md").exists());

    let (ok, out) = cli(&env, &["skill", "update", "not-imported"]);
    assert!(!ok, "{out}");
}

#[tokio::test]
async fn the_api_imports_from_the_servers_disk_only_inside_allowed_roots_and_never_shows_its_paths()
{
    let (repo, _) = collection();
    let other = tempfile::tempdir().unwrap();
    std::fs::create_dir(repo.path().join("not-a-repo")).unwrap();
    // Off by default: no file:// at all, whatever the path.
    let env = Env::new();
    let server = env.start_with(&[("ANTLER_SKILLS_WATCH", "false")]);
    for target in [
        url(repo.path()),
        "file:///etc".into(),
        "file:///no/such".into(),
    ] {
        let (status, body) = server
            .post_json("/api/skills/import", json!({ "url": target }))
            .await;
        assert_eq!(
            (status, error_code(&body)),
            (400, "invalid_source"),
            "{body}"
        );
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("allowed_file_roots")
        );
    }
    drop(server);
    // One root allowed: inside works, outside (or missing, or through `..`) reads the same.
    let env = Env::new();
    let root = repo.path().to_str().unwrap();
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_SKILLS_IMPORT_ALLOWED_FILE_ROOTS", root),
    ]);
    let (status, preview) = server
        .post_json("/api/skills/import", json!({ "url": url(repo.path()) }))
        .await;
    assert_eq!(status, 200, "{preview}");
    let mut answers = Vec::new();
    for target in [
        url(other.path()),
        "file:///etc".to_string(),
        format!("{}/../../etc", url(repo.path())),
        "file:///no/such".to_string(),
    ] {
        let (status, body) = server
            .post_json("/api/skills/import", json!({ "url": target }))
            .await;
        assert_eq!(status, 400, "{target}: {body}");
        answers.push(body["error"]["message"].clone());
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
    // Git's own complaint about a folder inside the root names no server path.
    let (status, body) = server
        .post_json(
            "/api/skills/import",
            json!({ "url": url(&repo.path().join("not-a-repo")) }),
        )
        .await;
    assert_eq!((status, error_code(&body)), (422, "fetch_failed"), "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(!message.contains("/tmp"), "{message}");
}
