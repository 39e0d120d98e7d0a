use std::io::Cursor;

use super::testing::{ZipBuilder, lie_about_size, set_unix_mode};
use super::*;

fn rules(bytes: Vec<u8>) -> Vec<String> {
    let i = inspect(Cursor::new(bytes), &ArchiveLimits::default()).unwrap();
    i.findings.iter().map(|f| f.rule.clone()).collect()
}

#[test]
fn a_clean_archive_with_a_top_folder_is_installable() {
    let zip = ZipBuilder::new()
        .skill("demo/", "demo")
        .mode("demo/scripts/run.sh", b"#!/bin/sh\necho hi\n", 0o755)
        .file("demo/references/guide.md", b"# guide\n")
        .finish()
        .unwrap();
    let i = inspect(Cursor::new(zip), &ArchiveLimits::default()).unwrap();
    assert!(i.is_installable(), "{:?}", i.findings);
    assert_eq!(i.root, "demo/");
    assert_eq!(i.name(), Some("demo"));
    let dests: Vec<_> = i.plan.iter().map(|p| p.dest.as_str()).collect();
    assert_eq!(dests, ["SKILL.md", "scripts/run.sh", "references/guide.md"]);
    assert!(i.plan[1].executable);
    assert!(!i.plan[2].executable);
}

#[test]
fn a_skill_at_the_archive_root_is_found() {
    let zip = ZipBuilder::new()
        .skill("", "flat")
        .file("notes.md", b"x")
        .finish()
        .unwrap();
    let i = inspect(Cursor::new(zip), &ArchiveLimits::default()).unwrap();
    assert!(i.is_installable());
    assert_eq!(i.root, "");
}

#[test]
fn every_problem_is_reported_not_only_the_first() {
    let zip = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/../evil.sh", b"x")
        .file("/etc/cron.d/evil", b"x")
        .file("s/a\\b.txt", b"x")
        .file("s/c:d.txt", b"x")
        .symlink("s/link", "/etc/passwd")
        .file("s/bin/tool", b"\x7fELF\x02\x01\x01rest")
        .file("s/other/SKILL.md", b"---\nname: x\n---\n")
        .finish()
        .unwrap();
    let found = rules(zip);
    for rule in [
        "unsafe-path",
        "symlink",
        "native-executable",
        "nested-skill",
    ] {
        assert!(
            found.iter().any(|r| r == rule),
            "{rule} missing from {found:?}"
        );
    }
    assert_eq!(found.iter().filter(|r| *r == "unsafe-path").count(), 4);
}

#[test]
fn nested_skill_files_are_allowed_under_evals_and_tests() {
    let zip = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/evals/case1/SKILL.md", b"x")
        .file("s/tests/fixture/SKILL.md", b"x")
        .finish()
        .unwrap();
    assert!(rules(zip).is_empty());
}

#[test]
fn macos_metadata_and_top_level_dotfiles_are_dropped_with_a_warning() {
    let zip = ZipBuilder::new()
        .skill("s/", "s")
        .file("__MACOSX/s/._SKILL.md", b"x")
        .file(".DS_Store", b"x")
        .file("s/.DS_Store", b"x")
        .file("s/scripts/.keep", b"")
        .finish()
        .unwrap();
    let i = inspect(Cursor::new(zip), &ArchiveLimits::default()).unwrap();
    assert!(i.is_installable(), "{:?}", i.findings);
    assert_eq!(i.warnings.len(), 3, "{:?}", i.warnings);
    assert!(i.plan.iter().any(|p| p.dest == "scripts/.keep"));
}

#[test]
fn missing_skill_md_and_invalid_frontmatter_are_refused() {
    let zip = ZipBuilder::new()
        .file("s/readme.md", b"x")
        .finish()
        .unwrap();
    assert_eq!(rules(zip), ["missing-skill-md"]);
    let zip = ZipBuilder::new()
        .file("s/SKILL.md", b"---\nname: .hidden\ndescription: d\n---\n")
        .finish()
        .unwrap();
    assert_eq!(rules(zip), ["name-format"]);
    let zip = ZipBuilder::new()
        .file("s/SKILL.md", b"---\nname: a/b\ndescription: d\n---\n")
        .finish()
        .unwrap();
    assert_eq!(rules(zip), ["name-unusable"]);
    let zip = ZipBuilder::new()
        .file("s/SKILL.md", b"---\nname: ok\n---\n")
        .finish()
        .unwrap();
    assert_eq!(rules(zip), ["description-missing"]);
}

#[test]
fn device_files_are_refused() {
    let zip = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/dev", b"")
        .file("s/fifo", b"")
        .finish()
        .unwrap();
    let zip = set_unix_mode(zip, "s/dev", 0o020_644);
    let zip = set_unix_mode(zip, "s/fifo", 0o010_644);
    assert_eq!(rules(zip), ["special-file", "special-file"]);
}

#[test]
fn too_many_entries_and_oversized_members_are_size_refusals() {
    let limits = ArchiveLimits {
        max_entries: 3,
        max_file_bytes: 10,
        ..ArchiveLimits::default()
    };
    let zip = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/a", b"12345678901")
        .file("s/b", b"x")
        .file("s/c", b"x")
        .finish()
        .unwrap();
    let i = inspect(Cursor::new(zip), &limits).unwrap();
    let found: Vec<_> = i.findings.iter().map(|f| f.rule.as_str()).collect();
    assert!(found.contains(&"too-many-entries"));
    assert!(found.contains(&"file-too-large"));
    assert!(i.refused_for_size());
}

#[test]
fn a_high_compression_ratio_is_refused() {
    let zeros = vec![0u8; 4 * 1024 * 1024];
    let zip = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/zeros", &zeros)
        .finish()
        .unwrap();
    assert_eq!(rules(zip), ["compression-ratio"]);
}

#[test]
fn a_lying_size_header_is_caught_while_extracting() {
    let zeros = vec![0u8; 256 * 1024];
    let zip = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/data", &zeros)
        .finish()
        .unwrap();
    let zip = lie_about_size(zip, "s/data", 10);
    let limits = ArchiveLimits::default();
    let i = inspect(Cursor::new(zip.clone()), &limits).unwrap();
    assert!(
        i.is_installable(),
        "the header alone looks harmless: {:?}",
        i.findings
    );
    let dest = tempfile::tempdir().unwrap();
    let err = extract(Cursor::new(zip), &i.plan, dest.path(), &limits).unwrap_err();
    match err {
        ExtractError::Refused(f) => assert!(
            f.rule == "size-mismatch" || f.rule == "corrupt-entry",
            "{f:?}"
        ),
        ExtractError::Io(e) => panic!("{e}"),
    }
}

#[test]
fn garbage_is_not_a_zip() {
    assert!(inspect(Cursor::new(b"hello".to_vec()), &ArchiveLimits::default()).is_err());
}

#[test]
fn executable_sniffing_knows_elf_pe_macho_and_spares_text_and_java() {
    use super::inspect::sniff_executable;
    assert_eq!(sniff_executable(b"\x7fELF\x02"), Some("ELF"));
    assert_eq!(
        sniff_executable(&[0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1]),
        Some("Mach-O")
    );
    assert_eq!(
        sniff_executable(&[0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2]),
        Some("Mach-O")
    );
    assert_eq!(
        sniff_executable(&[0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 61]),
        None
    );
    let mut pe = vec![0u8; 0x100];
    pe[0] = b'M';
    pe[1] = b'Z';
    pe[0x3c] = 0x80;
    pe[0x80..0x84].copy_from_slice(b"PE\0\0");
    assert_eq!(sniff_executable(&pe), Some("PE"));
    assert_eq!(
        sniff_executable(b"MZ is how this text file starts, nothing more to it....."),
        None
    );
    assert_eq!(sniff_executable(b"#!/usr/bin/env python3\n"), None);
}

#[test]
fn a_large_declared_total_is_a_size_refusal() {
    let limits = ArchiveLimits {
        max_total_bytes: 100,
        ..ArchiveLimits::default()
    };
    let zip = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/a.txt", &[b'a'; 60])
        .file("s/b.txt", &[b'b'; 60])
        .finish()
        .unwrap();
    let i = inspect(Cursor::new(zip), &limits).unwrap();
    let found: Vec<_> = i.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(found, ["archive-too-large"]);
    assert!(i.refused_for_size() && !i.is_installable());
}

/// Renames every occurrence of `from` in the raw bytes (names in both headers).
fn rename_raw(mut zip: Vec<u8>, from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let mut i = 0;
    while i + from.len() <= zip.len() {
        if &zip[i..i + from.len()] == from {
            zip[i..i + from.len()].copy_from_slice(to);
        }
        i += 1;
    }
    zip
}

#[test]
fn a_path_held_twice_is_refused() {
    let zip = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/dupA", b"first")
        .file("s/dupB", b"second")
        .finish()
        .unwrap();
    let zip = rename_raw(zip, b"s/dupB", b"s/dupA");
    assert_eq!(rules(zip), ["duplicate-entry"]);
    // A file and a directory of the same path.
    let zip = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/dupA", b"first")
        .dir("s/dupB/")
        .finish()
        .unwrap();
    let zip = rename_raw(zip, b"s/dupB", b"s/dupA");
    assert_eq!(rules(zip), ["duplicate-entry"]);
}

#[test]
fn encrypted_members_are_refused() {
    let zip = ZipBuilder::new()
        .skill("s/", "s")
        .file("s/secret.txt", b"hidden")
        .finish()
        .unwrap();
    // Set the "encrypted" bit of the member's flags in its local and central headers.
    let mut zip = zip;
    let name = b"s/secret.txt";
    for i in 0..zip.len().saturating_sub(46) {
        if &zip[i..i + 4] == b"PK\x03\x04" && zip.get(i + 30..i + 30 + name.len()) == Some(name) {
            zip[i + 6] |= 1;
        } else if &zip[i..i + 4] == b"PK\x01\x02"
            && zip.get(i + 46..i + 46 + name.len()) == Some(name)
        {
            zip[i + 8] |= 1;
        }
    }
    assert_eq!(rules(zip), ["encrypted"]);
}
