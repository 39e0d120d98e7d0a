//! Installing `.skill` archives (from a thread, by upload, on the command line) and deleting
//! custom skills. Every refusal must list its findings and leave the installation untouched.

use antler_skills::archive::testing::{ZipBuilder, lie_about_size, set_unix_mode};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::common::{Env, Server, error_code};

async fn upload(server: &Server, archive: Vec<u8>, fields: &[(&str, &str)]) -> (u16, Value) {
    let mut form = Form::new().part("file", Part::bytes(archive).file_name("x.skill"));
    for (k, v) in fields {
        form = form.text(k.to_string(), v.to_string());
    }
    let r = server
        .http
        .post(server.url("/api/skills/upload"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn install_from_thread(
    server: &Server,
    env: &Env,
    archive: &[u8],
    extra: Value,
) -> (u16, Value) {
    server.create_thread("t").await;
    std::fs::write(env.files_of("t").join("outputs/x.skill"), archive).unwrap();
    let mut body = json!({"thread_id": "t", "path": "/mnt/user-data/outputs/x.skill"});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    server.post_json("/api/skills/install", body).await
}

/// Staging directories an install left in `custom/`.
fn staging_leftovers(env: &Env) -> Vec<String> {
    std::fs::read_dir(env.skills_dir().join("custom"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(".staging"))
        .collect()
}

fn rules(body: &Value) -> Vec<String> {
    body["error"]["details"]["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("no findings: {body}"))
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

/// Uploads a hostile archive and checks status, rules, and that nothing on disk changed.
async fn assert_refused(env: &Env, server: &Server, archive: Vec<u8>, status: u16, want: &[&str]) {
    let before = env.tree();
    let (got, body) = upload(server, archive, &[]).await;
    assert_eq!(got, status, "{body}");
    let found = rules(&body);
    for rule in want {
        assert!(found.iter().any(|r| r == rule), "{rule} not in {found:?}");
    }
    assert_eq!(
        env.tree(),
        before,
        "a refused archive must not change anything on disk"
    );
    let (_, list) = server.get_json("/api/skills").await;
    assert!(list["skills"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn a_skill_from_a_thread_installs_enabled_and_is_listed_at_once() {
    let env = Env::new();
    let server = env.start();
    let zip = ZipBuilder::new()
        .skill("made/", "made")
        .mode("made/scripts/run.sh", b"#!/bin/sh\necho ok\n", 0o755)
        .file("__MACOSX/made/._SKILL.md", b"junk")
        .finish()
        .unwrap();
    let (status, body) = install_from_thread(&server, &env, &zip, json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["skill"]["name"], "made");
    assert_eq!(body["skill"]["category"], "custom");
    assert_eq!(body["skill"]["enabled"], true);
    assert_eq!(body["replaced"], false);
    assert_eq!(body["warnings"].as_array().unwrap().len(), 1, "{body}");
    let dir = env.skills_dir().join("custom/made");
    assert!(dir.join("SKILL.md").is_file());
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir.join("scripts/run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755, "scripts keep their executable bit");
    assert!(!env.skills_dir().join("custom/__MACOSX").exists());
    let (_, list) = server.get_json("/api/skills").await;
    assert_eq!(list["skills"][0]["name"], "made", "listed without a reload");
    let leftovers = staging_leftovers(&env);
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test]
async fn installing_from_a_thread_checks_the_path() {
    let env = Env::new();
    let server = env.start();
    server.create_thread("t").await;
    let outside = env.root.path().join("outside.skill");
    std::fs::write(
        &outside,
        ZipBuilder::new().skill("", "sneaky").finish().unwrap(),
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, env.files_of("t").join("outputs/link.skill")).unwrap();
    let post = |path: &'static str| {
        server.post_json(
            "/api/skills/install",
            json!({"thread_id": "t", "path": path}),
        )
    };
    let (status, body) = post("/mnt/user-data/outputs/link.skill").await;
    assert_eq!(status, 403, "{body}");
    let (status, _) = post("/mnt/user-data/outputs/missing.skill").await;
    assert_eq!(status, 404);
    let (status, _) = post("/mnt/user-data/../../x.skill").await;
    assert_eq!(status, 400);
    let (status, _) = post("/etc/passwd").await;
    assert_eq!(status, 400);
    let (status, _) = server
        .post_json(
            "/api/skills/install",
            json!({"thread_id": "nope", "path": "/mnt/user-data/outputs/a.skill"}),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = server
        .post_json(
            "/api/skills/install",
            json!({"thread_id": "bad id", "path": "/mnt/user-data/x"}),
        )
        .await;
    assert_eq!(status, 422);
    std::fs::write(env.files_of("t").join("outputs/text.skill"), "not a zip").unwrap();
    let (status, body) = post("/mnt/user-data/outputs/text.skill").await;
    assert_eq!(status, 400);
    assert_eq!(rules(&body), ["not-a-zip"]);
}

#[tokio::test]
async fn zip_slip_absolute_paths_and_symlinks_are_refused() {
    let env = Env::new();
    let server = env.start();
    let slip = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/../../evil.sh", b"x")
        .finish()
        .unwrap();
    assert_refused(&env, &server, slip, 400, &["unsafe-path"]).await;
    let absolute = ZipBuilder::new()
        .skill("", "s")
        .file("/tmp/evil.sh", b"x")
        .finish()
        .unwrap();
    assert_refused(&env, &server, absolute, 400, &["unsafe-path"]).await;
    let link = ZipBuilder::new()
        .skill("s/", "s")
        .symlink("s/passwd", "/etc/passwd")
        .finish()
        .unwrap();
    assert_refused(&env, &server, link, 400, &["symlink"]).await;
    let device = set_unix_mode(
        ZipBuilder::new()
            .skill("s/", "s")
            .file("s/dev", b"")
            .finish()
            .unwrap(),
        "s/dev",
        0o060_644,
    );
    assert_refused(&env, &server, device, 400, &["special-file"]).await;
    // Everything at once: every finding is reported.
    let all = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/../up", b"x")
        .file("s/a\\b", b"x")
        .symlink("s/l", "/")
        .file("s/bin", b"\x7fELF\x02\x01\x01\x00")
        .finish()
        .unwrap();
    let (status, body) = upload(&server, all, &[]).await;
    assert_eq!(status, 400);
    assert_eq!(rules(&body).len(), 4, "{body}");
    assert_eq!(error_code(&body), "invalid_archive");
}

#[tokio::test]
async fn a_lying_size_header_cannot_inflate_past_the_limit() {
    let env = Env::new();
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_SKILLS_INSTALL_MAX_FILE_BYTES", "65536"),
    ]);
    let zip = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/payload", &vec![0u8; 1024 * 1024])
        .finish()
        .unwrap();
    let zip = lie_about_size(zip, "s/payload", 100);
    assert!(zip.len() < 2048, "a ~1 KiB archive: {}", zip.len());
    assert_refused(&env, &server, zip, 413, &["size-mismatch"]).await;
}

#[tokio::test]
async fn too_many_entries_and_zip_bombs_are_size_refusals() {
    let env = Env::new();
    let server = env.start();
    let mut many = ZipBuilder::new().skill("s/", "s");
    for i in 0..5_000 {
        many = many.file(&format!("s/f{i}"), b"");
    }
    assert_refused(
        &env,
        &server,
        many.finish().unwrap(),
        413,
        &["too-many-entries"],
    )
    .await;
    let bomb = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/zeros", &vec![0u8; 8 * 1024 * 1024])
        .finish()
        .unwrap();
    assert_refused(&env, &server, bomb, 413, &["compression-ratio"]).await;
}

#[tokio::test]
async fn executables_nested_skills_and_bad_frontmatter_are_refused() {
    let env = Env::new();
    let server = env.start();
    let elf = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/tool", b"\x7fELF\x02\x01\x01\x00rest")
        .finish()
        .unwrap();
    assert_refused(&env, &server, elf, 400, &["native-executable"]).await;
    let nested = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/inner/SKILL.md", b"---\n---\n")
        .finish()
        .unwrap();
    assert_refused(&env, &server, nested, 400, &["nested-skill"]).await;
    let missing = ZipBuilder::new()
        .file("s/README.md", b"hi")
        .finish()
        .unwrap();
    assert_refused(&env, &server, missing, 400, &["missing-skill-md"]).await;
    let bad_name = ZipBuilder::new()
        .file("s/SKILL.md", b"---\nname: .hidden\ndescription: d\n---\n")
        .finish()
        .unwrap();
    assert_refused(&env, &server, bad_name, 400, &["name-format"]).await;
    // A name outside the specification installs (as a folder of that name), flagged.
    let odd_name = ZipBuilder::new()
        .file("s/SKILL.md", b"---\nname: Not Valid\ndescription: d\n---\n")
        .finish()
        .unwrap();
    let (status, body) = upload(&server, odd_name, &[]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["skill"]["name"], "Not Valid");
    assert!(body["warnings"].to_string().contains("lowercase"), "{body}");
    assert!(env.skills_dir().join("custom/Not Valid/SKILL.md").is_file());
    let (status, _) = server.delete("/api/skills/Not%20Valid").await;
    assert_eq!(status, 204);
    let long = format!("---\nname: s\ndescription: {}\n---\n", "d".repeat(1100));
    let too_long = ZipBuilder::new()
        .file("s/SKILL.md", long.as_bytes())
        .finish()
        .unwrap();
    assert_refused(&env, &server, too_long, 400, &["description-too-long"]).await;
    let (status, body) = upload(&server, b"PK but not really".to_vec(), &[]).await;
    assert_eq!(status, 400);
    assert_eq!(rules(&body), ["not-a-zip"]);
}

#[tokio::test]
async fn a_duplicate_name_conflicts_unless_overwrite_which_keeps_history() {
    let env = Env::new();
    let server = env.start();
    let v1 = ZipBuilder::new()
        .skill("dup/", "dup")
        .file("dup/v1.txt", b"1")
        .finish()
        .unwrap();
    let v2 = ZipBuilder::new()
        .skill("dup/", "dup")
        .file("dup/v2.txt", b"2")
        .finish()
        .unwrap();
    let (status, _) = upload(&server, v1, &[]).await;
    assert_eq!(status, 200);
    let (status, body) = upload(&server, v2.clone(), &[]).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(error_code(&body), "skill_exists");
    assert!(
        env.skills_dir().join("custom/dup/v1.txt").is_file(),
        "the installed skill is untouched"
    );
    let (status, body) = upload(&server, v2, &[("overwrite", "true"), ("enable", "false")]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["replaced"], true);
    assert_eq!(body["skill"]["enabled"], false);
    let dir = env.skills_dir().join("custom/dup");
    assert!(
        dir.join("v2.txt").is_file() && !dir.join("v1.txt").exists(),
        "no mix of versions"
    );
    let history: Vec<_> = std::fs::read_dir(env.skills_dir().join("custom/.history/dup"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(history.len(), 1);
    assert!(
        history[0].join("v1.txt").is_file(),
        "the previous version is restorable"
    );
    let (status, _) = upload(&server, b"x".to_vec(), &[("overwrite", "maybe")]).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn install_from_a_thread_takes_overwrite_and_enable_as_json() {
    let env = Env::new();
    let server = env.start();
    let version = |file: &str| {
        ZipBuilder::new()
            .skill("json-opts/", "json-opts")
            .file(&format!("json-opts/{file}"), b"x")
            .finish()
            .unwrap()
    };
    let (status, body) = install_from_thread(&server, &env, &version("v1.txt"), json!({})).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = install_from_thread(&server, &env, &version("v2.txt"), json!({})).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(error_code(&body), "skill_exists");
    let (status, body) = install_from_thread(
        &server,
        &env,
        &version("v2.txt"),
        json!({"overwrite": true, "enable": false}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["replaced"], true);
    assert_eq!(body["skill"]["enabled"], false);
    let dir = env.skills_dir().join("custom/json-opts");
    assert!(dir.join("v2.txt").is_file() && !dir.join("v1.txt").exists());
    let (_, list) = server.get_json("/api/skills").await;
    assert_eq!(list["skills"][0]["enabled"], false, "{list}");
    let (status, body) = install_from_thread(
        &server,
        &env,
        &version("v3.txt"),
        json!({"overwrite": "yes"}),
    )
    .await;
    assert!(status == 400 || status == 422, "{status} {body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("overwrite"),
        "{body}"
    );
    let leftovers = staging_leftovers(&env);
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test]
async fn concurrent_installs_of_one_name_never_mix() {
    let env = Env::new();
    let server = env.start();
    let archives: Vec<Vec<u8>> = (0..6)
        .map(|i| {
            let mut b = ZipBuilder::new().skill("race/", "race");
            for f in 0..50 {
                b = b.file(
                    &format!("race/files/{f}.txt"),
                    format!("version {i}").as_bytes(),
                );
            }
            b.finish().unwrap()
        })
        .collect();
    let results = futures_join(&server, archives).await;
    let ok = results.iter().filter(|(s, _)| *s == 200).count();
    let conflicts = results.iter().filter(|(s, _)| *s == 409).count();
    assert_eq!(ok, 1, "{results:?}");
    assert_eq!(conflicts, 5, "{results:?}");
    let dir = env.skills_dir().join("custom/race/files");
    let versions: std::collections::HashSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(
        versions.len(),
        1,
        "one complete version, never a mix: {versions:?}"
    );
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 50);
}

async fn futures_join(server: &Server, archives: Vec<Vec<u8>>) -> Vec<(u16, Value)> {
    let tasks: Vec<_> = archives
        .into_iter()
        .map(|a| {
            let http = server.http.clone();
            let url = server.url("/api/skills/upload");
            tokio::spawn(async move {
                let form = Form::new().part("file", Part::bytes(a).file_name("r.skill"));
                let r = http.post(url).multipart(form).send().await.unwrap();
                let status = r.status().as_u16();
                (status, r.json::<Value>().await.unwrap())
            })
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

#[tokio::test]
async fn custom_skills_are_deleted_public_ones_are_read_only() {
    let env = Env::new();
    env.write_skill("public", "builtin", "builtin", "Built in.");
    let server = env.start();
    let (status, _) = upload(
        &server,
        ZipBuilder::new().skill("gone/", "gone").finish().unwrap(),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = server.delete("/api/skills/gone").await;
    assert_eq!(status, 204);
    assert!(!env.skills_dir().join("custom/gone").exists());
    assert!(env.skills_dir().join("custom/.history/gone").is_dir());
    let (_, list) = server.get_json("/api/skills").await;
    assert_eq!(list["skills"].as_array().unwrap().len(), 1);
    let (status, body) = server.delete("/api/skills/builtin").await;
    assert_eq!(status, 403, "{body}");
    let (status, _) = server.delete("/api/skills/gone").await;
    assert_eq!(status, 404);
    let (status, _) = server.delete("/api/skills/bad%2Fname").await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn the_cli_installs_with_the_same_pipeline() {
    let env = Env::new();
    let good = env.root.path().join("good.skill");
    std::fs::write(
        &good,
        ZipBuilder::new().skill("cli/", "cli").finish().unwrap(),
    )
    .unwrap();
    let out = env
        .command(&["skill", "install", good.to_str().unwrap(), "--disable"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("installed: cli (disabled)"), "{stdout}");
    let bad = env.root.path().join("bad.skill");
    std::fs::write(
        &bad,
        ZipBuilder::new()
            .skill("b/", "b")
            .file("b/../x", b"")
            .finish()
            .unwrap(),
    )
    .unwrap();
    let out = env
        .command(&["skill", "install", bad.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout.contains("[unsafe-path]"), "{stdout}");
    let server = env.start();
    let (_, list) = server.get_json("/api/skills").await;
    assert_eq!(list["skills"][0]["name"], "cli");
    assert_eq!(list["skills"][0]["enabled"], false);
}

#[tokio::test]
async fn an_uploaded_archive_can_be_previewed_without_installing_it() {
    let env = Env::new();
    let server = env.start();
    let archive = ZipBuilder::new()
        .skill("peek/", "peek")
        .file("peek/scripts/run.sh", b"echo")
        .finish()
        .unwrap();
    let form = Form::new().part("file", Part::bytes(archive).file_name("peek.skill"));
    let r = server
        .http
        .post(server.url("/api/skills/preview"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let preview: Value = r.json().await.unwrap();
    assert_eq!(preview["skill"]["name"], "peek");
    assert_eq!(preview["skill"]["valid"], true);
    assert_eq!(preview["entries"].as_array().unwrap().len(), 2);
    assert!(
        !env.skills_dir().join("custom/peek").exists(),
        "nothing installed"
    );
    let bad = ZipBuilder::new()
        .skill("b/", "b")
        .file("b/../x", b"")
        .finish()
        .unwrap();
    let form = Form::new().part("file", Part::bytes(bad).file_name("b.skill"));
    let r = server
        .http
        .post(server.url("/api/skills/preview"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    let preview: Value = r.json().await.unwrap();
    assert_eq!(preview["skill"]["valid"], false);
    assert_eq!(preview["skill"]["findings"][0]["rule"], "unsafe-path");
}
