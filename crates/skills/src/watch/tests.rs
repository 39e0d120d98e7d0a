//! The watcher against a real folder: what refreshes the catalog and what does not.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::watch;
use crate::Catalog;
use crate::discovery::tests::write_skill;

fn catalog(root: &Path) -> Arc<Catalog> {
    std::fs::create_dir_all(root.join("custom")).unwrap();
    std::fs::create_dir_all(root.join("public")).unwrap();
    Arc::new(Catalog::load(
        root,
        crate::ScanLimits::default(),
        Default::default(),
    ))
}

/// Waits until `done` holds for the catalog (or fails after 10 s).
fn until(catalog: &Catalog, what: &str, done: impl Fn(&Catalog) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done(catalog) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn names(catalog: &Catalog) -> Vec<String> {
    let mut names: Vec<String> = catalog
        .snapshot()
        .list
        .skills
        .iter()
        .map(|s| s.name.clone())
        .collect();
    names.sort();
    names
}

#[test]
fn a_skill_copied_in_by_hand_appears_without_a_reload() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = catalog(tmp.path());
    let _guard = watch(catalog.clone(), Duration::from_millis(100)).unwrap();
    write_skill(&tmp.path().join("custom/by-hand"), "by-hand", "d");
    until(&catalog, "the copied skill", |c| names(c) == ["by-hand"]);
}

#[test]
fn folders_made_after_the_start_are_watched_too() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = catalog(tmp.path());
    let _guard = watch(catalog.clone(), Duration::from_millis(50)).unwrap();
    write_skill(&tmp.path().join("custom/team/deep/one"), "one", "d");
    until(&catalog, "the nested skill", |c| names(c) == ["one"]);
    // Its folders are watched now: a second skill beside it is found as well.
    write_skill(&tmp.path().join("custom/team/deep/two"), "two", "d");
    until(&catalog, "its sibling", |c| names(c) == ["one", "two"]);
    // A file changed deep inside a skill refreshes it (the sandbox view follows).
    let before = catalog.snapshot().version;
    std::fs::create_dir_all(tmp.path().join("custom/team/deep/two/scripts")).unwrap();
    std::fs::write(
        tmp.path().join("custom/team/deep/two/scripts/run.py"),
        "print(1)\n",
    )
    .unwrap();
    until(&catalog, "a refresh for the script", |c| {
        c.snapshot().version > before
    });
}

#[test]
fn reading_skills_and_changing_hidden_folders_refresh_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    for i in 0..50 {
        write_skill(
            &tmp.path().join(format!("public/s{i}")),
            &format!("s{i}"),
            "d",
        );
    }
    let catalog = catalog(tmp.path());
    let _guard = watch(catalog.clone(), Duration::from_millis(50)).unwrap();
    let version = catalog.snapshot().version;
    // Everything the server does when it scans or projects skills: list and read.
    for _ in 0..20 {
        for entry in walkdir::WalkDir::new(tmp.path()).into_iter().flatten() {
            if entry.file_type().is_file() {
                std::fs::read(entry.path()).unwrap();
            }
        }
    }
    std::fs::create_dir_all(tmp.path().join("custom/.history/x/1")).unwrap();
    std::fs::write(tmp.path().join("custom/.staging-1"), "x").unwrap();
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(catalog.snapshot().version, version);
}

#[test]
fn dropping_the_guard_stops_watching() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = catalog(tmp.path());
    let guard = watch(catalog.clone(), Duration::from_millis(50)).unwrap();
    drop(guard);
    write_skill(&tmp.path().join("custom/late"), "late", "d");
    std::thread::sleep(Duration::from_millis(400));
    assert!(names(&catalog).is_empty());
}

#[test]
fn a_skills_directory_that_is_a_link_is_watched() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("volume");
    std::fs::create_dir_all(real.join("custom")).unwrap();
    let link = tmp.path().join("skills");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let catalog = catalog(&link);
    let _guard = watch(catalog.clone(), Duration::from_millis(50)).unwrap();
    write_skill(&link.join("custom/linked"), "linked", "d");
    until(&catalog, "the skill in the linked folder", |c| {
        names(c) == ["linked"]
    });
}
