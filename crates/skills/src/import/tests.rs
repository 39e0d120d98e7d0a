//! Imports from real repositories made with `git` in temporary directories.

use std::path::Path;
use std::process::Command;

use super::*;
use crate::archive::{ArchiveLimits, inspect};

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

fn skill(root: &Path, rel: &str, name: &str) {
    let dir = root.join(rel);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: Does {name} things.\n---\n# {name}\n"),
    )
    .unwrap();
}

/// A repository with skills at several depths, one in a dot-folder, one not a skill.
fn repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    git(root, &["init", "-q", "-b", "main"]);
    skill(root, "skills/alpha", "alpha");
    skill(root, "skills/team/beta", "Beta Tool");
    skill(root, ".curated/gamma", "gamma");
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/README.md"), "not a skill").unwrap();
    std::fs::write(root.join("skills/alpha/run.sh"), "#!/bin/sh\necho hi\n").unwrap();
    std::fs::set_permissions(
        root.join("skills/alpha/run.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "one"]);
    tmp
}

fn file_url(dir: &Path) -> Source {
    parse_source(&format!("file://{}", dir.display()), false).unwrap()
}

#[test]
fn finds_nested_skills_and_hidden_ones_only_when_asked() {
    let repo = repo();
    let found = find(repo.path(), &FindOptions::default(), "repo");
    let paths: Vec<_> = found.skills.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["skills/alpha", "skills/team/beta"]);
    assert_eq!(found.skills[1].name, "Beta Tool");
    assert_eq!(found.hidden_skipped, [".curated"]);
    let all = find(
        repo.path(),
        &FindOptions {
            include_hidden: true,
            ..Default::default()
        },
        "repo",
    );
    let names: Vec<_> = all.skills.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["gamma", "alpha", "Beta Tool"]);
}

#[test]
fn a_linked_skill_file_is_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("secret.md");
    std::fs::write(
        &secret,
        "---\nname: leaked\ndescription: server secret\n---\n",
    )
    .unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("sneaky")).unwrap();
    std::os::unix::fs::symlink(&secret, repo.join("sneaky/SKILL.md")).unwrap();
    let found = find(&repo, &FindOptions::default(), "repo");
    assert_eq!(found.skills.len(), 1);
    assert_eq!(found.skills[0].name, "sneaky");
    assert_eq!(found.skills[0].description, None);
    let scratch = tempfile::tempdir().unwrap();
    let limits = ArchiveLimits::default();
    let packed = pack(&repo.join("sneaky"), "sneaky", &limits, scratch.path()).unwrap();
    let inspection = inspect(&packed.file, &limits).unwrap();
    assert!(!inspection.is_installable());
    assert!(inspection.findings.iter().any(|f| f.rule == "symlink"));
}

#[test]
fn a_skill_at_the_root_is_one_skill() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("SKILL.md"), "---\ndescription: x\n---\n").unwrap();
    skill(tmp.path(), "examples/inner", "inner");
    let found = find(tmp.path(), &FindOptions::default(), "my-repo");
    assert_eq!(found.skills.len(), 1);
    assert_eq!(found.skills[0].path, "");
    assert_eq!(found.skills[0].name, "my-repo");
}

#[test]
fn fetches_the_default_branch_a_branch_and_commits() {
    let repo = repo();
    let first = git(repo.path(), &["rev-parse", "HEAD"]);
    skill(repo.path(), "skills/delta", "delta");
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "two"]);
    let second = git(repo.path(), &["rev-parse", "HEAD"]);
    git(repo.path(), &["branch", "old", &first]);
    let scratch = tempfile::tempdir().unwrap();
    let source = file_url(repo.path());
    let limits = ImportLimits::default();

    let head = fetch(&source, None, &limits, scratch.path()).unwrap();
    assert_eq!(head.commit.as_deref(), Some(second.as_str()));
    assert!(head.root.join("skills/delta/SKILL.md").is_file());
    let run = head.root.join("skills/alpha/run.sh");
    assert_ne!(
        std::os::unix::fs::PermissionsExt::mode(&run.metadata().unwrap().permissions()) & 0o111,
        0
    );

    let old = fetch(&source, Some("old"), &limits, scratch.path()).unwrap();
    assert_eq!(old.commit.as_deref(), Some(first.as_str()));
    assert!(!old.root.join("skills/delta").exists());
    let full = fetch(&source, Some(&first), &limits, scratch.path()).unwrap();
    assert_eq!(full.commit.as_deref(), Some(first.as_str()));
    let short = fetch(&source, Some(&first[..10]), &limits, scratch.path()).unwrap();
    assert_eq!(short.commit.as_deref(), Some(first.as_str()));

    // The scratch copies go away with their checkouts.
    drop((head, old, full, short));
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
}

#[test]
fn fetch_failures_are_told_apart() {
    let repo = repo();
    let scratch = tempfile::tempdir().unwrap();
    let limits = ImportLimits::default();
    let missing = file_url(&repo.path().join("nope"));
    assert!(matches!(
        fetch(&missing, None, &limits, scratch.path()),
        Err(ImportError::CloneFailed(_))
    ));
    assert!(matches!(
        fetch(
            &file_url(repo.path()),
            Some("no-such-branch"),
            &limits,
            scratch.path()
        ),
        Err(ImportError::CloneFailed(_))
    ));
    assert!(matches!(
        fetch(
            &file_url(repo.path()),
            Some("--upload-pack=x"),
            &limits,
            scratch.path()
        ),
        Err(ImportError::InvalidSource(_))
    ));
    // Incompressible content far over a tiny limit.
    let big: Vec<u8> = (0..2_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(repo.path().join("skills/alpha/blob.bin"), big).unwrap();
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-q", "-m", "big"]);
    let tight = ImportLimits {
        max_repo_bytes: 500_000,
        ..limits
    };
    assert!(matches!(
        fetch(&file_url(repo.path()), None, &tight, scratch.path()),
        Err(ImportError::TooLarge(500_000))
    ));
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
}

#[test]
fn packing_keeps_files_and_modes_and_exposes_hostile_content() {
    let repo = repo();
    let scratch = tempfile::tempdir().unwrap();
    let limits = ArchiveLimits::default();
    let alpha = repo.path().join("skills/alpha");
    let packed = pack(&alpha, "alpha", &limits, scratch.path()).unwrap();
    assert!(packed.findings.is_empty());
    let inspection = inspect(&packed.file, &limits).unwrap();
    assert!(inspection.is_installable(), "{:?}", inspection.findings);
    assert_eq!(inspection.name(), Some("alpha"));
    let run = inspection.plan.iter().find(|p| p.dest == "run.sh").unwrap();
    assert!(run.executable);

    std::os::unix::fs::symlink("/etc/passwd", alpha.join("passwd")).unwrap();
    std::fs::write(alpha.join("huge.txt"), vec![b'x'; 4096]).unwrap();
    let small = ArchiveLimits {
        max_file_bytes: 1024,
        ..limits
    };
    let packed = pack(&alpha, "alpha", &small, scratch.path()).unwrap();
    let rules: Vec<_> = packed.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(rules, ["file-too-large"]);
    let inspection = inspect(&packed.file, &small).unwrap();
    let rules: Vec<_> = inspection
        .findings
        .iter()
        .map(|f| f.rule.as_str())
        .collect();
    assert_eq!(rules, ["symlink"]);
    assert_eq!(inspection.findings[0].path, "alpha/passwd");
}

#[test]
fn repository_names() {
    for (url, name) in [
        ("https://example.com/org/skills.git", "skills"),
        ("git@example.com:org/tools.git", "tools"),
        ("file:///srv/repos/mine/", "mine"),
    ] {
        assert_eq!(repository_name(&parse_source(url, false).unwrap()), name);
    }
}
