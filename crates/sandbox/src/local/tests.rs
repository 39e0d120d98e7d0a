//! Local provider tests on real host directories and processes.
use super::*;

async fn sandbox(allow: bool) -> (tempfile::TempDir, Arc<dyn Sandbox>) {
    let tmp = tempfile::tempdir().unwrap();
    let view = tmp.path().join("view");
    std::fs::create_dir_all(view.join("public/demo")).unwrap();
    std::fs::write(view.join("public/demo/SKILL.md"), "demo skill\n").unwrap();
    let provider = LocalProvider::new(&tmp.path().join("data"), &view, allow, 1024);
    let sb = provider.acquire("t1").await.unwrap();
    (tmp, sb)
}

struct Alices(PathBuf);

#[async_trait]
impl PersonalSkills for Alices {
    async fn wanted(&self, owner: &str) -> Vec<crate::view::ProjectedSkill> {
        if owner != "alice" {
            return Vec::new();
        }
        vec![crate::view::ProjectedSkill {
            category: antler_protocol::skills::SkillCategory::User,
            relative_path: "notes".into(),
            source: self.0.clone(),
            load_id: 0,
        }]
    }
}

#[tokio::test]
async fn personal_skills_map_to_the_owner_copy_for_files_and_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let notes = tmp.path().join("src/notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("SKILL.md"), "alice's notes\n").unwrap();
    let view = tmp.path().join("view");
    std::fs::create_dir_all(view.join("user")).unwrap();
    let provider = LocalProvider::new(&tmp.path().join("data"), &view, true, 1024)
        .with_personal_skills(Arc::new(Alices(notes)), tmp.path().join("personal"));
    let alice = provider
        .acquire_for(
            "a",
            crate::Acquire {
                owner: Some("alice"),
                image: None,
                network: None,
                keep: false,
            },
        )
        .await
        .unwrap();
    let bob = provider
        .acquire_for(
            "b",
            crate::Acquire {
                owner: Some("bob"),
                image: None,
                network: None,
                keep: false,
            },
        )
        .await
        .unwrap();
    let path = "/mnt/skills/user/notes/SKILL.md";
    assert_eq!(
        alice.read_file(path, None).await.unwrap(),
        "alice's notes\n"
    );
    assert!(bob.read_file(path, None).await.is_err());
    let out = alice
        .exec(ExecRequest::new(
            format!("cat {path}; ls -d /mnt/skills/user/notes"),
            Duration::from_secs(10),
        ))
        .await
        .unwrap();
    assert_eq!(
        out.stdout, "alice's notes\n/mnt/skills/user/notes\n",
        "{out:?}"
    );
    assert!(
        alice.write_file(path, "x", false).await.is_err(),
        "read-only"
    );
    // Walking /mnt/skills shows them too (their folder is mounted from elsewhere).
    let listed = alice.list_dir("/mnt/skills", 3).await.unwrap();
    let paths: Vec<_> = listed.entries.iter().map(|e| e.path.as_str()).collect();
    assert!(
        paths.contains(&"/mnt/skills/user/notes/SKILL.md"),
        "{paths:?}"
    );
    let found = alice.glob("**/SKILL.md", "/mnt/skills").await.unwrap();
    assert_eq!(found.paths, ["/mnt/skills/user/notes/SKILL.md"]);
    let hits = alice
        .grep(crate::api::GrepRequest {
            pattern: "alice's".into(),
            path: "/mnt/skills".into(),
            glob: None,
            literal: true,
            case_sensitive: false,
            max_matches: 10,
        })
        .await
        .unwrap();
    assert_eq!(hits.matches[0].path, "/mnt/skills/user/notes/SKILL.md");
    let bobs = bob.glob("**/SKILL.md", "/mnt/skills").await.unwrap();
    assert!(bobs.paths.is_empty(), "{:?}", bobs.paths);
}

#[tokio::test]
async fn the_configured_command_timeout_caps_what_the_model_asks_for() {
    let tmp = tempfile::tempdir().unwrap();
    let provider = LocalProvider::new(&tmp.path().join("data"), tmp.path(), true, 1024)
        .with_command_timeout(Duration::from_millis(300));
    let sb = provider.acquire("t1").await.unwrap();
    let out = sb
        .exec(ExecRequest::new(
            "sleep 30; echo never",
            Duration::from_secs(600),
        ))
        .await
        .unwrap();
    assert!(out.timed_out && !out.stdout.contains("never"), "{out:?}");
}

#[tokio::test]
async fn commands_are_refused_unless_allowed() {
    let (_tmp, sb) = sandbox(false).await;
    let e = sb
        .exec(ExecRequest::new("echo hi", Duration::from_secs(5)))
        .await
        .unwrap_err();
    assert!(matches!(e, SandboxError::ExecDisabled(_)));
    assert!(e.is_model_facing());
    sb.write_file(
        "/mnt/user-data/outputs/a.txt",
        "file tools still work",
        false,
    )
    .await
    .unwrap();
    assert_eq!(
        sb.read_file("/mnt/user-data/outputs/a.txt", None)
            .await
            .unwrap(),
        "file tools still work"
    );
}

#[tokio::test]
async fn allowed_commands_see_container_paths_and_no_secrets() {
    let (tmp, sb) = sandbox(true).await;
    let out = sb
        .exec(ExecRequest::new(
            "pwd; cat /mnt/skills/public/demo/SKILL.md; echo x > /mnt/user-data/outputs/o.txt; env | grep -c ^CARGO || true",
            Duration::from_secs(10),
        ))
        .await
        .unwrap();
    assert_eq!(out.exit_code, Some(0), "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0], "/mnt/user-data/workspace",
        "host paths never reach the model"
    );
    assert_eq!(lines[1], "demo skill");
    assert_eq!(
        lines[2], "0",
        "the CARGO_* variables of the test process are not inherited"
    );
    assert!(
        tmp.path()
            .join("data/users/local/threads/t1/user-data/outputs/o.txt")
            .is_file()
    );
    assert!(!out.stdout.contains(tmp.path().to_str().unwrap()));
}

#[tokio::test]
async fn timeouts_kill_the_whole_process_group_and_output_is_capped() {
    let (_tmp, sb) = sandbox(true).await;
    let out = sb
        .exec(ExecRequest::new(
            "sleep 30 & sleep 30; echo never",
            Duration::from_millis(300),
        ))
        .await
        .unwrap();
    assert!(out.timed_out);
    assert_eq!(out.exit_code, Some(137));
    let big = sb
        .exec(ExecRequest::new(
            "head -c 100000 /dev/zero | tr '\\0' 'a'; echo; echo END",
            Duration::from_secs(10),
        ))
        .await
        .unwrap();
    assert!(big.stdout_skipped > 90_000);
    assert!(big.stdout.contains("bytes of output skipped"));
    assert!(big.stdout.trim_end().ends_with("END"));
    let req = ExecRequest::new("sleep 30", Duration::from_secs(60));
    let cancel = req.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancel.cancel();
    });
    let out = sb.exec(req).await.unwrap();
    assert!(out.cancelled && !out.timed_out);
}

#[test]
fn container_roots_are_replaced_only_on_segment_boundaries() {
    assert_eq!(
        replace_root("cat /mnt/skills/a /mnt/skills-x/b", "/mnt/skills", "/h"),
        "cat /h/a /mnt/skills-x/b"
    );
    assert_eq!(replace_root("ls /mnt/skills", "/mnt/skills", "/h"), "ls /h");
    assert_eq!(replace_root("'/mnt/skills'", "/mnt/skills", "/h"), "'/h'");
}
