//! Catalog tests against real skill folders.
use super::*;
use crate::discovery::tests::write_skill;

fn catalog(setup: impl FnOnce(&Path)) -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    setup(tmp.path());
    let c = Catalog::load(tmp.path(), ScanLimits::default(), States::new());
    (tmp, c)
}

#[test]
fn skills_are_enabled_by_default_and_state_is_keyed_by_category_and_name() {
    let (_tmp, c) = catalog(|p| {
        write_skill(&p.join("public/pdf"), "pdf", "public pdf");
        write_skill(&p.join("custom/pdf"), "pdf", "custom pdf");
    });
    let snap = c.snapshot();
    assert!(snap.list.skills.iter().all(|s| s.enabled));
    let snap = c.set_enabled(SkillCategory::Public, "pdf", false);
    let public = snap.find("pdf", Some(SkillCategory::Public)).unwrap().0;
    let custom = snap.find("pdf", Some(SkillCategory::Custom)).unwrap().0;
    assert!(!public.enabled);
    assert!(custom.enabled, "the custom skill keeps its own state");
    assert!(snap.version > 1);
}

#[test]
fn an_enabled_custom_skill_shadows_the_public_one_of_the_same_name() {
    let (_tmp, c) = catalog(|p| {
        write_skill(&p.join("public/pdf"), "pdf", "public pdf");
        write_skill(&p.join("public/csv"), "csv", "csv");
        write_skill(&p.join("custom/pdf"), "pdf", "custom pdf");
    });
    let snap = c.snapshot();
    let public = snap.find("pdf", Some(SkillCategory::Public)).unwrap().0;
    assert!(public.shadowed);
    let seen: Vec<_> = snap.prompt_skills().map(|s| s.location.as_str()).collect();
    assert_eq!(
        seen,
        [
            "/mnt/skills/public/csv/SKILL.md",
            "/mnt/skills/custom/pdf/SKILL.md"
        ]
    );
    // Disabling the custom one brings the public one back without touching its state.
    let snap = c.set_enabled(SkillCategory::Custom, "pdf", false);
    let public = snap.find("pdf", Some(SkillCategory::Public)).unwrap().0;
    assert!(!public.shadowed && public.enabled);
    assert!(
        snap.prompt_section(8000)
            .contains("/mnt/skills/public/pdf/SKILL.md")
    );
}

#[test]
fn a_personal_skill_is_laid_over_the_shared_ones_and_shadows_them_while_enabled() {
    let (_tmp, shared) = catalog(|p| {
        write_skill(&p.join("public/pdf"), "pdf", "public pdf");
        write_skill(&p.join("custom/pdf"), "pdf", "custom pdf");
        write_skill(&p.join("public/csv"), "csv", "csv");
    });
    let mine_dir = tempfile::tempdir().unwrap();
    write_skill(&mine_dir.path().join("user/pdf"), "pdf", "my pdf");
    write_skill(&mine_dir.path().join("user/diary"), "diary", "my diary");
    let mine = Catalog::load_personal(mine_dir.path(), ScanLimits::default(), States::new());
    let seen = Snapshot::overlay(&shared.snapshot(), &mine.snapshot());
    let (skill, loaded) = seen.find("diary", None).unwrap();
    assert_eq!(skill.category, SkillCategory::User);
    assert_eq!(skill.location, "/mnt/skills/user/diary/SKILL.md");
    assert!(skill.editable && loaded.dir.ends_with("user/diary"));
    let offered: Vec<_> = seen.prompt_skills().map(|s| s.location.as_str()).collect();
    assert_eq!(
        offered,
        [
            "/mnt/skills/public/csv/SKILL.md",
            "/mnt/skills/user/diary/SKILL.md",
            "/mnt/skills/user/pdf/SKILL.md"
        ]
    );
    assert_eq!(
        seen.find("pdf", None).unwrap_err(),
        FindError::Ambiguous(
            "pdf".into(),
            vec![
                SkillCategory::Public,
                SkillCategory::Custom,
                SkillCategory::User
            ]
        )
    );
    // Disabled, it hides nothing: the custom one is offered again.
    let mine = mine.set_enabled(SkillCategory::User, "pdf", false);
    let seen = Snapshot::overlay(&shared.snapshot(), &mine);
    assert!(
        seen.prompt_section(8000)
            .contains("/mnt/skills/custom/pdf/SKILL.md")
    );
    assert!(!shared.snapshot().json().windows(5).any(|w| w == b"diary"));
}

#[test]
fn one_skill_is_read_again_alone_and_the_others_keep_their_reading() {
    let (tmp, c) = catalog(|p| {
        write_skill(&p.join("public/pdf"), "pdf", "pdf");
        write_skill(&p.join("custom/team/report"), "report", "report");
    });
    let before = c.snapshot();
    let pdf = before.find("pdf", None).unwrap().1.load_id;
    write_skill(&tmp.path().join("custom/new"), "new", "fresh");
    let after = c.refresh_skill(SkillCategory::Custom, "new");
    assert_eq!(after.list.skills.len(), 3);
    assert_eq!(after.find("new", None).unwrap().0.description, "fresh");
    assert_eq!(after.find("pdf", None).unwrap().1.load_id, pdf, "untouched");
    let names: Vec<_> = after.list.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["pdf", "new", "report"], "category then name order");
    // A changed file: the watcher's paths lead to its skill only.
    write_skill(&tmp.path().join("custom/team/report"), "report", "edited");
    let changed = c.refresh_paths(&[tmp.path().join("custom/team/report/SKILL.md")]);
    let (report, loaded) = changed.find("report", None).unwrap();
    assert_eq!(report.description, "edited");
    assert_ne!(
        loaded.load_id,
        after.find("report", None).unwrap().1.load_id
    );
    assert_eq!(changed.find("pdf", None).unwrap().1.load_id, pdf);
    // Removed, and broken: gone from the list, the breakage reported.
    std::fs::remove_dir_all(tmp.path().join("custom/new")).unwrap();
    let gone = c.refresh_paths(&[tmp.path().join("custom/new")]);
    assert!(gone.find("new", None).is_err());
    let version = gone.version;
    let again = c.refresh_paths(&[tmp.path().join("custom/new")]);
    assert_eq!(
        again.version, version,
        "a path already gone changes nothing"
    );
    std::fs::write(
        tmp.path().join("custom/team/report/SKILL.md"),
        "no frontmatter",
    )
    .unwrap();
    let broken = c.refresh_skill(SkillCategory::Custom, "team/report");
    assert!(broken.find("report", None).is_err());
    assert_eq!(broken.list.errors.len(), 1, "{:?}", broken.list.errors);
    // A name taken by another skill: the full scan decides, as at start.
    write_skill(&tmp.path().join("custom/pdf2"), "pdf", "another pdf");
    c.refresh_skill(SkillCategory::Custom, "pdf2");
    write_skill(&tmp.path().join("custom/pdf3"), "pdf", "a third pdf");
    let clash = c.refresh_skill(SkillCategory::Custom, "pdf3");
    assert_eq!(
        clash.list,
        Catalog::load(tmp.path(), ScanLimits::default(), States::new())
            .snapshot()
            .list
    );
}

#[test]
fn changes_after_a_moment_are_noticed_by_their_folders_and_files() {
    let (tmp, c) = catalog(|p| {
        write_skill(&p.join("public/pdf"), "pdf", "pdf");
        write_skill(&p.join("custom/team/report"), "report", "report");
    });
    std::thread::sleep(std::time::Duration::from_millis(20));
    // File times come from a coarse clock: each change waits a little after `since`.
    let pause = || std::thread::sleep(std::time::Duration::from_millis(30));
    let since = std::time::SystemTime::now();
    assert!(!c.changed_since(since));
    pause();
    write_skill(
        &tmp.path().join("custom/team/report"),
        "report",
        "edited in place",
    );
    assert!(c.changed_since(since), "a SKILL.md edited");
    let since = std::time::SystemTime::now();
    pause();
    std::fs::create_dir(tmp.path().join("custom/team/new")).unwrap();
    assert!(c.changed_since(since), "a folder added in a namespace");
}

/// A category folder whose time moved while the folders in it stayed those of the scan (an
/// install's hidden staging come and gone, the folder made just before the server started)
/// is no change: a late watcher would otherwise rescan 10,000 skills for nothing. A folder
/// added or removed there still is.
#[test]
fn a_category_folder_touched_without_a_change_of_its_folders_is_no_change() {
    let (tmp, c) = catalog(|p| {
        write_skill(&p.join("public/pdf"), "pdf", "pdf");
        write_skill(&p.join("custom/team/report"), "report", "report");
        std::fs::create_dir_all(p.join("custom")).unwrap();
    });
    std::thread::sleep(std::time::Duration::from_millis(20));
    let pause = || std::thread::sleep(std::time::Duration::from_millis(30));
    let since = std::time::SystemTime::now();
    pause();
    let staging = tmp.path().join("public/.staging-1");
    std::fs::create_dir(&staging).unwrap();
    std::fs::remove_dir(&staging).unwrap();
    assert!(
        !c.changed_since(since),
        "only a hidden folder came and went"
    );
    std::fs::create_dir(tmp.path().join("public/new")).unwrap();
    assert!(c.changed_since(since), "a folder added to a category");
    std::fs::remove_dir(tmp.path().join("public/new")).unwrap();
    assert!(!c.changed_since(since), "and taken out again");
    std::fs::remove_dir_all(tmp.path().join("public/pdf")).unwrap();
    assert!(
        c.changed_since(since),
        "a skill folder removed from a category"
    );
}

#[test]
fn find_needs_a_category_when_a_name_is_in_both() {
    let (_tmp, c) = catalog(|p| {
        write_skill(&p.join("public/pdf"), "pdf", "p");
        write_skill(&p.join("custom/pdf"), "pdf", "c");
    });
    let snap = c.snapshot();
    assert_eq!(
        snap.find("pdf", None).unwrap_err(),
        FindError::Ambiguous(
            "pdf".into(),
            vec![SkillCategory::Public, SkillCategory::Custom]
        )
    );
    assert_eq!(
        snap.find("nope", None).unwrap_err(),
        FindError::NotFound("nope".into())
    );
}

#[test]
fn rescan_picks_up_new_skills_and_notifies_subscribers() {
    let (tmp, c) = catalog(|_| {});
    let mut rx = c.subscribe();
    assert!(c.snapshot().list.skills.is_empty());
    write_skill(&tmp.path().join("custom/new"), "new", "n");
    let snap = c.rescan();
    assert_eq!(snap.list.skills.len(), 1);
    assert!(rx.has_changed().unwrap());
    assert_eq!(*rx.borrow_and_update(), snap.version);
}

#[test]
fn the_serialised_listing_and_etag_follow_the_state() {
    let (_tmp, c) = catalog(|p| write_skill(&p.join("public/a"), "a", "d"));
    let before = c.snapshot();
    let parsed: SkillList = serde_json::from_slice(before.json()).unwrap();
    assert_eq!(parsed, before.list);
    let after = c.set_enabled(SkillCategory::Public, "a", false);
    assert_ne!(before.etag(), after.etag());
    let mut unzipped = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&after.json_gzip()[..]),
        &mut unzipped,
    )
    .unwrap();
    assert_eq!(unzipped, &after.json()[..]);
}

#[test]
fn a_burst_of_changed_skills_is_read_by_one_full_scan() {
    let (tmp, c) = catalog(|_| {});
    let paths: Vec<PathBuf> = (0..40)
        .map(|i| {
            let dir = tmp.path().join(format!("custom/copied-{i:02}"));
            write_skill(&dir, &format!("copied-{i:02}"), "copied in");
            dir
        })
        .collect();
    let before = c.snapshot().version;
    let after = c.refresh_paths(&paths);
    assert_eq!(after.list.skills.len(), 40);
    assert_eq!(after.version, before + 1, "one scan, not forty refreshes");
    let few = c.refresh_paths(&paths[..2]);
    assert_eq!(few.version, after.version + 2, "a few are read one by one");
}
