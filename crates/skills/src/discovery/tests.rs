use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use super::*;

pub(crate) fn write_skill(dir: &Path, name: &str, description: &str) {
    fs::create_dir_all(dir).unwrap();
    fs::write(
        dir.join(SKILL_FILE),
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n"),
    )
    .unwrap();
}

fn names(scan: &Scan) -> Vec<String> {
    scan.skills
        .iter()
        .map(|s| format!("{}:{}", s.category, s.relative_path))
        .collect()
}

#[test]
fn finds_skills_in_both_categories_sorted_by_category_then_name() {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(&tmp.path().join("custom/zeta"), "zeta", "z");
    write_skill(&tmp.path().join("public/beta"), "beta", "b");
    write_skill(&tmp.path().join("public/alpha"), "alpha", "a");
    let scan = scan(tmp.path(), &ScanLimits::default());
    assert_eq!(names(&scan), ["public:alpha", "public:beta", "custom:zeta"]);
    assert!(scan.errors.is_empty(), "{:?}", scan.errors);
    assert_eq!(
        scan.skills[0].location(),
        "/mnt/skills/public/alpha/SKILL.md"
    );
}

#[test]
fn descends_namespaces_but_not_into_skills() {
    let tmp = tempfile::tempdir().unwrap();
    let public = tmp.path().join("public");
    write_skill(&public.join("team/child"), "child", "c");
    write_skill(&public.join("outer"), "outer", "o");
    // A SKILL.md inside a skill is part of that skill, not a second skill.
    write_skill(&public.join("outer/inner"), "inner", "i");
    let scan = scan(tmp.path(), &ScanLimits::default());
    assert_eq!(names(&scan), ["public:team/child", "public:outer"]);
    let child = &scan.skills[0];
    assert_eq!(child.location(), "/mnt/skills/public/team/child/SKILL.md");
}

#[test]
fn skips_hidden_directories() {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(&tmp.path().join("public/.hidden"), "hidden", "h");
    write_skill(&tmp.path().join("custom/.history/x/1"), "x", "x");
    write_skill(&tmp.path().join("public/shown"), "shown", "s");
    let scan = scan(tmp.path(), &ScanLimits::default());
    assert_eq!(names(&scan), ["public:shown"]);
}

#[test]
fn ignores_symlinks_that_escape_the_skills_dir_and_reports_them() {
    let outside = tempfile::tempdir().unwrap();
    write_skill(&outside.path().join("evil"), "evil", "e");
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("public")).unwrap();
    symlink(outside.path().join("evil"), tmp.path().join("public/evil")).unwrap();
    let scan = scan(tmp.path(), &ScanLimits::default());
    assert!(scan.skills.is_empty());
    assert_eq!(scan.errors.len(), 1);
    assert_eq!(scan.errors[0].path, "public/evil");
    assert!(scan.errors[0].message.contains("outside"));
}

#[test]
fn follows_symlinks_that_stay_inside() {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(&tmp.path().join("shared/tool"), "tool", "t");
    fs::create_dir_all(tmp.path().join("public")).unwrap();
    symlink(
        tmp.path().join("shared/tool"),
        tmp.path().join("public/tool"),
    )
    .unwrap();
    let scan = scan(tmp.path(), &ScanLimits::default());
    assert_eq!(names(&scan), ["public:tool"]);
}

#[test]
fn a_skill_folder_reached_twice_is_listed_once_by_its_first_path_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    // As collections ship it: `docx` links to the real folder `docx-official`.
    write_skill(
        &tmp.path().join("public/docx-official"),
        "docx",
        "Word files.",
    );
    symlink(
        tmp.path().join("public/docx-official"),
        tmp.path().join("public/docx"),
    )
    .unwrap();
    let scan = scan(tmp.path(), &ScanLimits::default());
    assert_eq!(names(&scan), ["public:docx"], "{:?}", scan.errors);
    assert!(scan.errors.is_empty(), "{:?}", scan.errors);
    let skill = &scan.skills[0];
    let codes: Vec<_> = skill
        .warning_details
        .iter()
        .map(|w| w.code.as_str())
        .collect();
    assert_eq!(
        codes,
        ["reached-twice"],
        "judged by the path it was found at: no name mismatch"
    );
    assert!(
        skill.warnings[0].contains("public/docx-official"),
        "{:?}",
        skill.warnings
    );
}

#[test]
fn a_symlink_loop_cannot_hang_the_scan() {
    let tmp = tempfile::tempdir().unwrap();
    let ns = tmp.path().join("public/ns");
    fs::create_dir_all(&ns).unwrap();
    symlink(&ns, ns.join("again")).unwrap();
    symlink(tmp.path().join("public"), ns.join("up")).unwrap();
    write_skill(&ns.join("real"), "real", "r");
    let scan = scan(tmp.path(), &ScanLimits::default());
    assert_eq!(names(&scan), ["public:ns/real"]);
    assert!(
        scan.errors
            .iter()
            .all(|e| e.message.contains("already scanned"))
    );
}

#[test]
fn depth_is_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let mut deep = tmp.path().join("public");
    for i in 0..5 {
        deep = deep.join(format!("d{i}"));
    }
    write_skill(&deep.join("six"), "six", "at depth 6");
    write_skill(&deep.join("d5/seven"), "seven", "at depth 7");
    let scan = scan(tmp.path(), &ScanLimits::default());
    assert_eq!(names(&scan), ["public:d0/d1/d2/d3/d4/six"]);
}

#[test]
fn the_number_of_directories_is_bounded_with_a_visible_error() {
    let tmp = tempfile::tempdir().unwrap();
    for i in 0..10 {
        fs::create_dir_all(tmp.path().join(format!("public/ns{i}/sub"))).unwrap();
    }
    let limits = ScanLimits {
        max_dirs: 5,
        ..ScanLimits::default()
    };
    let scan = scan(tmp.path(), &limits);
    assert_eq!(scan.errors.len(), 1);
    assert!(scan.errors[0].message.contains("scan stopped after 5"));
}

#[test]
fn broken_skills_are_errors_and_lenient_problems_are_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let public = tmp.path().join("public");
    fs::create_dir_all(public.join("noyaml")).unwrap();
    fs::write(public.join("noyaml/SKILL.md"), "---\nname: [\n---\n").unwrap();
    fs::create_dir_all(public.join("nodesc")).unwrap();
    fs::write(public.join("nodesc/SKILL.md"), "---\nname: nodesc\n---\n").unwrap();
    write_skill(&public.join("dir-name"), "other-name", "mismatch loads");
    let scan = scan(tmp.path(), &ScanLimits::default());
    assert_eq!(names(&scan), ["public:dir-name"]);
    assert_eq!(scan.skills[0].name, "other-name");
    assert!(scan.skills[0].warnings[0].contains("does not match"));
    let paths: Vec<_> = scan.errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["public/nodesc/SKILL.md", "public/noyaml/SKILL.md"]);
}

#[test]
fn duplicate_names_in_one_category_keep_the_first_and_report_the_second() {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(&tmp.path().join("public/a/dup"), "dup", "first");
    write_skill(&tmp.path().join("public/b/dup"), "dup", "second");
    let scan = scan(tmp.path(), &ScanLimits::default());
    assert_eq!(scan.skills.len(), 1);
    assert_eq!(scan.skills[0].description, "first");
    assert!(scan.errors[0].message.contains("duplicate"));
}

#[test]
fn a_missing_skills_dir_is_an_empty_catalog() {
    let tmp = tempfile::tempdir().unwrap();
    let scan = scan(&tmp.path().join("nope"), &ScanLimits::default());
    assert_eq!(scan, Scan::default());
}
