use std::os::unix::fs::symlink;

use super::*;

fn fs() -> (tempfile::TempDir, HostFs) {
    let tmp = tempfile::tempdir().unwrap();
    let ud = tmp.path().join("ud");
    let skills = tmp.path().join("skills");
    for d in ["workspace", "uploads", "outputs"] {
        std::fs::create_dir_all(ud.join(d)).unwrap();
    }
    std::fs::create_dir_all(skills.join("public/pdf")).unwrap();
    std::fs::write(
        skills.join("public/pdf/SKILL.md"),
        "---\nname: pdf\n---\nline2\nline3\n",
    )
    .unwrap();
    (tmp, HostFs::new(ud, skills, crate::FileAccess::Same))
}

#[test]
fn maps_container_paths_to_the_host_roots() {
    let (_tmp, fs) = fs();
    fs.write_file("/mnt/user-data/outputs/a/b.txt", "hello\nworld\n", false)
        .unwrap();
    assert_eq!(
        fs.read_file("/mnt/user-data/outputs/a/b.txt", None)
            .unwrap(),
        "hello\nworld\n"
    );
    assert_eq!(
        fs.read_file("/mnt/user-data/outputs/a/b.txt", Some((2, 2)))
            .unwrap(),
        "world\n"
    );
    fs.write_file("notes.md", "x", false).unwrap();
    fs.write_file("notes.md", "y", true).unwrap();
    assert_eq!(
        fs.read_file("/mnt/user-data/workspace/notes.md", None)
            .unwrap(),
        "xy"
    );
    assert_eq!(
        fs.read_file("/mnt/skills/public/pdf/SKILL.md", Some((4, 9)))
            .unwrap(),
        "line2\nline3\n"
    );
    assert_eq!(
        fs.read_file("/mnt/user-data/workspace/../outputs/a/b.txt", Some((1, 1)))
            .unwrap(),
        "hello\n"
    );
}

#[test]
fn refuses_other_roots_skill_writes_and_escapes_with_container_paths_only() {
    let (tmp, fs) = fs();
    let e = fs.read_file("/etc/passwd", None).unwrap_err();
    assert!(matches!(e, SandboxError::PermissionDenied { .. }), "{e}");
    let e = fs
        .read_file("/mnt/user-data/../../etc/passwd", None)
        .unwrap_err();
    assert!(matches!(e, SandboxError::PermissionDenied { .. }), "{e}");
    let e = fs.read_file("/mnt/skills-x/a", None).unwrap_err();
    assert!(matches!(e, SandboxError::PermissionDenied { .. }));
    let e = fs
        .write_file("/mnt/skills/public/pdf/SKILL.md", "x", false)
        .unwrap_err();
    assert!(e.to_string().contains("read-only"), "{e}");
    symlink("/etc", fs.user_data().join("outputs/etc")).unwrap();
    let e = fs
        .read_file("/mnt/user-data/outputs/etc/passwd", None)
        .unwrap_err();
    assert!(e.to_string().contains("outside the sandbox"), "{e}");
    let e = fs
        .write_file("/mnt/user-data/outputs/etc/evil", "x", false)
        .unwrap_err();
    assert!(matches!(e, SandboxError::PermissionDenied { .. }));
    let e = fs
        .read_file("/mnt/user-data/outputs/missing", None)
        .unwrap_err();
    assert_eq!(
        e,
        SandboxError::NotFound("/mnt/user-data/outputs/missing".into())
    );
    assert!(!e.to_string().contains(tmp.path().to_str().unwrap()));
    assert!(matches!(
        fs.read_file("/mnt/user-data/outputs", None),
        Err(SandboxError::IsDirectory(_))
    ));
    std::fs::write(fs.user_data().join("outputs/bin"), [0u8, 1, 2]).unwrap();
    assert!(
        fs.read_file("/mnt/user-data/outputs/bin", None)
            .unwrap_err()
            .to_string()
            .contains("binary")
    );
}

#[test]
fn lists_globs_and_greps_with_container_paths() {
    let (_tmp, fs) = fs();
    fs.write_file(
        "/mnt/user-data/workspace/src/a.py",
        "import os\nprint('Hello')\n",
        false,
    )
    .unwrap();
    fs.write_file("/mnt/user-data/workspace/src/b.txt", "hello there\n", false)
        .unwrap();
    fs.write_file("/mnt/user-data/workspace/top.py", "x = 1\n", false)
        .unwrap();
    let listing = fs.list_dir("/mnt/user-data/workspace", 2).unwrap();
    let paths: Vec<_> = listing.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/mnt/user-data/workspace/src",
            "/mnt/user-data/workspace/src/a.py",
            "/mnt/user-data/workspace/src/b.txt",
            "/mnt/user-data/workspace/top.py"
        ]
    );
    assert!(listing.entries[0].is_dir);
    let one = fs.list_dir("/mnt/user-data/workspace", 1).unwrap();
    assert_eq!(one.entries.len(), 2);

    let g = fs.glob("**/*.py", "/mnt/user-data/workspace").unwrap();
    assert_eq!(
        g.paths,
        [
            "/mnt/user-data/workspace/src/a.py",
            "/mnt/user-data/workspace/top.py"
        ]
    );
    let g = fs.glob("/mnt/user-data/workspace/src/*.txt", "/").unwrap();
    assert_eq!(g.paths, ["/mnt/user-data/workspace/src/b.txt"]);

    let req = |pattern: &str, literal, case_sensitive, glob: Option<&str>| GrepRequest {
        pattern: pattern.into(),
        path: "/mnt/user-data/workspace".into(),
        glob: glob.map(str::to_owned),
        literal,
        case_sensitive,
        max_matches: 10,
    };
    let hits = fs.grep(&req("hello", false, false, None)).unwrap();
    assert_eq!(hits.matches.len(), 2);
    assert_eq!(hits.matches[0].path, "/mnt/user-data/workspace/src/a.py");
    assert_eq!(hits.matches[0].line_number, 2);
    let hits = fs.grep(&req("hello", false, true, None)).unwrap();
    assert_eq!(hits.matches.len(), 1);
    let hits = fs.grep(&req("print('", true, true, Some("*.py"))).unwrap();
    assert_eq!(hits.matches.len(), 1);
    assert!(fs.grep(&req("(unclosed", false, true, None)).is_err());
    let mut capped = req("e", false, false, None);
    capped.max_matches = 1;
    assert!(fs.grep(&capped).unwrap().truncated);
}
